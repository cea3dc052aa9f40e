/**
 * MFA for privileged identities: an identity holding any administrative
 * permission acts only through a session that completed MFA; changes that move
 * money or trust need MFA within the last 15 minutes (the harness clock moves);
 * enrolling TOTP needs the current password and ends the identity's other
 * sessions; a disabled or locked identity can be made active again.
 */
import { describe, expect, it } from "vitest";
import { uuidv7 } from "@payin/ids";
import { Code } from "@payin/rpc";
import { totpCode } from "@payin/otp";
import { expectFailure } from "@payin/testing";
import { caller, createPerson, enrolTotp, type Person, randomEmail, randomIp, secretOfUri, signIn, useAdmin, useHarness } from "./support.js";

const MINUTE = 60_000;
const h = useHarness();
const admin = useAdmin(h);

/** Keeps `token` alive (idle expiry is 15 minutes) while the clock moves `ms` forward. */
async function age(token: string, ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 2 * MINUTE) {
    h.advance(Math.min(2 * MINUTE, left));
    await h.client.getSession(caller(token));
  }
}

/** A new identity with `roles`, enrolled in TOTP and signed in with it; answers the session token too. */
async function enrolledPerson(roles: string[]): Promise<Person & { uuid: string; token: string }> {
  const p = await createPerson(h, await signIn(h, admin), roles);
  const { secret } = await enrolTotp(h, await signIn(h, p), p.password);
  const withSecret = { ...p, secret };
  return { ...withSecret, token: await signIn(h, withSecret) };
}

describe("privileged identities without MFA", () => {
  it("marks principals with an administrative permission as privileged, by permission", async () => {
    const token = await signIn(h, admin);
    const cases: [string[], boolean][] = [
      [["platform_admin"], true],
      [["platform_operator"], true],
      [["merchant_admin", "platform_operator"], true],
      [["merchant_admin"], false],
      [["merchant_member"], false],
    ];
    for (const [roles, privileged] of cases) {
      const session = await signIn(h, await createPerson(h, token, roles));
      const { principal } = await h.client.authenticate({ token: session });
      expect({ roles, privileged: principal?.privileged }).toEqual({ roles, privileged });
    }
    const { token: machine } = await h.client.createMachineCredential({ merchantUuid: uuidv7() });
    h.secrets.add(machine);
    expect((await h.client.authenticate({ token: machine })).principal?.privileged).toBe(false);
  });

  it("may only read its session, log out and enrol: everything else is MFA_REQUIRED", async () => {
    const adminToken = await signIn(h, admin);
    const target = await createPerson(h, adminToken, ["merchant_member"]);
    for (const roles of [["platform_admin"], ["platform_operator"]]) {
      const p = await createPerson(h, adminToken, roles);
      const token = await signIn(h, p);
      const other = await signIn(h, p);
      const refused: (() => Promise<unknown>)[] = [
        () => h.client.listIdentities({ ...caller(token), limit: 10 }),
        () => h.client.listSessions(caller(token)),
        () => h.client.revokeSession({ ...caller(token), sessionUuid: uuidv7() }),
        () => h.client.changePassword({ ...caller(token), currentPassword: p.password, newPassword: "a brand new password" }),
      ];
      if (roles.includes("platform_admin")) {
        refused.push(
          () => h.client.createIdentity({ ...caller(token), email: randomEmail(), password: "long enough password", roles: [] }),
          () => h.client.setIdentityStatus({ ...caller(token), identityUuid: target.uuid, status: "locked" }),
          () => h.client.removeRole({ ...caller(token), identityUuid: target.uuid, role: "merchant_member" }),
          () => h.client.listMachineCredentials({ ...caller(token), merchantUuid: uuidv7() }),
          () => h.client.createMachineCredential({ ...caller(token), merchantUuid: uuidv7() }),
        );
      }
      for (const call of refused) await expectFailure(call(), Code.PermissionDenied, "MFA_REQUIRED");
      // Nothing changed: the password still signs in, the other session lives.
      await h.client.authenticate({ token: other });
      expect((await h.client.getIdentity({ identityUuid: target.uuid })).identity?.status).toBe("active");

      // Allowed: reading the session, enrolling (with the password), logging out.
      expect((await h.client.getSession(caller(token))).session?.mfaSatisfied).toBe(false);
      const { secret } = await enrolTotp(h, token, p.password);
      await h.client.logout(caller(token));
      // Signed in again with TOTP, it may act.
      const withMfa = await signIn(h, { ...p, secret });
      expect((await h.client.listIdentities({ ...caller(withMfa), limit: 10 })).identities.length).toBeGreaterThan(0);
      await h.client.listSessions(caller(withMfa));
    }
  });

  it("leaves people without an administrative permission as they were", async () => {
    const p = await createPerson(h, await signIn(h, admin), ["merchant_admin"]);
    const token = await signIn(h, p);
    expect((await h.client.listSessions(caller(token))).sessions).toHaveLength(1);
    await h.client.changePassword({ ...caller(token), currentPassword: p.password, newPassword: "another fine password" });
    await expectFailure(h.client.listIdentities({ ...caller(token), limit: 10 }), Code.PermissionDenied, "FORBIDDEN");
  });
});

