import type { Client } from "@connectrpc/connect";
import { database, migrate, openOrm } from "@payin/db";
import { createLogger } from "@payin/logging";
import { createServiceClient, domainErrorInterceptor } from "@payin/rpc";
import type { Logger } from "@payin/logging";
import { merchantsV1 } from "@payin/proto";
import { createTestDatabase, startServiceHarness, startTestServiceServer, testAssertions, type ServiceHarness } from "@payin/testing";
import { CALLERS } from "../src/rpc/callers.js";
import { reasonCodes } from "../src/rpc/reason-codes.js";
import { createMerchantsService, SERVICE_NAMES } from "../src/service.js";
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

/** The merchants service on its real RPC server (the platform's callers and their allowlist), on a fresh database. */
export interface MerchantsServer {
  /** A client with `caller`'s credential, sending `requestId` as x-request-id when given. */
  client(caller: string, requestId?: string): MerchantsClient;
  close(): Promise<void>;
}

/** Starts MerchantsServer, whose assertions are ASSERTIONS'. */
export async function startMerchantsServer(name: string): Promise<MerchantsServer> {
  const url = await createTestDatabase(name);
  await migrate(ormOptions(url));
  const orm = await openOrm(ormOptions(url, 5));
  const interceptors = [domainErrorInterceptor("merchants", reasonCodes, createLogger("merchants", { level: "silent" }))];
  const server = await startTestServiceServer({
    name: "merchants",
    services: SERVICE_NAMES,
    routes: createMerchantsService({ db: database(orm), assertionKey: ASSERTIONS.verifyingKey }),
    allow: CALLERS,
    interceptors,
  });
  return {
    client: (caller, requestId) =>
      createServiceClient(merchantsV1.MerchantsService, {
        baseUrl: server.url,
        serviceToken: server.credential(caller),
        interceptors: requestId ? [(next) => (req) => (req.header.set("x-request-id", requestId), next(req))] : [],
      }),
    close: async () => {
      await server.close();
      await orm.close();
    },
  };
}
