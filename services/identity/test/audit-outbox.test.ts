import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { assertionSigningKey } from "@payin/config";
import { uuidv7 } from "@payin/ids";
import { createLogger } from "@payin/logging";
import { identityV1 } from "@payin/proto";
import { actAsCaller, Code, domainErrorInterceptor } from "@payin/rpc";
import { expectFailure } from "@payin/testing";
import { reasonCodes } from "../src/rpc/reason-codes.js";
import { createIdentityService } from "../src/service.js";
import { caller, createPerson, randomEmail, signIn, startHarness, useAdmin, useHarness, type Harness } from "./support.js";

// Every administrative change of identity writes its audit record to the outbox
// in its own transaction: one row per change, naming who acted as identity
// knows it, and no change stands without its row.
const h = useHarness();
const admin = useAdmin(h);

interface Row {
  actor_kind: string;
  actor_uuid: string | null;
  actor_os_user: string | null;
  request_id: string | null;
  action: string;
  target_type: string;
  target_uuid: string | null;
  outcome: string;
  error_code: string | null;
}

/** The outbox rows written since `mark` (an event uuid; UUIDv7s sort by time), oldest first. */
async function rowsAfter(mark: string): Promise<Row[]> {
  return (await h.sql(
    `select actor_kind, actor_uuid::text, actor_os_user, request_id, action, target_type, target_uuid::text, outcome, error_code
       from identity.audit_outbox where event_uuid > ? order by event_uuid`,
    [mark],
  )) as unknown as Row[];
}

/** Runs `change` and answers the outbox rows it wrote. */
async function written(change: () => Promise<unknown>): Promise<Row[]> {
  const mark = uuidv7();
  await change();
  return rowsAfter(mark);
}

const byPerson = (uuid: string, action: string, targetType: string, targetUuid: string): Row => ({
  actor_kind: "identity",
  actor_uuid: uuid,
  actor_os_user: null,
  request_id: null,
  action,
  target_type: targetType,
  target_uuid: targetUuid,
  outcome: "succeeded",
  error_code: null,
});

/** A client of the same service as the internal caller `name` (as its credential would make it). */
function clientAs(harness: Harness, name: string) {
  const logger = createLogger("identity", { level: "silent" });
  const service = createIdentityService({ db: harness.db, logger, totpKey: harness.totpKey, clock: { now: harness.now }, assertionKey: assertionSigningKey(randomBytes(32)) });
  const transport = createRouterTransport(service, { router: { interceptors: [actAsCaller(name), domainErrorInterceptor("identity", reasonCodes, logger)] } });
  return createClient(identityV1.IdentityService, transport);
}

/** Makes every insert into the outbox fail until the returned function is called. */
async function breakOutbox(): Promise<() => Promise<void>> {
  await h.sql(`create or replace function identity.refuse_outbox() returns trigger language plpgsql as $$ begin raise exception 'outbox refused (test)'; end $$`);
  await h.sql(`create trigger refuse_outbox before insert on identity.audit_outbox for each row execute function identity.refuse_outbox()`);
  return async () => {
    await h.sql(`drop trigger refuse_outbox on identity.audit_outbox`);
  };
}