describe("recent MFA for changes that move money or trust", () => {
  it("refuses MFA older than 15 minutes with MFA_RECENT_REQUIRED on every such change; reads still work", async () => {
    const adminToken = await signIn(h, admin);
    const target = await createPerson(h, adminToken, ["merchant_member", "merchant_admin"]);
    const merchantUuid = uuidv7();
    const issued = await h.client.createMachineCredential({ ...caller(adminToken), merchantUuid });
    h.secrets.add(issued.token);
    const changes = (token: string) => [
      () => h.client.createIdentity({ ...caller(token), email: randomEmail(), password: "long enough password", roles: [] }),
      () => h.client.setIdentityStatus({ ...caller(token), identityUuid: target.uuid, status: "locked" }),
      () => h.client.setIdentityStatus({ ...caller(token), identityUuid: target.uuid, status: "disabled" }),
      () => h.client.setIdentityStatus({ ...caller(token), identityUuid: target.uuid, status: "active" }),
      () => h.client.removeRole({ ...caller(token), identityUuid: target.uuid, role: "merchant_member" }),
      () => h.client.createMachineCredential({ ...caller(token), merchantUuid: uuidv7() }),
      () => h.client.rotateMachineCredential({ ...caller(token), merchantUuid }),
      () => h.client.revokeMachineCredential({ ...caller(token), merchantUuid, credentialUuid: issued.credential!.credentialUuid }),
      () => h.client.resetSignInFailures({ ...caller(token), identityUuid: target.uuid }),
      // A privileged identity's own password is trust too.
      () => h.client.changePassword({ ...caller(token), currentPassword: admin.password, newPassword: "a brand new admin password" }),
    ];
    const stale = await signIn(h, admin);
    await age(stale, 16 * MINUTE);
    for (const call of changes(stale)) await expectFailure(call(), Code.PermissionDenied, "MFA_RECENT_REQUIRED");
    // Nothing changed.
    expect((await h.client.getIdentity({ identityUuid: target.uuid })).identity).toMatchObject({ status: "active", roles: ["merchant_admin", "merchant_member"] });
    expect((await h.client.authenticate({ token: issued.token })).principal?.merchantUuid).toBe(merchantUuid);
    // Reads need MFA at any age.
    await h.client.listIdentities({ ...caller(stale), limit: 10 });
    await h.client.listMachineCredentials({ ...caller(stale), merchantUuid });

    // At 14 minutes the MFA is still recent.
    const fresh = await signIn(h, admin);
    await age(fresh, 14 * MINUTE);
    await h.client.removeRole({ ...caller(fresh), identityUuid: target.uuid, role: "merchant_member" });
  });
});

