import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { getTextEncoding } from "@bufbuild/protobuf/wire";
import { describe, expect, it } from "vitest";
import { payinsV1 } from "./index.js";
import { encodeUtf8 } from "./text-encoding.js";

const reference = new TextEncoder();

describe("encodeUtf8", () => {
  const samples = [
    "",
    "a",
    "0190f7a2-3b4c-7d8e-9f00-112233445566",
    "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    "\u0000\u0001\t\n\u007f",
    "x".repeat(256),
    "x".repeat(257),
    "é",
    "\u0080",
    "Zürich – 東京 🚀",
    "ascii then é",
    "\ud83d", // a lone high surrogate: U+FFFD, as TextEncoder gives it
    "\udc00x",
    "y".repeat(255) + "é",
    "🚀".repeat(200),
  ];
  it.each(samples.map((s) => [s]))("gives TextEncoder's bytes for %j", (text) => {
    expect(Array.from(encodeUtf8(text))).toEqual(Array.from(reference.encode(text)));
  });

  it("gives TextEncoder's bytes for every UTF-16 code unit, alone and after ASCII", () => {
    for (let code = 0; code <= 0xffff; code += 1) {
      const text = String.fromCharCode(code);
      expect(Array.from(encodeUtf8(text))).toEqual(Array.from(reference.encode(text)));
      expect(Array.from(encodeUtf8(`ab${text}`))).toEqual(Array.from(reference.encode(`ab${text}`)));
    }
  });
});

describe("the contracts' string encoding", () => {
  it("is encodeUtf8 once @payin/proto is loaded, and messages round-trip", () => {
    expect(getTextEncoding().encodeUtf8).toBe(encodeUtf8);
    const message = create(payinsV1.CreatePayInIntentRequestSchema, {
      merchantUuid: "0190f7a2-3b4c-7d8e-9f00-112233445566",
      idempotencyKey: "clé-東京-🚀",
      asset: "usdt",
      amount: "12.50",
      jurisdiction: "DE",
      reference: "r".repeat(300),
    });
    const decoded = fromBinary(payinsV1.CreatePayInIntentRequestSchema, toBinary(payinsV1.CreatePayInIntentRequestSchema, message));
    expect(decoded.idempotencyKey).toBe("clé-東京-🚀");
    expect(decoded.reference).toBe("r".repeat(300));
    expect(decoded.merchantUuid).toBe(message.merchantUuid);
  });
});
