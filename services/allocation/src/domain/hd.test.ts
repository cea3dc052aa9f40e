import { describe, expect, it } from "vitest";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { sha256 } from "@noble/hashes/sha2";
import { createBase58check } from "@scure/base";
import { DomainError } from "@payin/errors";
import { addressFromPublicKey } from "./eip55.js";
import { ACCOUNT_PATH, deriveAddress, derivationPath, parseAccountXpub, tweakOutOfRange } from "./hd.js";
import { AllocationReason } from "./reasons.js";

// The well-known development mnemonic (Hardhat, Anvil): its first accounts are public.
const MNEMONIC = "test test test test test test test test test test test junk";
const master = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));
const account = master.derive("m/44'/60'/0'");
const accountXpub = account.publicExtendedKey;

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
  });

  it("refuses the account's xprv, and never repeats it", () => {
    expectRefused(account.privateExtendedKey, /private keys are refused/);
    expectRefused(master.privateExtendedKey, /private keys are refused/);
  });

  it("refuses keys of the wrong depth", () => {
    expectRefused(master.publicExtendedKey, /depth 3\), got depth 0/);
    expectRefused(master.derive("m/44'/60'/0'/0").publicExtendedKey, /got depth 4/);
    expectRefused(master.derive("m/44'/60'").publicExtendedKey, /got depth 2/);
  });

  it("refuses another account than 0'", () => {
    expectRefused(master.derive("m/44'/60'/1'").publicExtendedKey, /account 0'/);
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
      const expected = addressFromPublicKey(master.derive(derivationPath(index)).publicKey!);
      expect(deriveAddress(accountXpub, index).address).toBe(expected);
    }
  });

  it("agrees with @scure/bip32's public derivation for random keys and indexes", () => {
    for (let k = 0; k < 4; k++) {
      const randomAccount = HDKey.fromMasterSeed(crypto.getRandomValues(new Uint8Array(32))).derive(ACCOUNT_PATH);
      const external = HDKey.fromExtendedKey(randomAccount.publicExtendedKey).deriveChild(0);
      for (let n = 0; n < 50; n++) {
        const index = Math.floor(Math.random() * 2 ** 31);
        expect(deriveAddress(randomAccount.publicExtendedKey, index).address).toBe(addressFromPublicKey(external.deriveChild(index).publicKey!));
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
