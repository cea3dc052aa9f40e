import { createHmac } from "node:crypto";
import { sha256 } from "@noble/hashes/sha2";
import { createBase58check } from "@scure/base";
import { HARDENED_OFFSET, HDKey } from "@scure/bip32";
import libsecp256k1 from "secp256k1";
import { LRUCache } from "lru-cache";
import { bytesToHex } from "viem";
import { publicKeyToAddress } from "viem/accounts";
import { DomainError } from "@payin/errors";
import { AllocationReason } from "./reasons.js";

/** Mainnet BIP32 version bytes: `xpub…` and `xprv…`. */
const VERSIONS = { public: 0x0488b21e, private: 0x0488ade4 } as const;
/** version(4) depth(1) parent fingerprint(4) child number(4) chain code(32) key(33). */
const SERIALIZED_LENGTH = 78;
/** The account level of m/44'/60'/N'. */
const ACCOUNT_DEPTH = 3;
/** A serialized key is 111 characters; anything far longer is refused before decoding. */
const MAX_XPUB_LENGTH = 120;
/** Addresses come from the external chain, `xpub/0`, non-hardened indexes only. */
export const MAX_ADDRESS_INDEX = HARDENED_OFFSET - 1;
/**
 * The levels above the account, BIP44 purpose and Ethereum's coin type. A
 * depth-3 key records only its own child number, not its parents' (its parent
 * fingerprint cannot be checked without their keys), so these are assumed.
 */
const ACCOUNT_PARENT_PATH = "m/44'/60'";
/** How refusals name the keys that are accepted. */
const ACCOUNT_PATTERN = `${ACCOUNT_PARENT_PATH}/N'`;

/** The path of hardened account `account`: m/44'/60'/N'. */
export function accountPath(account: number): string {
  return `${ACCOUNT_PARENT_PATH}/${account}'`;
}

const base58check = createBase58check(sha256);

function invalid(problem: string): DomainError<AllocationReason> {
  // The key itself never goes into the message: it is the merchant's wallet.
  return new DomainError(AllocationReason.WalletXpubInvalid, `xpub ${problem}`);
}

/**
 * Parses a merchant's account key and checks it is what a receiving wallet needs:
 * a mainnet BIP32 extended PUBLIC key of depth 3 with a hardened child number
 * (m/44'/60'/N', any account N), whose key is a valid compressed secp256k1
 * point. Private keys of any form are refused, and so is every invalid key of
 * BIP32 test vector 5. Fails with WALLET_XPUB_INVALID; the message never
 * repeats the key.
 */
export function parseAccountXpub(xpub: string): HDKey {
  if (typeof xpub !== "string" || xpub.length === 0) throw invalid("is required");
  if (xpub.length > MAX_XPUB_LENGTH) throw invalid("is not a BIP32 extended key (too long)");
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(xpub);
  } catch {
    throw invalid("is not a BIP32 extended key (bad base58 or checksum)");
  }
  if (bytes.length !== SERIALIZED_LENGTH) throw invalid("is not a BIP32 extended key (wrong length)");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(0, false);
  const depth = bytes[4]!;
  const parentFingerprint = view.getUint32(5, false);
  const index = view.getUint32(9, false);
  const chainCode = bytes.slice(13, 45);
  const key = bytes.slice(45);
  if (version === VERSIONS.private || key[0] === 0x00) {
    throw invalid("must be an extended public key: private keys are refused, never send one");
  }
  if (version !== VERSIONS.public) throw invalid("must be a mainnet extended public key (xpub…)");
  if (key[0] !== 0x02 && key[0] !== 0x03) throw invalid("holds an invalid public key");
  if (depth !== ACCOUNT_DEPTH) {
    throw invalid(`must be the account key of ${ACCOUNT_PATTERN} (depth ${ACCOUNT_DEPTH}), got depth ${depth}`);
  }
  // BIP44 accounts are hardened: a non-hardened child here is no wallet's account
  // key, and no m/44'/60'/N' path would be true of its addresses.
  if (index < HARDENED_OFFSET) {
    throw invalid(`must be the account key of ${ACCOUNT_PATTERN} (a hardened account), got non-hardened child ${index}`);
  }
  try {
    // The constructor checks the point is on the curve.
    return new HDKey({ versions: VERSIONS, depth, index, parentFingerprint, chainCode, publicKey: key });
  } catch {
    throw invalid("holds an invalid public key");
  }
}