describe("each change writes exactly one outbox row", () => {
  it("records creating, disabling, locking, activating, forgiving failures and taking a role, naming the admin", async () => {
    const token = await signIn(h, admin);
    let created = "";
    expect(
      await written(async () => {
        created = (await createPerson(h, token, ["platform_operator", "merchant_member"])).uuid;
      }),
    ).toEqual([byPerson(admin.uuid, "identity.create", "identity", created)]);
    for (const [status, verb] of [
      ["disabled", "disable"],
      ["active", "activate"],
      ["locked", "lock"],
      ["active", "activate"],
    ] as const) {
      expect(await written(() => h.client.setIdentityStatus({ ...caller(token), identityUuid: created, status }))).toEqual([
        byPerson(admin.uuid, `identity.${verb}`, "identity", created),
      ]);
    }
    expect(await written(() => h.client.resetSignInFailures({ ...caller(token), identityUuid: created }))).toEqual([
      byPerson(admin.uuid, "identity.sign_in_failures.reset", "identity", created),
    ]);
    expect(await written(() => h.client.removeRole({ ...caller(token), identityUuid: created, role: "merchant_member" }))).toEqual([
      byPerson(admin.uuid, "identity.role.remove", "identity", created),
    ]);
  });

  it("records issuing, rotating and revoking a machine credential, each naming the credential", async () => {
    const token = await signIn(h, admin);
    const merchantUuid = uuidv7();
    let issued = "";
    expect(
      await written(async () => {
        const res = await h.client.createMachineCredential({ ...caller(token), merchantUuid });
        h.secrets.add(res.token);
        issued = res.credential!.credentialUuid;
      }),
    ).toEqual([byPerson(admin.uuid, "credential.create", "machine_credential", issued)]);
    let rotated = "";
    expect(
      await written(async () => {
        const res = await h.client.rotateMachineCredential({ ...caller(token), merchantUuid });
        h.secrets.add(res.token);
        rotated = res.credential!.credentialUuid;
      }),
    ).toEqual([byPerson(admin.uuid, "credential.rotate", "machine_credential", rotated)]);
    expect(await written(() => h.client.revokeMachineCredential({ ...caller(token), merchantUuid, credentialUuid: rotated }))).toEqual([
      byPerson(admin.uuid, "credential.revoke", "machine_credential", rotated),
    ]);
  });

  it("records a person's own changes (password, TOTP enrolment, a session revoked, sign-out), naming the person", async () => {
    const token = await signIn(h, admin);
    const person = await createPerson(h, token, ["merchant_member"]);
    const first = await signIn(h, person);
    await signIn(h, person); // another sign-in of the person: the session to revoke
    const { sessions } = await h.client.listSessions({ ...caller(first) });
    const secondUuid = sessions.find((s) => !s.csrfToken)!.sessionUuid;
    const newPassword = `pw-${randomBytes(12).toString("base64url")}`;
    h.secrets.add(newPassword);
    expect(
      await written(async () => {
        await h.client.enrollTotp({ ...caller(first), currentPassword: person.password });
        await h.client.revokeSession({ ...caller(first), sessionUuid: secondUuid });
        await h.client.changePassword({ ...caller(first), currentPassword: person.password, newPassword });
        await h.client.logout({ ...caller(first) });
      }),
    ).toEqual([
      byPerson(person.uuid, "identity.totp.start", "identity", person.uuid),
      byPerson(person.uuid, "session.revoke", "session", secondUuid),
      byPerson(person.uuid, "identity.password.change", "identity", person.uuid),
      expect.objectContaining({ actor_uuid: person.uuid, action: "session.logout", target_type: "session" }),
    ]);
  });

  it("writes nothing for a refusal or a read", async () => {
    const token = await signIn(h, admin);
    const someone = await createPerson(h, token, ["platform_operator"]);
    expect(
      await written(async () => {
        await expect(h.client.setIdentityStatus({ ...caller(token), identityUuid: someone.uuid, status: "active" })).rejects.toThrow();
        await expect(h.client.removeRole({ ...caller(token), identityUuid: someone.uuid, role: "platform_admin" })).rejects.toThrow();
        await h.client.listIdentities({ ...caller(token) });
      }),
    ).toEqual([]);
  });

  it("names the operator CLI and the OS user it reports when no person acts, and the system for npm start", async () => {
    const payinctl = clientAs(h, "payinctl");
    const token = await signIn(h, admin);
    const someone = await createPerson(h, token, ["platform_operator"]);
    const headers = { "x-operator-os-user": "alice.ops" };
    expect(await written(() => payinctl.setIdentityStatus({ identityUuid: someone.uuid, status: "locked" }, { headers }))).toEqual([
      { ...byPerson("", "identity.lock", "identity", someone.uuid), actor_kind: "operator_cli", actor_uuid: null, actor_os_user: "alice.ops" },
    ]);
    // With a person, the person acts; the OS user is kept beside them.
    expect(await written(() => payinctl.setIdentityStatus({ ...caller(token), identityUuid: someone.uuid, status: "active" }, { headers }))).toEqual([
      { ...byPerson(admin.uuid, "identity.activate", "identity", someone.uuid), actor_os_user: "alice.ops" },
    ]);
    // The OS user is the CLI's own report, checked like merchants' Actor.os_user; nothing changes without it.
    for (const bad of [{}, { "x-operator-os-user": "bob smith" }]) {
      await expectFailure(payinctl.setIdentityStatus({ identityUuid: someone.uuid, status: "locked" }, { headers: bad }), Code.InvalidArgument, "INVALID_ARGUMENT");
    }
    expect((await h.client.getIdentity({ identityUuid: someone.uuid })).identity!.status).toBe("active");
    // Another caller's header is not believed.
    const stack = clientAs(h, "stack");
    const merchantUuid = uuidv7();
    let issued = "";
    expect(
      await written(async () => {
        const res = await stack.createMachineCredential({ merchantUuid }, { headers });
        h.secrets.add(res.token);
        issued = res.credential!.credentialUuid;
      }),
    ).toEqual([{ ...byPerson("", "credential.create", "machine_credential", issued), actor_kind: "system", actor_uuid: null }]);
  });

  it("records the bootstrap of the first admin as the caller that asked", async () => {
    const rows = await h.sql(`select actor_kind, actor_uuid, action, target_type, target_uuid::text from identity.audit_outbox where action = 'identity.bootstrap'`);
    expect(rows).toEqual([{ actor_kind: "system", actor_uuid: null, action: "identity.bootstrap", target_type: "identity", target_uuid: admin.uuid }]);
  });
});

