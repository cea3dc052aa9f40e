import { describe, expect, it } from "vitest";
import { secp256k1 } from "@noble/curves/secp256k1";
import { keccak_256 } from "@noble/hashes/sha3";
import { addressFromPublicKey, toChecksumAddress } from "./eip55.js";

describe("toChecksumAddress", () => {
  // The examples of EIP-55 itself.
  it.each([
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
    "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
    "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
    "0x52908400098527886E0F7030069857D2E4169EE7",
    "0xde709f2102306220921060314715629080e2fb77",
  ])("cases %s", (address) => {
    expect(toChecksumAddress(address.toLowerCase())).toBe(address);
    expect(toChecksumAddress(address.slice(2).toUpperCase())).toBe(address);
  });

  it("refuses anything but 40 hex digits", () => {
    expect(() => toChecksumAddress("0x1234")).toThrow();
    expect(() => toChecksumAddress("0x" + "g".repeat(40))).toThrow();
  });

  const digits = "5aaeb6053f3e94c9b9a09f33669435e7ef1beaed";
  it.each([
    ["39 digits", digits.slice(1)],
    ["41 digits", digits + "0"],
    ["41 digits after 0x", "0x" + digits + "0"],
    ["a letter before the digits", "g" + digits],
    ["a letter after the digits", digits + "g"],
    ["0x not at the start", digits.slice(0, 10) + "0x" + digits.slice(10)],
    ["0x twice", "0x0x" + digits],
    ["spaces around", ` ${digits} `],
  ])("refuses %s", (_name, input) => {
    expect(() => toChecksumAddress(input)).toThrow(new Error("an address is 40 hex digits"));
  });

  it("takes 0x and 0X as the prefix", () => {
    expect(toChecksumAddress("0X" + digits)).toBe("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed");
  });
});

describe("addressFromPublicKey: encodings", () => {
  const point = secp256k1.ProjectivePoint.fromPrivateKey(7n);
  const expected = addressFromPublicKey(point.toRawBytes(false));

  it("gives the same address from the compressed and uncompressed forms", () => {
    expect(addressFromPublicKey(point.toRawBytes(true))).toBe(expected);
    expect(expected).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  // An uncompressed key is taken as is, without parsing: the address is keccak256
  // of its 64 coordinate bytes, whatever they are (the caller vouches for them).
  it("hashes an uncompressed key's coordinate bytes as they are", () => {
    const key = new Uint8Array(65).fill(0x01);
    key[0] = 0x04;
    const lower = Buffer.from(keccak_256(key.subarray(1))).toString("hex").slice(24);
    expect(addressFromPublicKey(key).toLowerCase()).toBe("0x" + lower);
  });

  it.each([
    ["65 bytes under a compressed prefix", () => new Uint8Array([0x02, ...point.toRawBytes(false).subarray(1)])],
    ["33 bytes under the uncompressed prefix", () => new Uint8Array([0x04, ...point.toRawBytes(true).subarray(1)])],
    ["64 bytes without a prefix", () => point.toRawBytes(false).subarray(1)],
    ["a compressed point not on the curve", () => new Uint8Array([0x02, ...new Uint8Array(31), 0x07])],
  ])("refuses %s", (_name, key) => {
    expect(() => addressFromPublicKey(key())).toThrow();
  });
});

describe("addressFromPublicKey", () => {
  it("gives the address of private key 1 from either encoding", () => {
    const point = secp256k1.ProjectivePoint.BASE;
    const expected = "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf";
    expect(addressFromPublicKey(point.toRawBytes(true))).toBe(expected);
    expect(addressFromPublicKey(point.toRawBytes(false))).toBe(expected);
  });
});
