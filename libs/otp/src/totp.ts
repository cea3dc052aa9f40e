import { createHmac } from "node:crypto";

/**
 * TOTP (RFC 6238 over RFC 4226 HOTP) as authenticator apps compute it:
 * HMAC-SHA-1, 30-second steps from the Unix epoch, 6 digits.
 */
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;

/** HOTP value of `secret` at `counter` with `digits` digits (RFC 4226 §5.3). */
export function hotp(secret: Uint8Array, counter: number, digits: number = TOTP_DIGITS): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac("sha1", secret).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/** The TOTP time step that `at` falls in. */
export function totpStep(at: Date): number {
  return Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS);
}

/** The TOTP code of `secret` at time `at`. */
export function totpCode(secret: Uint8Array, at: Date, digits: number = TOTP_DIGITS): string {
  return hotp(secret, totpStep(at), digits);
}
