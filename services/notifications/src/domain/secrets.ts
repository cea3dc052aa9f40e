import { randomBytes } from "node:crypto";
import { open, seal } from "@payin/sealing";
import type { SealedSecrets } from "./model.js";

/** What a Standard Webhooks secret starts with. */
export const SECRET_PREFIX = "whsec_";
/** Random bytes of a signing key (Standard Webhooks allows 24 to 64). */
export const SIGNING_KEY_BYTES = 32;
/** How long a rotated-out secret keeps signing when the caller names no grace period. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 24 * 3600;
/** The longest grace period a rotation may give the previous secret. */
export const MAX_ROTATION_GRACE_SECONDS = 7 * 24 * 3600;

/** A new signing key: random bytes, kept sealed, shown once as `whsec_<base64>`. */
export function newSigningKey(): Buffer {
  return randomBytes(SIGNING_KEY_BYTES);
}

/** The secret as a merchant sees it (and a Standard Webhooks library takes it): `whsec_` + base64 of the key. */
export function secretText(key: Buffer): string {
  return `${SECRET_PREFIX}${key.toString("base64")}`;
}

/** The additional data a sealed secret is bound to: its endpoint's row. */
function context(endpointUuid: string): string {
  return `payin webhook endpoint secret ${endpointUuid}`;
}

/** Seals an endpoint's signing key under the service's key (WEBHOOK_SECRET_KEY). */
export function sealSigningKey(sealingKey: Buffer, endpointUuid: string, key: Buffer): Buffer {
  return seal(sealingKey, key, context(endpointUuid));
}

/** Opens a key sealSigningKey sealed; throws when the value or the key is not the one it was sealed with. */
export function openSigningKey(sealingKey: Buffer, endpointUuid: string, sealed: Buffer): Buffer {
  return open(sealingKey, sealed, context(endpointUuid));
}

/**
 * The secrets an endpoint's deliveries are signed with at `now`, as
 * `whsec_…` texts: its secret, and during a rotation's grace period the
 * previous one after it (Standard Webhooks: one signature per secret).
 */
export function signingSecrets(sealingKey: Buffer, endpointUuid: string, sealed: SealedSecrets, now: Date): string[] {
  const secrets = [secretText(openSigningKey(sealingKey, endpointUuid, sealed.secretSealed))];
  if (sealed.previousSecretSealed && sealed.previousSecretExpiresAt && sealed.previousSecretExpiresAt.getTime() > now.getTime()) {
    secrets.push(secretText(openSigningKey(sealingKey, endpointUuid, sealed.previousSecretSealed)));
  }
  return secrets;
}
