import type { Client } from "@connectrpc/connect";
import { database } from "@payin/db";
import type { Logger } from "@payin/logging";
import { merchantsV1 } from "@payin/proto";
import { startServiceHarness, testAssertions, type ServiceHarness } from "@payin/testing";
import { reasonCodes } from "../src/rpc/reason-codes.js";
import { createMerchantsService } from "../src/service.js";
import { ormOptions } from "../src/store/orm.js";

export type MerchantsClient = Client<typeof merchantsV1.MerchantsService>;

export type Harness = ServiceHarness<typeof merchantsV1.MerchantsService>;

/**
 * The merchants service over an in-memory transport, on a fresh database of the
 * run's PostgreSQL with every migration applied.
 */
export function startMerchants(options: { logger?: Logger } = {}): Promise<Harness> {
  return startServiceHarness({
    service: merchantsV1.MerchantsService,
    domain: "merchants",
    ormOptions,
    routes: (orm) => createMerchantsService({ db: database(orm), assertionKey: ASSERTIONS.verifyingKey }),
    reasonCodes,
    logger: options.logger,
  });
}

/** What the harness's merchants service takes as identity's assertions. */
export const ASSERTIONS = testAssertions();

/** The Actor of a change made by the person `uuid`: identity's assertion for them (the service stamps the rest). */
export function identityActor(uuid: string): { assertion: string } {
  return { assertion: ASSERTIONS.identity(uuid) };
}

/** Creates an active merchant and returns its uuid. */
export async function activeMerchant(client: MerchantsClient, displayName = "Merchant"): Promise<string> {
  const { merchant } = await client.createMerchant({ displayName });
  await client.transitionMerchant({ uuid: merchant!.uuid, transition: merchantsV1.MerchantTransition.ACTIVATE });
  return merchant!.uuid;
}

/** Creates a closed merchant and returns its uuid. */
export async function closedMerchant(client: MerchantsClient, displayName = "Closed"): Promise<string> {
  const { merchant } = await client.createMerchant({ displayName });
  await client.transitionMerchant({ uuid: merchant!.uuid, transition: merchantsV1.MerchantTransition.CLOSE });
  return merchant!.uuid;
}

/** A well-formed uuid that names nothing. */
export const UNKNOWN_UUID = "01a1fe6a-0000-7000-8000-000000000000";
