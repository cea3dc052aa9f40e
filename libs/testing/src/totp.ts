import { TOTP_PERIOD_SECONDS, totpCodeOfStep } from "@payin/otp";

const PERIOD_MS = TOTP_PERIOD_SECONDS * 1000;

/** The base32 secret of an otpauth:// URI. */
export function totpSecretOf(otpauthUri: string): string {
  const secret = new URL(otpauthUri).searchParams.get("secret");
  if (!secret) throw new Error("otpauth URI without a secret");
  return secret;
}

/** The TOTP step (RFC 6238, 30 s from the Unix epoch) of an instant. */
export function totpStepAt(ms = Date.now()): number {
  return Math.floor(ms / PERIOD_MS);
}

/** The 6-digit TOTP code of a base32 secret for a step (the current one by default). */
export function totpCodeAt(base32Secret: string, step = totpStepAt()): string {
  return totpCodeOfStep(base32Secret, step);
}

/** Waits until at least `marginMs` remain in the current TOTP step; returns that step. */
export async function awaitFreshTotpStep(marginMs = 8_000): Promise<number> {
  const left = PERIOD_MS - (Date.now() % PERIOD_MS);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 250));
  return totpStepAt();
}