describe("EnrollTotp needs the current password; ConfirmTotp ends the other sessions", () => {
  it("refuses a wrong or missing password with AUTH_INVALID_CREDENTIALS and starts nothing", async () => {
    const p = await createPerson(h, await signIn(h, admin), ["platform_admin"]);
    const token = await signIn(h, p);
    for (const currentPassword of ["wrong password 123", ""]) {
      const error = await expectFailure(h.client.enrollTotp({ ...caller(token), currentPassword }), Code.Unauthenticated, "AUTH_INVALID_CREDENTIALS");
      expect(error.rawMessage).toBe("current password is incorrect");
    }
    const factors = await h.sql(`select count(*)::int as n from identity.totp_factors where identity_uuid = ?`, [p.uuid]);
    expect(factors[0]!.n).toBe(0);
    // The session still works (a wrong password does not end it).
    await h.client.getSession(caller(token));
  });

  it("ends every other session of the identity on confirmation, keeps the current one without MFA", async () => {
    const p = await createPerson(h, await signIn(h, admin), ["platform_admin"]);
    const current = await signIn(h, p);
    const others = [await signIn(h, p), await signIn(h, p, "cookie")];
    const adminToken = await signIn(h, admin);
    const { otpauthUri } = await h.client.enrollTotp({ ...caller(current), currentPassword: p.password });
    h.secrets.add(otpauthUri);
    // Starting enrolment ends nothing yet.
    for (const token of others) await h.client.authenticate({ token });
    h.advance(30_000);
    const { recoveryCodes } = await h.client.confirmTotp({ ...caller(current), code: totpCode(secretOfUri(otpauthUri), h.now()) });
    for (const code of recoveryCodes) h.secrets.add(code);
    for (const token of others) await expectFailure(h.client.authenticate({ token }), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
    // The current session lives on, not upgraded: MFA counts from the next sign-in.
    const { session } = await h.client.getSession(caller(current));
    expect(session?.mfaSatisfied).toBe(false);
    await expectFailure(h.client.listIdentities({ ...caller(current), limit: 10 }), Code.PermissionDenied, "MFA_REQUIRED");
    // Another identity's sessions are untouched.
    await h.client.authenticate({ token: adminToken });
  });
});

describe("SetIdentityStatus active", () => {
  it("restores a locked or disabled identity; IDENTITY_ALREADY_ACTIVE when active; IDENTITY_NOT_FOUND when unknown", async () => {
    const adminToken = await signIn(h, admin);
    for (const status of ["locked", "disabled"]) {
      const p = await createPerson(h, adminToken, ["merchant_member"]);
      const old = await signIn(h, p);
      await h.client.setIdentityStatus({ ...caller(adminToken), identityUuid: p.uuid, status });
      const { identity } = await h.client.setIdentityStatus({ ...caller(adminToken), identityUuid: p.uuid, status: "active" });
      expect(identity).toMatchObject({ uuid: p.uuid, status: "active", roles: ["merchant_member"] });
      // Sessions ended by the lock stay ended; the person signs in again.
      await expectFailure(h.client.authenticate({ token: old }), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
      const login = await h.client.login({ email: p.email, password: p.password, transport: "bearer", clientIp: randomIp() });
      expect(login.result.case).toBe("authenticated");
      await expectFailure(
        h.client.setIdentityStatus({ ...caller(adminToken), identityUuid: p.uuid, status: "active" }),
        Code.FailedPrecondition,
        "IDENTITY_ALREADY_ACTIVE",
      );
    }
    await expectFailure(h.client.setIdentityStatus({ ...caller(adminToken), identityUuid: uuidv7(), status: "active" }), Code.NotFound, "IDENTITY_NOT_FOUND");
    await expectFailure(h.client.setIdentityStatus({ ...caller(adminToken), identityUuid: "x", status: "active" }), Code.NotFound, "IDENTITY_NOT_FOUND");
    const operator = await enrolledPerson(["platform_operator"]);
    await expectFailure(h.client.setIdentityStatus({ ...caller(operator.token), identityUuid: admin.uuid, status: "active" }), Code.PermissionDenied, "FORBIDDEN");
  });

  it("lets another admin restore a locked first admin, who then signs in with MFA again", async () => {
    const second = await enrolledPerson(["platform_admin"]);
    // Start from two active platform_admins: disable those earlier tests made.
    const earlier = await h.sql(
      `select r.identity_uuid from identity.identity_roles r join identity.identities i using (identity_uuid)
        where r.role = 'platform_admin' and i.status = 'active' and r.identity_uuid not in (?, ?)`,
      [admin.uuid, second.uuid],
    );
    for (const row of earlier) {
      await h.client.setIdentityStatus({ ...caller(second.token), identityUuid: row.identity_uuid as string, status: "disabled" });
    }
    await h.client.setIdentityStatus({ ...caller(second.token), identityUuid: admin.uuid, status: "locked" });
    await expectFailure(
      h.client.login({ email: admin.email, password: admin.password, transport: "bearer", clientIp: randomIp() }),
      Code.Unauthenticated,
      "AUTH_INVALID_CREDENTIALS",
    );
    const { identity } = await h.client.setIdentityStatus({ ...caller(second.token), identityUuid: admin.uuid, status: "active" });
    expect(identity).toMatchObject({ status: "active", roles: ["platform_admin"], mfaEnrolled: true });
    const token = await signIn(h, admin);
    expect((await h.client.getSession(caller(token))).session?.mfaSatisfied).toBe(true);
    // The last-admin guard still holds for disable and lock.
    await h.client.setIdentityStatus({ ...caller(token), identityUuid: second.uuid, status: "disabled" });
    for (const status of ["disabled", "locked"]) {
      await expectFailure(h.client.setIdentityStatus({ ...caller(token), identityUuid: admin.uuid, status }), Code.FailedPrecondition, "LAST_PLATFORM_ADMIN");
    }
  });
});
