import { describe, expect, it, vi } from "vitest";
import libsecp256k1 from "secp256k1";
import { HARDENED_OFFSET, HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { secp256k1 } from "@noble/curves/secp256k1";
import { sha256 } from "@noble/hashes/sha2";
import { keccak_256 } from "@noble/hashes/sha3";
import { createBase58check } from "@scure/base";
import { DomainError } from "@payin/errors";
import { accountNumber, accountPath, deriveAddress, derivationPath, parseAccountXpub, tweakOutOfRange } from "./hd.js";
import { AllocationReason } from "./reasons.js";

// The well-known development mnemonic (Hardhat, Anvil): its first accounts are public.
const MNEMONIC = "test test test test test test test test test test test junk";
const master = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));
const account = master.derive("m/44'/60'/0'");
const accountXpub = account.publicExtendedKey;

/**
 * The EIP-55 address of a public key (any SEC1 encoding), computed without the
 * code under test or viem: noble's point and keccak, and the checksum spelled out here.
 */
function independentAddress(publicKey: Uint8Array): string {
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
  const lower = hex(keccak_256(secp256k1.ProjectivePoint.fromHex(publicKey).toRawBytes(false).subarray(1))).slice(24);
  const hash = hex(keccak_256(new TextEncoder().encode(lower)));
  return "0x" + [...lower].map((c, i) => (parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c)).join("");
}

/** The address of a full path of the development mnemonic, from its private keys. */
function addressOfPath(path: string): string {
  return independentAddress(secp256k1.getPublicKey(master.derive(path).privateKey!, false));
}

/** Re-encodes the account xpub with another child number (same key and chain code). */
function withChildNumber(childNumber: number): string {
  const base58check = createBase58check(sha256);
  const bytes = base58check.decode(accountXpub);
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(9, childNumber, false);
  return base58check.encode(bytes);
}

