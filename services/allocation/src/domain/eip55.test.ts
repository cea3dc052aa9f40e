import { describe, expect, it } from "vitest";
import { secp256k1 } from "@noble/curves/secp256k1";
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
});

describe("addressFromPublicKey", () => {
  it("gives the address of private key 1 from either encoding", () => {
    const point = secp256k1.ProjectivePoint.BASE;
    const expected = "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf";
    expect(addressFromPublicKey(point.toRawBytes(true))).toBe(expected);
    expect(addressFromPublicKey(point.toRawBytes(false))).toBe(expected);
  });
});
