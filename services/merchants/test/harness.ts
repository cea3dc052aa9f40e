import { createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { migrate, openOrm, type MikroORM } from "@payin/db";
import { createLogger, type Logger } from "@payin/logging";
import { merchantsV1 } from "@payin/proto";
import { ConnectError, domainErrorInterceptor, reasonOf, type Code } from "@payin/rpc";
import { createTestDatabase } from "@payin/testing";
import { expect } from "vitest";
import { routes } from "../src/routes.js";
import { reasonCodes } from "../src/rpc/reason-codes.js";
import { ormOptions } from "../src/store/orm.js";

export type MerchantsClient = Client<typeof merchantsV1.MerchantsService>;

export interface Harness {
  client: MerchantsClient;
  orm: MikroORM;
  close(): Promise<void>;
}

/**
 * The merchants service over an in-memory transport, on a fresh database of the
 * run's PostgreSQL with every migration applied.
 */
export async function startMerchants(options: { logger?: Logger } = {}): Promise<Harness> {
  const url = await createTestDatabase("merchants");
  await migrate(ormOptions(url));
  const orm = await openOrm(ormOptions(url, 25));
  const logger = options.logger ?? createLogger("test", { level: "silent" });
  const transport = createRouterTransport(routes(orm), {
    router: { interceptors: [domainErrorInterceptor("merchants", reasonCodes, logger)] },
  });
  return { client: createClient(merchantsV1.MerchantsService, transport), orm, close: () => orm.close() };
}

/** The ConnectError a call fails with (the test fails if it succeeds). */
export async function failure(promise: Promise<unknown>): Promise<ConnectError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectError);
  return error as ConnectError;
}

/** Asserts a call fails with this status code and reason. */
export async function expectFailure(promise: Promise<unknown>, code: Code, reason: string): Promise<ConnectError> {
  const error = await failure(promise);
  expect({ code: error.code, reason: reasonOf(error) }).toEqual({ code, reason });
  return error;
}

/** An identity actor with a fresh uuid, for audited calls. */
export function identityActor(uuid: string, requestId = "req-test"): { kind: string; uuid: string; requestId: string } {
  return { kind: "identity", uuid, requestId };
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
