import { configureTextEncoding, getTextEncoding } from "@bufbuild/protobuf/wire";

/** Longest string encoded by the loop below; longer ones go to TextEncoder. */
const SHORT = 256;

const encoder = new TextEncoder();

/**
 * UTF-8 bytes of `text`, exactly as `TextEncoder.encode` gives them. Protobuf
 * strings on the platform's hot paths are short and ASCII (uuids, addresses,
 * amounts, codes); on Node 20 `TextEncoder.encode` costs ~400 ns for each such
 * string (a call into C++ and a fresh ArrayBuffer) against ~65 ns for this
 * loop, which was 5–8% of payins' time answering lists. Anything longer or
 * not ASCII goes to TextEncoder.
 */
export function encodeUtf8(text: string): Uint8Array<ArrayBuffer> {
  const length = text.length;
  if (length > SHORT) return encoder.encode(text);
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return encoder.encode(text);
    bytes[i] = code;
  }
  return bytes;
}

/**
 * Makes protobuf-es (every message the process encodes, Connect's included)
 * use encodeUtf8; decoding and UTF-8 checks stay protobuf-es's own.
 */
export function installTextEncoding(): void {
  const own = getTextEncoding();
  if (own.encodeUtf8 === encodeUtf8) return;
  configureTextEncoding({ encodeUtf8, decodeUtf8: own.decodeUtf8, checkUtf8: own.checkUtf8 });
}