/** BIP32 test vector 5: every key a parser must refuse, with the BIP's reason. */
const TEST_VECTOR_5: [string, string][] = [
  ["xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6LBpB85b3D2yc8sfvZU521AAwdZafEz7mnzBBsz4wKY5fTtTQBm", "pubkey version / prvkey mismatch"],
  ["xprv9s21ZrQH143K24Mfq5zL5MhWK9hUhhGbd45hLXo2Pq2oqzMMo63oStZzFGTQQD3dC4H2D5GBj7vWvSQaaBv5cxi9gafk7NF3pnBju6dwKvH", "prvkey version / pubkey mismatch"],
  ["xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6Txnt3siSujt9RCVYsx4qHZGc62TG4McvMGcAUjeuwZdduYEvFn", "invalid pubkey prefix 04"],
  ["xprv9s21ZrQH143K24Mfq5zL5MhWK9hUhhGbd45hLXo2Pq2oqzMMo63oStZzFGpWnsj83BHtEy5Zt8CcDr1UiRXuWCmTQLxEK9vbz5gPstX92JQ", "invalid prvkey prefix 04"],
  ["xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6N8ZMMXctdiCjxTNq964yKkwrkBJJwpzZS4HS2fxvyYUA4q2Xe4", "invalid pubkey prefix 01"],
  ["xprv9s21ZrQH143K24Mfq5zL5MhWK9hUhhGbd45hLXo2Pq2oqzMMo63oStZzFAzHGBP2UuGCqWLTAPLcMtD9y5gkZ6Eq3Rjuahrv17fEQ3Qen6J", "invalid prvkey prefix 01"],
  ["xprv9s2SPatNQ9Vc6GTbVMFPFo7jsaZySyzk7L8n2uqKXJen3KUmvQNTuLh3fhZMBoG3G4ZW1N2kZuHEPY53qmbZzCHshoQnNf4GvELZfqTUrcv", "zero depth with non-zero parent fingerprint"],
  ["xpub661no6RGEX3uJkY4bNnPcw4URcQTrSibUZ4NqJEw5eBkv7ovTwgiT91XX27VbEXGENhYRCf7hyEbWrR3FewATdCEebj6znwMfQkhRYHRLpJ", "zero depth with non-zero parent fingerprint"],
  ["xprv9s21ZrQH4r4TsiLvyLXqM9P7k1K3EYhA1kkD6xuquB5i39AU8KF42acDyL3qsDbU9NmZn6MsGSUYZEsuoePmjzsB3eFKSUEh3Gu1N3cqVUN", "zero depth with non-zero index"],
  ["xpub661MyMwAuDcm6CRQ5N4qiHKrJ39Xe1R1NyfouMKTTWcguwVcfrZJaNvhpebzGerh7gucBvzEQWRugZDuDXjNDRmXzSZe4c7mnTK97pTvGS8", "zero depth with non-zero index"],
  ["DMwo58pR1QLEFihHiXPVykYB6fJmsTeHvyTp7hRThAtCX8CvYzgPcn8XnmdfHGMQzT7ayAmfo4z3gY5KfbrZWZ6St24UVf2Qgo6oujFktLHdHY4", "unknown extended key version"],
  ["DMwo58pR1QLEFihHiXPVykYB6fJmsTeHvyTp7hRThAtCX8CvYzgPcn8XnmdfHPmHJiEDXkTiJTVV9rHEBUem2mwVbbNfvT2MTcAqj3nesx8uBf9", "unknown extended key version"],
  ["xprv9s21ZrQH143K24Mfq5zL5MhWK9hUhhGbd45hLXo2Pq2oqzMMo63oStZzF93Y5wvzdUayhgkkFoicQZcP3y52uPPxFnfoLZB21Teqt1VvEHx", "private key 0 not in 1..n-1"],
  ["xprv9s21ZrQH143K24Mfq5zL5MhWK9hUhhGbd45hLXo2Pq2oqzMMo63oStZzFAzHGBP2UuGCqWLTAPLcMtD5SDKr24z3aiUvKr9bJpdrcLg1y3G", "private key n not in 1..n-1"],
  ["xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6Q5JXayek4PRsn35jii4veMimro1xefsM58PgBMrvdYre8QyULY", "invalid pubkey 020000000000000000000000000000000000000000000000000000000000000007"],
  ["xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHL", "invalid checksum"],
];

