import { secp256k1 } from "@noble/curves/secp256k1";
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";

/**
 * EIP-55 mixed-case checksum of a 20-byte address given as 40 hex digits (any
 * case, with or without `0x`): a letter is upper-cased when the matching nibble of
 * keccak256(lower-case hex) is 8 or more.
 */
export function toChecksumAddress(hex: string): string {
  const lower = hex.replace(/^0x/i, "").toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(lower)) throw new Error("an address is 40 hex digits");
  const hash = keccak_256(utf8ToBytes(lower));
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const c = lower[i]!;
    // Nibble i of the hash: the high half of byte i/2 for even i, the low half for odd.
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f;
    out += nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/**
 * Ethereum address of a secp256k1 public key: the last 20 bytes of keccak256
 * over the uncompressed point without its 0x04 prefix, EIP-55 checksummed. An
 * uncompressed key is taken as is (the caller vouches for it); any other
 * encoding is parsed, and checked to be on the curve, first.
 */
export function addressFromPublicKey(publicKey: Uint8Array): string {
  const uncompressed =
    publicKey.length === 65 && publicKey[0] === 0x04
      ? publicKey
      : secp256k1.ProjectivePoint.fromHex(publicKey).toRawBytes(false);
  const hash = keccak_256(uncompressed.subarray(1));
  return toChecksumAddress(bytesToHex(hash.subarray(12)));
}
