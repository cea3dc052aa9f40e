import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { uuidv7 } from "@payin/ids";
import { identityV1 } from "@payin/proto";
import { Code, ConnectError, reasonOf, retryAfterOf } from "@payin/rpc";
import { expectFailure } from "@payin/testing";
import { caller, createPerson, type Person, randomEmail, randomIp, signIn, useAdmin, useHarness } from "./support.js";
import { MAX_FAILURES_PER_IP } from "../src/domain/throttle.js";

const { PrincipalKind } = identityV1;
const MINUTE = 60_000;
const h = useHarness();
const admin = useAdmin(h);

/** A fresh merchant member (no MFA), created by a fresh admin session (tests move the clock). */
async function member(): Promise<Person & { uuid: string }> {
  return createPerson(h, await signIn(h, admin), ["merchant_member"]);
}

async function expectInvalidToken(token: string): Promise<void> {
  const error = await expectFailure(h.client.authenticate({ token }), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
  expect(error.rawMessage).toBe("invalid token");
  await expectFailure(h.client.getSession(caller(token)), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
}

describe("Login", () => {
  it("opens a bearer or cookie session with the contract's fields", async () => {
    const person = await member();
    for (const transport of ["bearer", "cookie"]) {
      const before = h.now().getTime();
      const login = await h.client.login({ email: person.email.toUpperCase(), password: person.password, transport, clientIp: randomIp() });
      expect(login.result.case).toBe("authenticated");
      const { session, sessionToken } = login.result.value as identityV1.Authenticated;
      h.secrets.add(sessionToken);
      expect(sessionToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(session?.transport).toBe(transport);
      expect(session?.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(session?.mfaSatisfied).toBe(false);
      expect(session?.mfaAuthenticatedAt).toBeUndefined();
      expect(session?.identity).toMatchObject({ uuid: person.uuid, email: person.email.toLowerCase(), status: "active", roles: ["merchant_member"] });
      const created = timestampDate(session!.createdAt!).getTime();
      expect(created).toBeGreaterThanOrEqual(before);
      expect(timestampDate(session!.primaryAuthenticatedAt!).getTime()).toBe(created);
      expect(timestampDate(session!.expiresAt!).getTime()).toBe(created + 15 * MINUTE);
      expect(timestampDate(session!.absoluteExpiresAt!).getTime()).toBe(created + 12 * 60 * MINUTE);

      // Only SHA-256 of the token is stored.
      const [row] = await h.sql(`select s::text as text, token_hash from identity.sessions s where session_uuid = ?`, [session!.sessionUuid]);
      expect(row!.text).not.toContain(sessionToken);
      expect((row!.token_hash as Buffer).equals(createHash("sha256").update(sessionToken).digest())).toBe(true);
    }
  });

  it("answers an unknown email and a wrong password identically, in comparable time", async () => {
    const person = await member();
    const attempt = async (email: string, password: string) => {
      const start = process.hrtime.bigint();
      const error = await expectFailure(
        h.client.login({ email, password, transport: "bearer", clientIp: randomIp() }),
        Code.Unauthenticated,
        "AUTH_INVALID_CREDENTIALS",
      );
      return { message: error.rawMessage, ns: Number(process.hrtime.bigint() - start) };
    };
    const wrong = await attempt(person.email, "wrong password 123");
    const unknown = await attempt(randomEmail("nobody"), person.password);
    expect(unknown.message).toBe(wrong.message);
    // Both pay for one argon2id verification: unknown emails are not answered early.
    // The fastest of several samples is compared, which load on the machine barely moves.
    let wrongNs = Infinity;
    let unknownNs = Infinity;
    for (let i = 0; i < 4; i++) {
      wrongNs = Math.min(wrongNs, (await attempt(person.email, `wrong password ${i}!`)).ns);
      unknownNs = Math.min(unknownNs, (await attempt(randomEmail("nobody"), person.password)).ns);
    }
    // Answering unknown emails early would be a ratio near 0; the bounds allow for noisy machines.
    expect(unknownNs / wrongNs).toBeGreaterThan(0.3);
    expect(unknownNs / wrongNs).toBeLessThan(3.5);
  });

  it.each([
    ["malformed email", { email: "not-an-email" }],
    ["password of 11 characters", { password: "a".repeat(11) }],
    ["password of 129 characters", { password: "a".repeat(129) }],
    ["unknown transport", { transport: "header" }],
    ["empty transport", { transport: "" }],
  ])("refuses a %s with INVALID_ARGUMENT", async (_name, override) => {
    const request = { email: randomEmail(), password: "long enough password", transport: "bearer", clientIp: randomIp(), ...override };
    await expectFailure(h.client.login(request), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it("throttles an email from one client IP after 5 failures in 15 minutes, even with the right password", async () => {
    const person = await member();
    const clientIp = randomIp();
    for (let i = 0; i < 5; i++) {
      await expectFailure(
        h.client.login({ email: person.email, password: `wrong password ${i}`, transport: "bearer", clientIp }),
        Code.Unauthenticated,
        "AUTH_INVALID_CREDENTIALS",
      );
    }
    const right = () => h.client.login({ email: person.email, password: person.password, transport: "bearer", clientIp });
    const refused = await expectFailure(right(), Code.ResourceExhausted, "RATE_LIMITED");
    // Until the first of the 5 failures leaves the 15 minutes.
    expect(retryAfterOf(refused)).toBeGreaterThanOrEqual(15 * 60 - 10);
    expect(retryAfterOf(refused)).toBeLessThanOrEqual(15 * 60);
    // The owner signs in from another address all the same; this one stays refused.
    expect((await h.client.login({ email: person.email, password: person.password, transport: "bearer", clientIp: randomIp() })).result.case).toBe(
      "authenticated",
    );
    await expectFailure(right(), Code.ResourceExhausted, "RATE_LIMITED");
    // Other emails are not affected.
    const other = await member();
    expect((await h.client.login({ email: other.email, password: other.password, transport: "bearer", clientIp: randomIp() })).result.case).toBe(
      "authenticated",
    );
    // Once the failures leave the window, the right password works again.
    h.advance(15 * MINUTE + 1000);
    expect((await right()).result.case).toBe("authenticated");
  });

  it("forgives earlier failures after a successful login from the same client IP", async () => {
    const person = await member();
    const clientIp = randomIp();
    const login = (password: string) => h.client.login({ email: person.email, password, transport: "bearer", clientIp });
    for (let i = 0; i < 4; i++) await expectFailure(login("wrong password!!"), Code.Unauthenticated, "AUTH_INVALID_CREDENTIALS");
    expect((await login(person.password)).result.case).toBe("authenticated");
    for (let i = 0; i < 5; i++) await expectFailure(login("wrong password!!"), Code.Unauthenticated, "AUTH_INVALID_CREDENTIALS");
    await expectFailure(login(person.password), Code.ResourceExhausted, "RATE_LIMITED");
  });

  it("never counts successful sign-ins against their client IP", async () => {
    const clientIp = randomIp();
    const person = await member();
    for (let i = 0; i < 40; i++) {
      const res = await h.client.login({ email: person.email, password: person.password, transport: "bearer", clientIp });
      expect(res.result.case).toBe("authenticated");
    }
  });

  it(`throttles a client IP after ${MAX_FAILURES_PER_IP} failed attempts in 15 minutes, and counts unknown emails too`, async () => {
    const clientIp = randomIp();
    const person = await member();
    for (let i = 0; i < MAX_FAILURES_PER_IP; i++) {
      await expectFailure(
        h.client.login({ email: randomEmail("spray"), password: "some password 1", transport: "bearer", clientIp }),
        Code.Unauthenticated,
        "AUTH_INVALID_CREDENTIALS",
      );
    }
    await expectFailure(
      h.client.login({ email: person.email, password: person.password, transport: "bearer", clientIp }),
      Code.ResourceExhausted,
      "RATE_LIMITED",
    );
    // Another IP still gets in.
    expect((await h.client.login({ email: person.email, password: person.password, transport: "bearer", clientIp: randomIp() })).result.case).toBe(
      "authenticated",
    );
  });

  it("never lets concurrent failures from one client IP slip past the email's limit", async () => {
    const person = await member();
    const clientIp = randomIp();
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => h.client.login({ email: person.email, password: "wrong password!!", transport: "bearer", clientIp })),
    );
    const reasons = results.map((r) => (r.status === "rejected" ? reasonOf(r.reason as ConnectError) : "ok"));
    expect(reasons.every((r) => r === "AUTH_INVALID_CREDENTIALS" || r === "RATE_LIMITED")).toBe(true);
    // Each attempt is recorded before it is counted, so at most 5 passwords were checked.
    expect(reasons.filter((r) => r === "AUTH_INVALID_CREDENTIALS").length).toBeLessThanOrEqual(5);
    const [row] = await h.sql(`select count(*)::int as n from identity.login_attempts where email = ? and outcome = 'failed'`, [
      person.email.toLowerCase(),
    ]);
    expect(row!.n).toBeLessThanOrEqual(5);
  });
});

describe("Authenticate and GetSession with sessions", () => {
  it("resolves a session token to a human principal with permissions from the role table", async () => {
    const person = await member();
    const token = await signIn(h, person, "cookie");
    const { principal } = await h.client.authenticate({ token });
    const { session } = await h.client.getSession(caller(token));
    expect(principal).toMatchObject({
      kind: PrincipalKind.HUMAN,
      identityUuid: person.uuid,
      sessionUuid: session!.sessionUuid,
      roles: ["merchant_member"],
      permissions: ["merchant.payin.create", "merchant.payin.read"],
      mfaSatisfied: false,
      csrfToken: session!.csrfToken,
      transport: "cookie",
      merchantUuid: "",
      credentialUuid: "",
    });
    expect(principal?.mfaAuthenticatedAt).toBeUndefined();
  });

  it("refuses missing, malformed and unknown tokens alike", async () => {
    for (const token of ["", "x", "A".repeat(42), "A".repeat(44), `${"A".repeat(42)}=`, "A".repeat(43)]) await expectInvalidToken(token);
    await expectFailure(h.client.getSession({}), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
  });

  it("expires a session after 15 idle minutes", async () => {
    const token = await signIn(h, await member());
    h.advance(15 * MINUTE - 1000);
    await h.client.getSession(caller(token)); // still live, and touched
    h.advance(15 * MINUTE - 1000);
    await h.client.authenticate({ token }); // touched again
    h.advance(15 * MINUTE + 1);
    await expectInvalidToken(token);
  });

  it("slides the idle expiry with use, writing last_seen_at at most every 10 seconds", async () => {
    const token = await signIn(h, await member());
    const { session } = await h.client.getSession(caller(token));
    const lastSeen = async () => {
      const [row] = await h.sql(`select last_seen_at from identity.sessions where session_uuid = ?`, [session!.sessionUuid]);
      return new Date(row!.last_seen_at as Date).getTime();
    };
    const first = await lastSeen();
    h.advance(5000);
    const within = await h.client.getSession(caller(token));
    expect(await lastSeen()).toBe(first);
    expect(timestampDate(within.session!.expiresAt!).getTime()).toBe(first + 15 * MINUTE);
    h.advance(6000);
    const after = await h.client.getSession(caller(token));
    const touched = await lastSeen();
    expect(touched).toBeGreaterThanOrEqual(first + 11_000);
    expect(touched).toBeLessThan(first + 12_000);
    expect(timestampDate(after.session!.expiresAt!).getTime()).toBe(touched + 15 * MINUTE);
  });

  it("ends a session 12 hours after it started, however it is used", async () => {
    const token = await signIn(h, await member());
    for (let elapsed = 0; elapsed < 12 * 60; elapsed += 10) {
      h.advance(10 * MINUTE);
      if (elapsed + 10 < 12 * 60) await h.client.authenticate({ token });
    }
    await expectInvalidToken(token);
  });

  it("never treats a machine token as a session", async () => {
    const { token } = await h.client.createMachineCredential({ merchantUuid: uuidv7() });
    h.secrets.add(token);
    expect((await h.client.authenticate({ token })).principal?.kind).toBe(PrincipalKind.MACHINE);
    await expectFailure(h.client.getSession(caller(token)), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
    await expectFailure(h.client.listSessions(caller(token)), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
    await expectFailure(h.client.logout(caller(token)), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
  });
});

describe("Logout, ListSessions, RevokeSession", () => {
  it("logs out the caller's session at once", async () => {
    const person = await member();
    const token = await signIn(h, person);
    const other = await signIn(h, person);
    await h.client.logout(caller(token));
    await expectInvalidToken(token);
    await expectFailure(h.client.logout(caller(token)), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
    await h.client.authenticate({ token: other });
  });

  it("lists the caller's live sessions, newest first, with only the caller's CSRF token", async () => {
    const person = await member();
    const ended = await signIn(h, person);
    h.advance(1000);
    const older = await signIn(h, person);
    h.advance(1000);
    const current = await signIn(h, person);
    await h.client.logout(caller(ended));
    const stranger = await signIn(h, await member());
    const { sessions } = await h.client.listSessions(caller(current));
    const own = (await h.client.getSession(caller(current))).session!;
    const olderSession = (await h.client.getSession(caller(older))).session!;
    expect(sessions.map((s) => s.sessionUuid)).toEqual([own.sessionUuid, olderSession.sessionUuid]);
    expect(sessions[0]!.csrfToken).toBe(own.csrfToken);
    expect(sessions[1]!.csrfToken).toBe("");
    expect(sessions.every((s) => s.identity?.uuid === person.uuid)).toBe(true);
    expect((await h.client.listSessions(caller(stranger))).sessions).toHaveLength(1);
  });

  it("revokes one own session, and answers NOT_FOUND for another's, an unknown or an ended one", async () => {
    const person = await member();
    const current = await signIn(h, person);
    const second = await signIn(h, person);
    const secondUuid = (await h.client.getSession(caller(second))).session!.sessionUuid;
    const strangerToken = await signIn(h, await member());
    const strangerUuid = (await h.client.getSession(caller(strangerToken))).session!.sessionUuid;

    await expectFailure(h.client.revokeSession({ ...caller(current), sessionUuid: strangerUuid }), Code.NotFound, "SESSION_NOT_FOUND");
    await h.client.authenticate({ token: strangerToken });
    await expectFailure(h.client.revokeSession({ ...caller(current), sessionUuid: uuidv7() }), Code.NotFound, "SESSION_NOT_FOUND");
    await expectFailure(h.client.revokeSession({ ...caller(current), sessionUuid: "nope" }), Code.NotFound, "SESSION_NOT_FOUND");

    await h.client.revokeSession({ ...caller(current), sessionUuid: secondUuid });
    await expectInvalidToken(second);
    await h.client.authenticate({ token: current });
    await expectFailure(h.client.revokeSession({ ...caller(current), sessionUuid: secondUuid }), Code.NotFound, "SESSION_NOT_FOUND");
  });
});

describe("ChangePassword", () => {
  it("checks the current password, applies the new one, and revokes every other session at once", async () => {
    const person = await member();
    const current = await signIn(h, person);
    const others = [await signIn(h, person), await signIn(h, person)];
    const newPassword = "a brand new passphrase";
    h.secrets.add(newPassword);

    await expectFailure(
      h.client.changePassword({ ...caller(current), currentPassword: "not the password", newPassword }),
      Code.Unauthenticated,
      "AUTH_INVALID_CREDENTIALS",
    );
    await expectFailure(
      h.client.changePassword({ ...caller(current), currentPassword: person.password, newPassword: "short" }),
      Code.InvalidArgument,
      "INVALID_ARGUMENT",
    );
    await expectFailure(
      h.client.changePassword({ ...caller(current), currentPassword: person.password, newPassword: "x".repeat(129) }),
      Code.InvalidArgument,
      "INVALID_ARGUMENT",
    );
    for (const token of others) await h.client.authenticate({ token });

    await h.client.changePassword({ ...caller(current), currentPassword: person.password, newPassword });
    for (const token of others) await expectInvalidToken(token);
    await h.client.authenticate({ token: current });
    await expectFailure(
      h.client.login({ email: person.email, password: person.password, transport: "bearer", clientIp: randomIp() }),
      Code.Unauthenticated,
      "AUTH_INVALID_CREDENTIALS",
    );
    expect((await h.client.login({ email: person.email, password: newPassword, transport: "bearer", clientIp: randomIp() })).result.case).toBe(
      "authenticated",
    );
  });

  it("refuses a guessable new password or one containing the email's name, keeping the old one", async () => {
    const person = await member();
    const token = await signIn(h, person);
    const local = person.email.slice(0, person.email.indexOf("@"));
    for (const [newPassword, why] of [
      ["password1234", "new_password is too common or easy to guess"],
      ["Password1234!", "new_password is too common or easy to guess"],
      [`${local.toUpperCase()}-2024!`, "new_password must not contain the email address's name"],
    ] as const) {
      const error = await expectFailure(
        h.client.changePassword({ ...caller(token), currentPassword: person.password, newPassword }),
        Code.InvalidArgument,
        "INVALID_ARGUMENT",
      );
      expect(error.rawMessage).toContain(why);
      expect(error.rawMessage.toLowerCase()).not.toContain(newPassword.toLowerCase());
    }
    await h.client.authenticate({ token });
    expect((await h.client.login({ email: person.email, password: person.password, transport: "bearer", clientIp: randomIp() })).result.case).toBe(
      "authenticated",
    );
  });

  it("needs a live session", async () => {
    await expectFailure(
      h.client.changePassword({ currentPassword: "whatever password", newPassword: "another long password" }),
      Code.Unauthenticated,
      "AUTH_INVALID_TOKEN",
    );
  });
});