/** Asserts `xpub` is refused with WALLET_XPUB_INVALID and a message that does not repeat it. */
function expectRefused(xpub: string, message?: RegExp): void {
  let caught: unknown;
  try {
    parseAccountXpub(xpub);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(DomainError);
  const error = caught as DomainError;
  expect(error.reason).toBe(AllocationReason.WalletXpubInvalid);
  if (xpub.length > 8) expect(error.message).not.toContain(xpub.slice(4, -4));
  if (message) expect(error.message).toMatch(message);
}

describe("parseAccountXpub", () => {
  it("accepts the account xpub of m/44'/60'/0'", () => {
    const node = parseAccountXpub(accountXpub);
    expect(node.depth).toBe(3);
    expect(node.privateKey).toBeNull();
    expect(node.publicKey).toEqual(account.publicKey);
    expect(accountNumber(node)).toBe(0);
  });

  it("accepts the xpub of any hardened account m/44'/60'/N', and reads N from it", () => {
    for (const n of [1, 7, 2 ** 31 - 1]) {
      const other = master.derive(`m/44'/60'/${n}'`);
      const node = parseAccountXpub(other.publicExtendedKey);
      expect(node.index).toBe(HARDENED_OFFSET + n);
      expect(node.privateKey).toBeNull();
      expect(node.publicKey).toEqual(other.publicKey);
      expect(node.chainCode).toEqual(other.chainCode);
      expect(accountNumber(node)).toBe(n);
    }
  });

  it("refuses the account's xprv, and never repeats it", () => {
    expectRefused(account.privateExtendedKey, /private keys are refused/);
    expectRefused(master.privateExtendedKey, /private keys are refused/);
  });

  it("refuses keys of the wrong depth", () => {
    expectRefused(master.publicExtendedKey, /^xpub must be the account key of m\/44'\/60'\/N' \(depth 3\), got depth 0$/);
    expectRefused(master.derive("m/44'/60'/0'/0").publicExtendedKey, /got depth 4/);
    expectRefused(master.derive("m/44'/60'").publicExtendedKey, /got depth 2/);
  });

  it("refuses a non-hardened account", () => {
    const nonHardened = master.derive("m/44'/60'/5").publicExtendedKey;
    expect(HDKey.fromExtendedKey(nonHardened)).toMatchObject({ depth: 3, index: 5 });
    expectRefused(nonHardened, /^xpub must be the account key of m\/44'\/60'\/N' \(a hardened account\), got non-hardened child 5$/);
    expectRefused(withChildNumber(0), /got non-hardened child 0$/);
    // The highest non-hardened child sits just below the hardened offset.
    expectRefused(withChildNumber(HARDENED_OFFSET - 1), /got non-hardened child 2147483647$/);
  });

  it("takes the account number from the child number at both ends of the hardened range", () => {
    expect(accountNumber(parseAccountXpub(withChildNumber(HARDENED_OFFSET)))).toBe(0);
    expect(accountNumber(parseAccountXpub(withChildNumber(HARDENED_OFFSET + 1)))).toBe(1);
    expect(accountNumber(parseAccountXpub(withChildNumber(0xffffffff)))).toBe(2 ** 31 - 1);
  });

  it("refuses a testnet key", () => {
    const tpub = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC), { private: 0x04358394, public: 0x043587cf })
      .derive("m/44'/60'/0'").publicExtendedKey;
    expect(tpub.startsWith("tpub")).toBe(true);
    expectRefused(tpub, /mainnet/);
  });

  it.each([
    ["empty", ""],
    ["plain text", "not an xpub"],
    ["a hex string", "0x" + "ab".repeat(39)],
    ["a truncated key", accountXpub.slice(0, -1)],
    ["a key with one character changed", accountXpub.slice(0, 50) + (accountXpub[50] === "a" ? "b" : "a") + accountXpub.slice(51)],
    ["a padded key", ` ${accountXpub} `],
    ["a very long string", "x".repeat(10_000)],
  ])("refuses garbage: %s", (_name, xpub) => {
    expectRefused(xpub);
  });

  it.each(TEST_VECTOR_5)("refuses BIP32 test vector 5 key %#: %s (%s)", (xpub) => {
    expectRefused(xpub);
  });

  // Most vector 5 keys have depth 0, which the depth rule alone refuses; the same
  // faults on an otherwise valid account key show the key checks themselves work.
  it.each([
    ["private key under the xpub version", (b: Uint8Array) => b.set([0x00, ...account.privateKey!], 45), /private keys are refused/],
    ["pubkey prefix 04", (b: Uint8Array) => (b[45] = 0x04), /invalid public key/],
    ["pubkey prefix 01", (b: Uint8Array) => (b[45] = 0x01), /invalid public key/],
    ["point not on the curve", (b: Uint8Array) => b.set([0x02, ...new Uint8Array(31), 0x07], 45), /invalid public key/],
    ["unknown version", (b: Uint8Array) => b.set([0x01, 0x02, 0x03, 0x04], 0), /mainnet/],
  ])("refuses an account-depth key with a %s", (_name, corrupt, message) => {
    const base58check = createBase58check(sha256);
    const bytes = base58check.decode(accountXpub);
    corrupt(bytes);
    expectRefused(base58check.encode(bytes), message);
  });
});

describe("paths", () => {
  it("spell the account and address levels of BIP44 for Ethereum", () => {
    expect(accountPath(0)).toBe("m/44'/60'/0'");
    expect(accountPath(7)).toBe("m/44'/60'/7'");
    expect(derivationPath(0, 0)).toBe("m/44'/60'/0'/0/0");
    expect(derivationPath(1, 19)).toBe("m/44'/60'/1'/0/19");
    expect(derivationPath(2 ** 31 - 1, 2 ** 31 - 1)).toBe("m/44'/60'/2147483647'/0/2147483647");
  });
});

describe("tweakOutOfRange", () => {
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const bytes = (value: bigint) => Buffer.from(value.toString(16).padStart(64, "0"), "hex");

  it("refuses 0 and every value from the curve order n up, and accepts 1 to n - 1", () => {
    expect(tweakOutOfRange(bytes(0n))).toBe(true);
    expect(tweakOutOfRange(bytes(n))).toBe(true);
    expect(tweakOutOfRange(bytes(n + 1n))).toBe(true);
    expect(tweakOutOfRange(bytes(2n ** 256n - 1n))).toBe(true);
    expect(tweakOutOfRange(bytes(1n))).toBe(false);
    expect(tweakOutOfRange(bytes(n - 1n))).toBe(false);
    expect(tweakOutOfRange(bytes(2n ** 255n))).toBe(false);
    // A byte above n's with a lower one before it is still below n.
    expect(tweakOutOfRange(bytes(n - 2n ** 200n + 2n ** 100n))).toBe(false);
  });
});

describe("deriveAddress", () => {
  it("derives the well-known addresses of the development mnemonic, EIP-55 cased", () => {
    expect(deriveAddress(accountXpub, 0)).toEqual({
      address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      index: 0,
      derivationPath: "m/44'/60'/0'/0/0",
    });
    expect(deriveAddress(accountXpub, 1)).toEqual({
      address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      index: 1,
      derivationPath: "m/44'/60'/0'/0/1",
    });
  });

  it("agrees with the private derivation of the same path", () => {
    for (const index of [0, 2, 7, 19, 1000, 2 ** 31 - 1]) {
      const expected = independentAddress(master.derive(derivationPath(0, index)).publicKey!);
      expect(deriveAddress(accountXpub, index).address).toBe(expected);
    }
  });

  // Known values, computed from the mnemonic by private derivation (independentAddress):
  // account 0' gives Anvil's published accounts, so the oracle itself is checked.
  it.each([
    [0, 0, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"],
    [0, 2, "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"],
    [0, 19, "0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199"],
    [1, 0, "0x8C8d35429F74ec245F8Ef2f4Fd1e551cFF97d650"],
    [1, 1, "0x40FBBE484b8Ee6139Af08446950B088e10b2306A"],
    [1, 2, "0x2b382887D362cCae885a421C978c7e998D3c95a6"],
    [1, 19, "0xc4c855fa65a599ea3a89c6d5281D07B84c2Fc86B"],
    [1, 1000, "0x31DF5297Fc7cCdC9492d53519466279F7a6Fd9d4"],
    [7, 0, "0xAF4311d557fBC876059e39306ec1f3343753df29"],
    [7, 1, "0xd2378898c87F72dE22eb67673fD23889796C694E"],
    [7, 2, "0x40cba5b7A6dC4fd081e247A64029Cb6B63DFB595"],
    [7, 19, "0x5b36cd65745251Dd7C0024c6b154530bb5c006F8"],
    [7, 1000, "0x115e4093519d78f173A5d8dca43a4a6D97b0E6E9"],
  ])("derives account %i' address %i of the mnemonic with its true path", (n, index, address) => {
    const path = `m/44'/60'/${n}'/0/${index}`;
    expect(addressOfPath(path)).toBe(address);
    const xpub = master.derive(`m/44'/60'/${n}'`).publicExtendedKey;
    expect(deriveAddress(xpub, index)).toEqual({ address, index, derivationPath: path });
  });

  it("derives from an account xpub exactly the addresses of its private path, for any account", () => {
    for (const n of [1, 7, 44, 2 ** 31 - 1]) {
      const xpub = master.derive(accountPath(n)).publicExtendedKey;
      for (const index of [3, 20, 2 ** 31 - 1]) {
        const path = `m/44'/60'/${n}'/0/${index}`;
        expect(deriveAddress(xpub, index)).toEqual({ address: addressOfPath(path), index, derivationPath: path });
      }
    }
  });

  it("keeps each cached account's own path", () => {
    const one = master.derive("m/44'/60'/1'").publicExtendedKey;
    const seven = master.derive("m/44'/60'/7'").publicExtendedKey;
    // Alternating keys hit the cache of external-chain nodes: each keeps its account.
    for (let round = 0; round < 2; round++) {
      expect(deriveAddress(one, 5).derivationPath).toBe("m/44'/60'/1'/0/5");
      expect(deriveAddress(seven, 5).derivationPath).toBe("m/44'/60'/7'/0/5");
      expect(deriveAddress(accountXpub, 5).derivationPath).toBe("m/44'/60'/0'/0/5");
    }
  });

  it("agrees with @scure/bip32's public derivation for random keys and indexes", () => {
    for (let k = 0; k < 4; k++) {
      const accountN = Math.floor(Math.random() * 2 ** 31);
      const randomAccount = HDKey.fromMasterSeed(crypto.getRandomValues(new Uint8Array(32))).derive(accountPath(accountN));
      const external = HDKey.fromExtendedKey(randomAccount.publicExtendedKey).deriveChild(0);
      for (let n = 0; n < 50; n++) {
        const index = Math.floor(Math.random() * 2 ** 31);
        expect(deriveAddress(randomAccount.publicExtendedKey, index)).toEqual({
          address: independentAddress(external.deriveChild(index).publicKey!),
          index,
          derivationPath: `m/44'/60'/${accountN}'/0/${index}`,
        });
      }
    }
  });

  it("refuses indexes outside the non-hardened range", () => {
    for (const index of [-1, 2 ** 31, 1.5, Number.NaN]) expect(() => deriveAddress(accountXpub, index)).toThrow(/out of range/);
  });

  it("refuses to derive from an invalid key", () => {
    expect(() => deriveAddress(account.privateExtendedKey, 0)).toThrow(DomainError);
  });
});

describe("parseAccountXpub: reading the key", () => {
  const base58check = createBase58check(sha256);

  it("reads every field as serialized: the parsed key serializes back to the same xpub", () => {
    for (const n of [0, 7]) {
      const source = master.derive(accountPath(n));
      const node = parseAccountXpub(source.publicExtendedKey);
      expect(node.parentFingerprint).toBe(source.parentFingerprint);
      expect(node.publicExtendedKey).toBe(source.publicExtendedKey);
    }
  });

  it("refuses the xprv version even over a public key, as a private key", () => {
    const bytes = base58check.decode(accountXpub);
    new DataView(bytes.buffer, bytes.byteOffset).setUint32(0, 0x0488ade4, false);
    expectRefused(base58check.encode(bytes), /^xpub must be an extended public key: private keys are refused, never send one$/);
  });

  // Each refusal says what is wrong with the key, never quoting it.
  it.each([
    ["an empty string", "", "xpub is required"],
    ["no string at all", undefined, "xpub is required"],
    ["a number", 42, "xpub is required"],
    ["121 characters", "x".repeat(121), "xpub is not a BIP32 extended key (too long)"],
    ["10,000 characters", "x".repeat(10_000), "xpub is not a BIP32 extended key (too long)"],
    ["120 characters of base58", "x".repeat(120), "xpub is not a BIP32 extended key (bad base58 or checksum)"],
    ["characters outside base58", "0OIl" + accountXpub.slice(4), "xpub is not a BIP32 extended key (bad base58 or checksum)"],
    ["77 bytes", base58check.encode(base58check.decode(accountXpub).slice(0, 77)), "xpub is not a BIP32 extended key (wrong length)"],
    ["79 bytes", base58check.encode(new Uint8Array([...base58check.decode(accountXpub), 0])), "xpub is not a BIP32 extended key (wrong length)"],
  ])("refuses %s, saying why", (_name, xpub, message) => {
    let caught: unknown;
    try {
      parseAccountXpub(xpub as string);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect((caught as DomainError).reason).toBe(AllocationReason.WalletXpubInvalid);
    expect((caught as DomainError).message).toBe(message);
  });
});

describe("deriveAddress: the external-chain cache", () => {
  const base58check = createBase58check(sha256);
  let fresh = 0;
  /** A valid account xpub no test has used: the account key with another chain code. */
  function freshXpub(): string {
    const bytes = base58check.decode(accountXpub);
    new DataView(bytes.buffer, bytes.byteOffset).setUint32(13, 0x5eed0000 + ++fresh, false);
    return base58check.encode(bytes);
  }

  it("derives each key's external chain once while it is among the 1024 most recently used, and drops the least recently used", () => {
    const deriveChild = vi.spyOn(HDKey.prototype, "deriveChild");
    try {
      const keys = Array.from({ length: 1025 }, freshXpub);
      // 1024 keys fill the cache (whatever other tests left in it goes).
      for (const key of keys.slice(0, 1024)) deriveAddress(key, 0);
      expect(deriveChild).toHaveBeenCalledTimes(1024);
      // Using the first again makes it the most recently used; nothing is derived anew.
      const first = deriveAddress(keys[0]!, 1);
      expect(deriveChild).toHaveBeenCalledTimes(1024);
      // The 1025th drops the least recently used, the second key.
      deriveAddress(keys[1024]!, 0);
      expect(deriveChild).toHaveBeenCalledTimes(1025);
      expect(deriveAddress(keys[0]!, 1)).toEqual(first);
      for (const key of keys.slice(2)) deriveAddress(key, 2);
      expect(deriveChild).toHaveBeenCalledTimes(1025);
      deriveAddress(keys[1]!, 0);
      expect(deriveChild).toHaveBeenCalledTimes(1026);
    } finally {
      deriveChild.mockRestore();
    }
  });

  it("hands libsecp256k1 the parent point uncompressed and takes the child uncompressed: no square root per address", () => {
    const tweakAdd = vi.spyOn(libsecp256k1, "publicKeyTweakAdd");
    try {
      expect(deriveAddress(accountXpub, 1).address).toBe("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
      expect(tweakAdd).toHaveBeenCalledTimes(1);
      const [point, tweak, compressed] = tweakAdd.mock.calls[0]!;
      expect([point.length, point[0], tweak.length, compressed]).toEqual([65, 0x04, 32, false]);
      expect(tweakAdd.mock.results[0]!.value).toHaveLength(65);
    } finally {
      tweakAdd.mockRestore();
    }
  });

  it("refuses an index whose child is the point at infinity rather than skip it, so every recorded path stays true", () => {
    const xpub = freshXpub();
    const tweakAdd = vi.spyOn(libsecp256k1, "publicKeyTweakAdd").mockImplementationOnce(() => {
      throw new Error("tweak out of range");
    });
    try {
      expect(() => deriveAddress(xpub, 5)).toThrow(new Error("address index 5 is not derivable"));
      expect(deriveAddress(xpub, 5).derivationPath).toBe("m/44'/60'/0'/0/5");
    } finally {
      tweakAdd.mockRestore();
    }
  });

  it.each([
    ["another index", { index: 1 }],
    ["no public key", { publicKey: null }],
    ["no chain code", { chainCode: null }],
  ])("refuses, and does not keep, an external chain node with %s", (_name, patch) => {
    const xpub = freshXpub();
    const real = HDKey.prototype.deriveChild;
    const deriveChild = vi.spyOn(HDKey.prototype, "deriveChild").mockImplementationOnce(function (this: HDKey, index: number) {
      const node = real.call(this, index);
      // What externalChain reads of the node, one part of it wrong.
      return { index: node.index, publicKey: node.publicKey, chainCode: node.chainCode, ...patch } as unknown as HDKey;
    });
    try {
      expect(() => deriveAddress(xpub, 0)).toThrow(new Error("the external chain of this xpub is not derivable"));
      expect(deriveAddress(xpub, 0).derivationPath).toBe("m/44'/60'/0'/0/0");
    } finally {
      deriveChild.mockRestore();
    }
  });
});
