import { describe, expect, it } from "vitest";
import { uuidv7 } from "@payin/ids";
import { Code, ConnectError, reasonOf } from "@payin/rpc";
import { expectFailure, failure } from "@payin/testing";
import { caller, createPerson, enrolTotp, type Person, randomEmail, randomIp, signIn, useAdmin, useHarness } from "./support.js";

const MINUTE = 60_000;
const h = useHarness();
const admin = useAdmin(h);

const adminSession = () => signIn(h, admin);

async function expectRevoked(token: string): Promise<void> {
  await expectFailure(h.client.authenticate({ token }), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
}

describe("CreateIdentity", () => {
  it("creates an identity with a lower-cased email and the given roles", async () => {
    const token = await adminSession();
    const email = randomEmail("New.Person");
    const person = await createPerson(h, token, ["merchant_member", "merchant_admin", "merchant_member"], email);
    const { identities } = await h.client.listIdentities({ ...caller(token), limit: 100 });
    const created = identities.find((i) => i.uuid === person.uuid);
    expect(created).toMatchObject({ email: email.toLowerCase(), status: "active", roles: ["merchant_admin", "merchant_member"], mfaEnrolled: false });
    // The new person can sign in with their password.
    expect((await h.client.login({ email, password: person.password, transport: "bearer", clientIp: randomIp() })).result.case).toBe("authenticated");
  });

  it("refuses a taken email in any case, and lets one of concurrent creates win", async () => {
    const token = await adminSession();
    const email = randomEmail("dup");
    await createPerson(h, token, [], email);
    await expectFailure(
      h.client.createIdentity({ ...caller(token), email: email.toUpperCase(), password: "long enough password", roles: [] }),
      Code.AlreadyExists,
      "IDENTITY_EMAIL_TAKEN",
    );
    const racing = randomEmail("race");
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => h.client.createIdentity({ ...caller(token), email: racing, password: "long enough password", roles: [] })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(reasonOf(r.reason as ConnectError)).toBe("IDENTITY_EMAIL_TAKEN");
  });

  it.each([
    ["a malformed email", { email: "nope" }],
    ["an email with spaces", { email: " a@example.com" }],
    ["a short password", { password: "short" }],
    ["a password of 129 characters", { password: "p".repeat(129) }],
    ["an unknown role", { roles: ["superuser"] }],
    ["a role in the wrong case", { roles: ["Platform_Admin"] }],
    ["the machine grant as a role", { roles: ["machine_credential"] }],
  ])("refuses %s with INVALID_ARGUMENT", async (_name, override) => {
    const request = { ...caller(await adminSession()), email: randomEmail(), password: "long enough password", roles: ["merchant_member"], ...override };
    await expectFailure(h.client.createIdentity(request), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it.each([
    ["a common password", "maria.santos@example.com", "password1234", "password is too common or easy to guess"],
    ["a keyboard pattern", "maria.santos@example.com", "qwertyuiop12", "password is too common or easy to guess"],
    ["the email's name", "Maria.Santos@Example.com", "maria.santos-2024!", "password must not contain the email address's name"],
  ])("refuses %s as a password with INVALID_ARGUMENT saying why, and creates nothing", async (_name, email, password, why) => {
    const token = await adminSession();
    const error = await expectFailure(h.client.createIdentity({ ...caller(token), email, password, roles: [] }), Code.InvalidArgument, "INVALID_ARGUMENT");
    expect(error.rawMessage).toContain(why);
    expect(error.rawMessage).not.toContain(password);
    await expectFailure(h.client.login({ email, password, transport: "bearer", clientIp: randomIp() }), Code.Unauthenticated, "AUTH_INVALID_CREDENTIALS");
  });

  it("needs identity.create: operators, merchants and machines are FORBIDDEN", async () => {
    const token = await adminSession();
    const operator = await createPerson(h, token, ["platform_operator"]);
    const merchant = await createPerson(h, token, ["merchant_admin"]);
    const { token: machine } = await h.client.createMachineCredential({ merchantUuid: uuidv7() });
    h.secrets.add(machine);
    const request = (sessionToken: string) => ({ ...caller(sessionToken), email: randomEmail(), password: "long enough password", roles: [] });
    for (const sessionToken of [await signIn(h, operator), await signIn(h, merchant), machine]) {
      await expectFailure(h.client.createIdentity(request(sessionToken)), Code.PermissionDenied, "FORBIDDEN");
    }
    await expectFailure(h.client.createIdentity({ ...caller(""), email: randomEmail(), password: "long enough password", roles: [] }), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
  });

  it("needs MFA completed within the last 15 minutes", async () => {
    // A platform_admin without MFA: holds the permission, but no MFA at all.
    const second = await createPerson(h, await adminSession(), ["platform_admin"]);
    const noMfa = await signIn(h, second);
    const request = (sessionToken: string) => ({ ...caller(sessionToken), email: randomEmail(), password: "long enough password", roles: [] });
    await expectFailure(h.client.createIdentity(request(noMfa)), Code.PermissionDenied, "MFA_REQUIRED");

    // MFA 14 minutes ago is recent; 16 minutes ago is not, though the session lives on.
    const token = await adminSession();
    for (let i = 0; i < 7; i++) {
      h.advance(2 * MINUTE);
      await h.client.getSession(caller(token));
    }
    await h.client.createIdentity(request(token));
    h.advance(2 * MINUTE);
    await expectFailure(h.client.createIdentity(request(token)), Code.PermissionDenied, "MFA_RECENT_REQUIRED");
  });
});

describe("ListIdentities", () => {
  it("pages identities for identity.read holders", async () => {
    const token = await adminSession();
    const operator = await createPerson(h, token, ["platform_operator"]);
    // A platform_operator is privileged: it reads only through a session that completed MFA.
    const operatorToken = await signInAdminWithMfa(operator);
    const all = await h.client.listIdentities({ ...caller(operatorToken), limit: 100 });
    expect(Number(all.total)).toBe(all.identities.length);
    expect(all.identities.map((i) => i.uuid)).toContain(admin.uuid);
    const page = await h.client.listIdentities({ ...caller(operatorToken), limit: 2, offset: 1 });
    expect(page.identities.map((i) => i.uuid)).toEqual(all.identities.slice(1, 3).map((i) => i.uuid));
    expect(page.total).toBe(all.total);
    expect(JSON.stringify(all.identities, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))).not.toMatch(/argon2|password/i);
    await expectFailure(h.client.listIdentities({ ...caller(operatorToken), limit: 101 }), Code.InvalidArgument, "INVALID_ARGUMENT");
    const member = await createPerson(h, token, ["merchant_member"]);
    await expectFailure(h.client.listIdentities(caller(await signIn(h, member))), Code.PermissionDenied, "FORBIDDEN");
  });
});

describe("GetIdentity", () => {
  it("reads one identity without its password hash; NOT_FOUND for an unknown or malformed uuid", async () => {
    const token = await adminSession();
    const member = await createPerson(h, token, ["merchant_member"]);
    const { identity } = await h.client.getIdentity({ identityUuid: member.uuid });
    expect(identity).toMatchObject({ uuid: member.uuid, email: member.email.toLowerCase(), status: "active", roles: ["merchant_member"] });
    expect(JSON.stringify(identity, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))).not.toMatch(/argon2|password/i);
    for (const identityUuid of ["01a1fef8-cdc2-73d0-b71f-f31d7a342a1f", "not-a-uuid", ""]) {
      await expectFailure(h.client.getIdentity({ identityUuid }), Code.NotFound, "IDENTITY_NOT_FOUND");
    }
  });
});

describe("SetIdentityStatus", () => {
  it("disables an identity and revokes its sessions at once; again is IDENTITY_ALREADY_DISABLED", async () => {
    const token = await adminSession();
    const person = await createPerson(h, token, ["merchant_member"]);
    const sessions = [await signIn(h, person), await signIn(h, person, "cookie")];
    for (const s of sessions) await h.client.authenticate({ token: s });
    const { identity } = await h.client.setIdentityStatus({ ...caller(token), identityUuid: person.uuid, status: "disabled" });
    expect(identity?.status).toBe("disabled");
    for (const s of sessions) await expectRevoked(s);
    await expectFailure(
      h.client.login({ email: person.email, password: person.password, transport: "bearer", clientIp: randomIp() }),
      Code.Unauthenticated,
      "AUTH_INVALID_CREDENTIALS",
    );
    await expectFailure(
      h.client.setIdentityStatus({ ...caller(token), identityUuid: person.uuid, status: "disabled" }),
      Code.FailedPrecondition,
      "IDENTITY_ALREADY_DISABLED",
    );
    // A disabled identity can still be locked.
    await h.client.setIdentityStatus({ ...caller(token), identityUuid: person.uuid, status: "locked" });
  });

  it("locks an identity and revokes its sessions at once; again is IDENTITY_ALREADY_LOCKED", async () => {
    const token = await adminSession();
    const person = await createPerson(h, token, ["merchant_admin"]);
    const session = await signIn(h, person);
    await h.client.setIdentityStatus({ ...caller(token), identityUuid: person.uuid, status: "locked" });
    await expectRevoked(session);
    const wrong = await failure(h.client.login({ email: person.email, password: "wrong password 1", transport: "bearer", clientIp: randomIp() }));
    const locked = await failure(h.client.login({ email: person.email, password: person.password, transport: "bearer", clientIp: randomIp() }));
    expect([reasonOf(locked), locked.rawMessage]).toEqual([reasonOf(wrong), wrong.rawMessage]);
    await expectFailure(
      h.client.setIdentityStatus({ ...caller(token), identityUuid: person.uuid, status: "locked" }),
      Code.FailedPrecondition,
      "IDENTITY_ALREADY_LOCKED",
    );
  });

  it("answers NOT_FOUND, INVALID_ARGUMENT and FORBIDDEN where due", async () => {
    const token = await adminSession();
    await expectFailure(h.client.setIdentityStatus({ ...caller(token), identityUuid: uuidv7(), status: "locked" }), Code.NotFound, "IDENTITY_NOT_FOUND");
    await expectFailure(h.client.setIdentityStatus({ ...caller(token), identityUuid: "x", status: "locked" }), Code.NotFound, "IDENTITY_NOT_FOUND");
    for (const status of ["", "LOCKED", "ACTIVE", "enabled"]) {
      await expectFailure(h.client.setIdentityStatus({ ...caller(token), identityUuid: admin.uuid, status }), Code.InvalidArgument, "INVALID_ARGUMENT");
    }
    await expectFailure(
      h.client.setIdentityStatus({ ...caller(token), identityUuid: admin.uuid, status: "active" }),
      Code.FailedPrecondition,
      "IDENTITY_ALREADY_ACTIVE",
    );
    const operator = await signIn(h, await createPerson(h, token, ["platform_operator"]));
    await expectFailure(h.client.setIdentityStatus({ ...caller(operator), identityUuid: admin.uuid, status: "locked" }), Code.PermissionDenied, "FORBIDDEN");
  });
});

describe("RemoveRole", () => {
  it("removes a held role with immediate effect on permissions", async () => {
    const token = await adminSession();
    const person = await createPerson(h, token, ["merchant_admin", "platform_operator"]);
    const session = await signIn(h, person);
    expect((await h.client.authenticate({ token: session })).principal?.permissions).toContain("identity.read");
    const { identity } = await h.client.removeRole({ ...caller(token), identityUuid: person.uuid, role: "platform_operator" });
    expect(identity?.roles).toEqual(["merchant_admin"]);
    expect((await h.client.authenticate({ token: session })).principal?.permissions).toEqual([
      "merchant.payin.create",
      "merchant.payin.read",
      "checkout.manage",
      "webhook.manage",
    ]);
    await expectFailure(h.client.removeRole({ ...caller(token), identityUuid: person.uuid, role: "platform_operator" }), Code.FailedPrecondition, "ROLE_NOT_HELD");
    // A name that is no role is not held either.
    await expectFailure(h.client.removeRole({ ...caller(token), identityUuid: person.uuid, role: "wizard" }), Code.FailedPrecondition, "ROLE_NOT_HELD");
    await expectFailure(h.client.removeRole({ ...caller(token), identityUuid: uuidv7(), role: "merchant_admin" }), Code.NotFound, "IDENTITY_NOT_FOUND");
  });

  it("never removes platform_admin from the last active platform_admin, even under concurrency", async () => {
    const token = await adminSession();
    // Start from one active platform_admin: disable any that earlier tests made.
    const earlier = await h.sql(
      `select r.identity_uuid from identity.identity_roles r join identity.identities i using (identity_uuid)
        where r.role = 'platform_admin' and i.status = 'active' and r.identity_uuid <> ?`,
      [admin.uuid],
    );
    for (const row of earlier) {
      await h.client.setIdentityStatus({ ...caller(token), identityUuid: row.identity_uuid as string, status: "disabled" });
    }
    // Other admins: one disabled (does not count), one active.
    const disabled = await createPerson(h, token, ["platform_admin"]);
    await h.client.setIdentityStatus({ ...caller(token), identityUuid: disabled.uuid, status: "disabled" });
    const other = await createPerson(h, token, ["platform_admin"]);
    const results = await Promise.allSettled([
      h.client.removeRole({ ...caller(token), identityUuid: admin.uuid, role: "platform_admin" }),
      h.client.removeRole({ ...caller(token), identityUuid: other.uuid, role: "platform_admin" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = results.find((r): r is PromiseRejectedResult => r.status === "rejected")!;
    // The caller is one of the two admins (only admins hold identity.manage), so when the
    // removal of the caller's own role commits before the other request is authorised,
    // that one is FORBIDDEN instead; either way the roster guard held.
    expect([
      [Code.FailedPrecondition, "LAST_PLATFORM_ADMIN"],
      [Code.PermissionDenied, "FORBIDDEN"],
    ]).toContainEqual([(lost.reason as ConnectError).code, reasonOf(lost.reason as ConnectError)]);
    const rows = await h.sql(
      `select count(*)::int as n from identity.identity_roles r join identity.identities i using (identity_uuid)
        where r.role = 'platform_admin' and i.status = 'active'`,
    );
    expect(rows[0]!.n).toBe(1);
    // The disabled admin's role may go: it is not the last active one.
    const remaining = results[0]!.status === "rejected" ? admin : other;
    const remainingToken = remaining === admin ? await adminSession() : await signInAdminWithMfa(remaining);
    await h.client.removeRole({ ...caller(remainingToken), identityUuid: disabled.uuid, role: "platform_admin" });
    await expectFailure(
      h.client.removeRole({ ...caller(remainingToken), identityUuid: remaining.uuid, role: "platform_admin" }),
      Code.FailedPrecondition,
      "LAST_PLATFORM_ADMIN",
    );
    // Nor can the last active platform_admin be disabled or locked, even by itself.
    for (const status of ["disabled", "locked"]) {
      await expectFailure(
        h.client.setIdentityStatus({ ...caller(remainingToken), identityUuid: remaining.uuid, status }),
        Code.FailedPrecondition,
        "LAST_PLATFORM_ADMIN",
      );
    }
  });
});

/** Signs in a platform_admin that was created without MFA, enrolling TOTP first. */
async function signInAdminWithMfa(person: Person): Promise<string> {
  const { secret } = await enrolTotp(h, await signIn(h, person), person.password);
  return signIn(h, { ...person, secret });
}