/** The account number N of an account key accepted by parseAccountXpub: m/44'/60'/N'. */
export function accountNumber(accountKey: HDKey): number {
  return accountKey.index - HARDENED_OFFSET;
}

/** The derivation path of address `index` of account `account`, also its `allocation_reference`. */
export function derivationPath(account: number, index: number): string {
  return `${accountPath(account)}/0/${index}`;
}

/** The `xpub/0` node: its key and chain code, the inputs of public child derivation. */
interface ChainNode {
  /** The account number N of the xpub, for the paths of its addresses. */
  account: number;
  /** Compressed SEC1 encoding, the HMAC input of public child derivation. */
  publicKey: Uint8Array;
  /** The same point uncompressed: libsecp256k1 then skips a square root per child. */
  uncompressed: Uint8Array;
  chainCode: Uint8Array;
}

/** The order n of secp256k1's group, big-endian: a tweak must lie below it. */
const CURVE_ORDER = Buffer.from("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", "hex");

/** True when a 32-byte big-endian tweak I_L is 0 or at least n (BIP32: that index is not derivable). */
export function tweakOutOfRange(tweak: Uint8Array): boolean {
  return tweak.every((byte) => byte === 0) || Buffer.compare(tweak, CURVE_ORDER) >= 0;
}

/** Most xpubs whose external-chain node is kept; the least recently used is dropped first. */
const CACHE_SIZE = 1024;
const externalChains = new LRUCache<string, ChainNode>({ max: CACHE_SIZE });

/**
 * The `xpub/0` node of an account key. Parsing it costs a base58 decode and a few
 * point operations, and every pay-in consumes an address, so nodes are kept in a
 * small least-recently-used map keyed by the xpub text.
 */
function externalChain(xpub: string): ChainNode {
  const cached = externalChains.get(xpub);
  if (cached) return cached;
  const accountKey = parseAccountXpub(xpub);
  const hd = accountKey.deriveChild(0);
  if (hd.index !== 0 || !hd.publicKey || !hd.chainCode) throw new Error("the external chain of this xpub is not derivable");
  const node: ChainNode = {
    account: accountNumber(accountKey),
    publicKey: hd.publicKey,
    uncompressed: libsecp256k1.publicKeyConvert(hd.publicKey, false),
    chainCode: hd.chainCode,
  };
  externalChains.set(xpub, node);
  return node;
}

/**
 * BIP32 CKDpub for a non-hardened index, returning the child's uncompressed key:
 * I = HMAC-SHA512(chain code, serP(K) || ser32(i)); child = K + I_L·G. The point
 * arithmetic is libsecp256k1's (the `secp256k1` package's prebuilt binding,
 * Bitcoin Core's library): K + t·G there costs about a tenth of what it costs in
 * JavaScript BigInts (@scure/bip32's deriveChild takes about 7 times as long as
 * this and the address together, docs/decisions.md), and every pay-in consumes
 * one. Only public data goes in. The hd tests hold the result to @scure/bip32's
 * derivation.
 */
function childPublicKey(node: ChainNode, index: number): Uint8Array {
  const data = new Uint8Array(37);
  data.set(node.publicKey, 0);
  new DataView(data.buffer).setUint32(33, index, false);
  const tweak = createHmac("sha512", node.chainCode).update(data).digest().subarray(0, 32);
  // BIP32 says to skip to the next index in these cases (odds below 2^-127);
  // refusing keeps every recorded path true to its address.
  if (tweakOutOfRange(tweak)) throw new Error(`address index ${index} is not derivable`);
  try {
    return libsecp256k1.publicKeyTweakAdd(node.uncompressed, tweak, false);
  } catch {
    // The sum is the point at infinity.
    throw new Error(`address index ${index} is not derivable`);
  }
}

export interface DerivedAddress {
  /** EIP-55 checksummed address. */
  address: string;
  index: number;
  derivationPath: string;
}

/**
 * The address of `xpub/0/index` for an account key accepted by parseAccountXpub,
 * with its path m/44'/60'/N'/0/index, N the key's own account number.
 */
export function deriveAddress(xpub: string, index: number): DerivedAddress {
  if (!Number.isInteger(index) || index < 0 || index > MAX_ADDRESS_INDEX) {
    throw new Error(`address index out of range: ${index}`);
  }
  const node = externalChain(xpub);
  // The address of the uncompressed key, EIP-55 checksummed (viem).
  const address = publicKeyToAddress(bytesToHex(childPublicKey(node, index)));
  return { address, index, derivationPath: derivationPath(node.account, index) };
}
