/**
 * The signing secrets of an endpoint, opened for a delivery: what the notifier
 * signs with (Standard Webhooks: one signature per secret).
 */
import type { Queryable } from "@payin/db";
import { signingSecrets } from "../domain/secrets.js";
import { EndpointRepository } from "./endpoint-repository.js";

/**
 * The `whsec_…` secrets a delivery to `endpointUuid` is signed with at `now`:
 * the endpoint's secret, then (during a rotation's grace period) the previous
 * one. Null when the endpoint no longer exists. `sealingKey` is
 * WEBHOOK_SECRET_KEY; a secret sealed under another key, or moved to another
 * row, throws.
 */
export async function endpointSigningSecrets(db: Queryable, sealingKey: Buffer, endpointUuid: string, now: Date): Promise<string[] | null> {
  const sealed = await new EndpointRepository(db).sealedSecrets(endpointUuid);
  return sealed ? signingSecrets(sealingKey, endpointUuid, sealed, now) : null;
}