describe("no change without its record", () => {
  it("undoes every change whose outbox row cannot be written", async () => {
    const token = await signIn(h, admin);
    const someone = await createPerson(h, token, ["platform_operator", "merchant_member"]);
    const merchantUuid = uuidv7();
    const issued = await h.client.createMachineCredential({ ...caller(token), merchantUuid });
    h.secrets.add(issued.token);
    const credentialUuid = issued.credential!.credentialUuid;
    const state = async () => ({
      identities: (await h.sql(`select count(*)::int as n from identity.identities`))[0],
      allCredentials: (await h.sql(`select count(*)::int as n from identity.machine_credentials`))[0],
      someone: (await h.client.getIdentity({ identityUuid: someone.uuid })).identity,
      credentials: (await h.client.listMachineCredentials({ ...caller(token), merchantUuid })).credentials,
    });
    const before = await state();
    const repair = await breakOutbox();
    try {
      const changes = [
        () => h.client.createIdentity({ ...caller(token), email: randomEmail(), password: `pw-${randomBytes(12).toString("base64url")}`, roles: [] }),
        () => h.client.setIdentityStatus({ ...caller(token), identityUuid: someone.uuid, status: "locked" }),
        () => h.client.removeRole({ ...caller(token), identityUuid: someone.uuid, role: "merchant_member" }),
        () => h.client.resetSignInFailures({ ...caller(token), identityUuid: someone.uuid }),
        () => h.client.createMachineCredential({ ...caller(token), merchantUuid: uuidv7() }),
        () => h.client.rotateMachineCredential({ ...caller(token), merchantUuid }),
        () => h.client.revokeMachineCredential({ ...caller(token), merchantUuid, credentialUuid }),
      ];
      // The outbox's refusal is the service's fault (INTERNAL), not a refusal of the request.
      for (const change of changes) await expect(change()).rejects.toMatchObject({ code: Code.Internal });
    } finally {
      await repair();
    }
    expect(await state()).toEqual(before);
    // The machine credential still works: the revoke and the rotation were undone.
    await expect(h.client.authenticate({ token: issued.token })).resolves.toBeDefined();
  });

  it("undoes a bootstrap whose outbox row cannot be written", async () => {
    const fresh = await startHarness();
    try {
      await fresh.sql(`create or replace function identity.refuse_outbox() returns trigger language plpgsql as $$ begin raise exception 'outbox refused (test)'; end $$`);
      await fresh.sql(`create trigger refuse_outbox before insert on identity.audit_outbox for each row execute function identity.refuse_outbox()`);
      await expect(fresh.client.bootstrapAdmin({ email: randomEmail("admin") })).rejects.toMatchObject({ code: Code.Internal });
      expect(await fresh.sql(`select count(*)::int as n from identity.identities`)).toEqual([{ n: 0 }]);
    } finally {
      await fresh.close();
    }
  });
});
