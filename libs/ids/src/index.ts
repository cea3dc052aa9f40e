import { randomFillSync } from "node:crypto";

let lastMs = 0;
let sequence = 0;

/** Random bytes are drawn from the system CSPRNG 4 KiB at a time (one call per 256 ids, not one per id). */
const RANDOM_POOL_SIZE = 4096;
const randomPool = Buffer.allocUnsafe(RANDOM_POOL_SIZE);
let randomOffset = RANDOM_POOL_SIZE;

/** Copies `length` fresh random bytes into `target` at `at`; no byte is handed out twice. */
function fillRandom(target: Buffer, at: number, length: number): void {
  if (randomOffset + length > RANDOM_POOL_SIZE) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  randomPool.copy(target, at, randomOffset, randomOffset + length);
  randomOffset += length;
}

/**
 * A UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then random bits. Within one
 * millisecond a 12-bit counter in `rand_a` keeps ids from this process ordered.
 */
export function uuidv7(): string {
  const bytes = Buffer.allocUnsafe(16);
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    fillRandom(bytes, 6, 2);
    sequence = bytes.readUInt16BE(6) & 0x3ff;
  } else {
    sequence = (sequence + 1) & 0xfff;
    if (sequence === 0) lastMs += 1; // counter wrapped: borrow the next millisecond
  }
  fillRandom(bytes, 8, 8);
  // 48 bits of milliseconds, big-endian (exact in a double: below 2^53).
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | ((sequence >> 8) & 0x0f);
  bytes[7] = sequence & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * True for a canonical lower-case UUID string of any version: what services
 * store and compare, so an upper-case one names nothing there.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A UUID in any letter case (RFC 9562 makes them the same): what an HTTP edge accepts before lower-casing. */
export const UUID_ANY_CASE_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a UUID in any letter case; a gateway lower-cases it before a service sees it (see isUuid). */
export function isUuidAnyCase(value: string | null | undefined): value is string {
  return typeof value === "string" && UUID_ANY_CASE_PATTERN.test(value);
}

/**
 * Email shape the platform accepts: a dot-atom local part (RFC 5322: no
 * leading, trailing or consecutive dots) of at most 64 characters, a dotted
 * domain of labels of at most 63, at most 254 in all. Every address it accepts
 * is also a JSON Schema `format: email` (what validating clients of the OpenAPI
 * document check, e.g. ajv-formats), which the WHATWG `type=email` shape
 * (dots anywhere in the local part) is not.
 */
const EMAIL =
  /^(?=[^@]{1,64}@)[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
export const EMAIL_MAX_LENGTH = 254;

/** True when `value` is an email address the platform accepts (any letter case). */
export function isEmailAddress(value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && EMAIL.test(value);
}
