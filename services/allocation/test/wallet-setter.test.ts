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
const client = (caller: string, headers: Record<string, string> = {}) =>
  createServiceClient(allocationV1.AllocationService, {
    baseUrl: service.url,
    serviceToken: service.credential(caller),
    interceptors: [(next) => (req) => (Object.entries(headers).forEach(([name, value]) => req.header.set(name, value)), next(req))],
  });

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

  it("is done for a person identity vouches for, with the permission and a recent second factor, from the gateway or the CLI; its record names them", async () => {
    for (const caller of ["api", "payinctl"]) {
      const merchantUuid = randomUUID();
      const person = randomUUID();
      const actorAssertion = ASSERTIONS.identity(person, { permissions: ["provider.manage"] });
      const { wallet } = await client(caller, { "x-operator-os-user": "ops" }).setWallet({ merchantUuid, xpub: randomXpub(), actorAssertion });
      expect(wallet?.merchantUuid).toBe(merchantUuid);
      // Its audit record waits in the outbox, written with the change, for the relay to take to merchants' log.
      expect(await outboxOf(merchantUuid)).toEqual([
        { action: "wallet.set", actor_kind: "identity", actor_uuid: person, actor_os_user: caller === "payinctl" ? "ops" : null, target_type: "merchant" },
      ]);
    }
  });

  it("keeps no wallet whose record could not be written: the change and its record are one transaction", async () => {
    const em = orm.em.fork();
    await em.execute(`create function fail_outbox() returns trigger language plpgsql as $$ begin raise exception 'outbox down'; end $$`);
    await em.execute(`create trigger fail_outbox before insert on audit_outbox for each row execute function fail_outbox()`);
    const merchantUuid = randomUUID();
    try {
      const error = await failure(client("api").setWallet({ merchantUuid, xpub: randomXpub(), actorAssertion: ASSERTIONS.identity(randomUUID(), { permissions: ["provider.manage"] }) }));
      expect(error.code).toBe(Code.Internal);
    } finally {
      await em.execute(`drop trigger fail_outbox on audit_outbox`);
    }
    expect(await hasWallet(merchantUuid)).toBe(false);
    expect(await outboxOf(merchantUuid)).toEqual([]);
  });
});

describe("resuming a rail", () => {
  it("is recorded with the change: the operator CLI and its OS user, or the person it signed in as", async () => {
    await client("payinctl", { "x-operator-os-user": "ops" }).resumeRail({ rail: "bep20" });
    const person = randomUUID();
    await client("payinctl", { "x-operator-os-user": "ops" }).resumeRail({ rail: "erc20", actorAssertion: ASSERTIONS.identity(person) });
    const rows = await orm.em.fork().execute(`select actor_kind, actor_uuid, actor_os_user from audit_outbox where action = 'rail.resume' order by occurred_at, event_uuid`);
    expect(rows).toEqual([
      { actor_kind: "operator_cli", actor_uuid: null, actor_os_user: "ops" },
      { actor_kind: "identity", actor_uuid: person, actor_os_user: "ops" },
    ]);
    // A malformed OS user from the CLI, or an assertion another key signed, changes nothing.
    expect((await failure(client("payinctl", { "x-operator-os-user": "a b" }).resumeRail({ rail: "bep20" }))).code).toBe(Code.InvalidArgument);
    await expectRefused(client("payinctl", { "x-operator-os-user": "ops" }).resumeRail({ rail: "bep20", actorAssertion: testAssertions(randomBytes(32)).identity(person) }), "FORBIDDEN");
    expect((await orm.em.fork().execute(`select count(*)::int as n from audit_outbox where action = 'rail.resume'`))[0]).toEqual({ n: 2 });
  });
});

/** The outbox records of a merchant's wallet. */
async function outboxOf(merchantUuid: string) {
  return orm.em
    .fork()
    .execute(`select action, actor_kind, actor_uuid, actor_os_user, target_type from audit_outbox where target_uuid = ? order by occurred_at`, [merchantUuid]);
}
