/** One-time passwords: RFC 4648 base32 secrets and RFC 6238 TOTP codes. */
export { base32Decode, base32Encode } from "./base32.js";
export { hotp, TOTP_DIGITS, TOTP_PERIOD_SECONDS, totpCode, totpStep } from "./totp.js";
