/**
 * A receiving wallet decides where a merchant's money goes: allocation checks
 * the person setting it itself, from identity's assertion, over its real server
 * and whoever calls — a gateway's or the operator CLI's credential alone sets
 * nothing.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { database, migrate, openOrm, type MikroORM } from "@payin/db";
import { createLogger } from "@payin/logging";
import { allocationV1 } from "@payin/proto";
import { Code, createServiceClient, domainErrorInterceptor, reasonOf } from "@payin/rpc";
import { createTestDatabase, failure, randomXpub, startTestServiceServer, testAssertions, type TestServiceServer } from "@payin/testing";
import { CALLERS } from "../src/rpc/callers.js";
import { reasonCodes } from "../src/rpc/reason-codes.js";
import { createAllocationService, SERVICE_NAMES } from "../src/service.js";
import { ormOptions } from "../src/store/orm.js";

const ASSERTIONS = testAssertions();
const NOW_PLUS = (ms: number) => Date.now() + ms;

let orm: MikroORM;
let service: TestServiceServer;
const client = (caller: string) => createServiceClient(allocationV1.AllocationService, { baseUrl: service.url, serviceToken: service.credential(caller) });

beforeAll(async () => {
  const url = await createTestDatabase("allocation_wallet_setter");
  await migrate(ormOptions(url));
  orm = await openOrm(ormOptions(url, 5));
  const logger = createLogger("allocation", { level: "silent" });
  // Setting a wallet never asks merchants (the caller checked the merchant); readiness is not used here.
  const merchants = { readinessInputs: async () => null };
  service = await startTestServiceServer({
    name: "allocation",
    services: SERVICE_NAMES,
    routes: createAllocationService({ db: database(orm), logger, merchants, assertionKey: ASSERTIONS.verifyingKey }),
    allow: CALLERS,
    interceptors: [domainErrorInterceptor("allocation", reasonCodes, logger)],
  });
});
afterAll(async () => {
  await service?.close();
  await orm?.close();
});

async function expectRefused(call: Promise<unknown>, reason: string) {
  const error = await failure(call);
  expect({ code: error.code, reason: reasonOf(error) }).toEqual({ code: Code.PermissionDenied, reason });
}

async function hasWallet(merchantUuid: string): Promise<boolean> {
  return client("test")
    .getWallet({ merchantUuid })
    .then(
      () => true,
      () => false,
    );
}

describe("setting a receiving wallet", () => {
  it("is refused to the gateway's and the operator CLI's credentials without a person, and sets nothing", async () => {
    const merchantUuid = randomUUID();
    for (const caller of ["api", "payinctl"]) await expectRefused(client(caller).setWallet({ merchantUuid, xpub: randomXpub() }), "FORBIDDEN");
    expect(await hasWallet(merchantUuid)).toBe(false);
  });

  it("is refused for a person without the permission, without a recent second factor, or vouched for by another key", async () => {
    const merchantUuid = randomUUID();
    const person = randomUUID();
    const sign = (permissions: string[], mfaRecentUntil: number | null, key = ASSERTIONS) =>
      key.sign({ kind: "identity", uuid: person, permissions, mfaRecentUntil, expiresAt: NOW_PLUS(60_000) });
    await expectRefused(client("api").setWallet({ merchantUuid, xpub: randomXpub(), actorAssertion: sign(["merchant.manage"], NOW_PLUS(60_000)) }), "FORBIDDEN");
    await expectRefused(client("api").setWallet({ merchantUuid, xpub: randomXpub(), actorAssertion: sign(["provider.manage"], null) }), "MFA_REQUIRED");
    await expectRefused(client("payinctl").setWallet({ merchantUuid, xpub: randomXpub(), actorAssertion: sign(["provider.manage"], Date.now() - 1) }), "MFA_REQUIRED");
    await expectRefused(client("api").setWallet({ merchantUuid, xpub: randomXpub(), actorAssertion: sign(["provider.manage"], NOW_PLUS(60_000), testAssertions(randomBytes(32))) }), "FORBIDDEN");
    const machine = ASSERTIONS.sign({ kind: "machine_credential", uuid: randomUUID(), permissions: ["provider.manage"], mfaRecentUntil: null, expiresAt: NOW_PLUS(60_000) });
    await expectRefused(client("api").setWallet({ merchantUuid, xpub: randomXpub(), actorAssertion: machine }), "FORBIDDEN");
    expect(await hasWallet(merchantUuid)).toBe(false);
  });

  it("is done for a person identity vouches for, with the permission and a recent second factor, from the gateway or the CLI", async () => {
    for (const caller of ["api", "payinctl"]) {
      const merchantUuid = randomUUID();
      const actorAssertion = ASSERTIONS.identity(randomUUID(), { permissions: ["provider.manage"] });
      const { wallet } = await client(caller).setWallet({ merchantUuid, xpub: randomXpub(), actorAssertion });
      expect(wallet?.merchantUuid).toBe(merchantUuid);
    }
  });
});
