/**
 * Human authentication through the API gateway, end to end on the real platform:
 * sign-in (bearer and cookie), MFA challenges with TOTP and recovery codes,
 * the cookie XOR bearer rule, CSRF on cookie sessions, sessions (read, list,
 * revoke, logout), password change, TOTP enrolment, throttling, and merchant
 * members using the pay-in operations of their own merchant.
 *
 * Sign-in throttling counts failed attempts per client IP, so each group of tests
 * connects from its own loopback address (127.0.0.x).
 */
import { randomBytes, randomUUID } from "node:crypto";
import net from "node:net";
import pg from "pg";
import { awaitFreshTotpStep, totpCodeAt, totpSecretOf, totpStepAt } from "@payin/testing";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  bootstrapAdmin,
  type BootstrappedAdmin,
  createBody,
  expectError,
  expectKeys,
  expectSecretsAbsentFromLogs,
  HumanApi,
  type HumanResponse,
  intentsPath,
  ISO_UTC,
  newKey,
  type TestMerchant,
  usePlatform,
  UUID,
} from "./support.js";

const AUTHENTICATED_KEYS = ["csrf_token", "identity", "roles", "status", "token", "token_type", "transport"];
const SESSION_KEYS = ["absolute_expires_at", "csrf_token", "expires_at", "identity", "mfa_satisfied", "primary_authenticated_at", "roles"];
const SESSION_ITEM_KEYS = ["absolute_expires_at", "created_at", "current", "expires_at", "mfa_satisfied", "primary_authenticated_at", "session_uuid", "transport"];
const IDENTITY_KEYS = ["email", "roles", "status", "uuid"];
const COOKIE_NAME = "__Host-payin_session";

/** The one address whose X-Forwarded-For the gateway believes here. */
const TRUSTED_PROXY = "127.0.0.200";

// 127.0.0.200 plays a load balancer in front of the gateway (see the trusted proxy tests).
const e2e = usePlatform({ env: { TRUSTED_PROXIES: TRUSTED_PROXY } });

let admin: BootstrappedAdmin;
/** An MFA-satisfied bearer session of the admin (set by the MFA tests). */
let adminToken = "";
let shopA: TestMerchant;
let shopB: TestMerchant;
/** Every password, token and TOTP secret this file used, for the log check. */
const secrets: string[] = [];
/** Recovery codes (too short for the generic check, checked on their own). */
const recoveryCodes: string[] = [];

/** Expects a 429 RATE_LIMITED with a Retry-After of whole seconds within [min, max]; answers it. */
function expectRateLimited(res: HumanResponse, min = 1, max = 24 * 60 * 60): number {
  expectError(res, 429, "RATE_LIMITED");
  const header = res.headers.get("retry-after") ?? "";
  expect(header, "Retry-After").toMatch(/^[1-9][0-9]*$/);
  const seconds = Number(header);
  expect(seconds).toBeGreaterThanOrEqual(min);
  expect(seconds).toBeLessThanOrEqual(max);
  return seconds;
}

/** A client connecting from 127.0.0.`n`. */
const from = (n: number) => new HumanApi(e2e.platform.apiUrl, `127.0.0.${n}`);

const newPassword = () => `pw-${randomBytes(12).toString("hex")}`;
const newEmail = (name: string) => `${name}-${randomBytes(4).toString("hex")}@example.com`;

/** Records the secrets of an authenticated response and returns its token. */
function keep(res: HumanResponse): string {
  expect(res.status, res.text).toBe(200);
  expect(res.body.status).toBe("authenticated");
  secrets.push(res.body.token, res.body.csrf_token);
  return res.body.token as string;
}

/** Creates an identity over RPC, acting as the MFA-satisfied admin. */
async function createIdentity(name: string, roles: string[]): Promise<{ uuid: string; email: string; password: string }> {
  const email = newEmail(name);
  const password = newPassword();
  secrets.push(password);
  const res = await e2e.operator.identity.createIdentity({ caller: { sessionToken: adminToken }, email, password, roles });
  return { uuid: res.identity!.uuid, email, password };
}

/** The audit events whose actor is `identityUuid`, oldest first (read as the admin). */
async function auditEventsBy(identityUuid: string): Promise<any[]> {
  const out: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const res = await e2e.api.request("GET", `/api/v1/admin/audit-events?limit=100&offset=${offset}`, { token: adminToken });
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.data.filter((e: any) => e.actor?.uuid === identityUuid));
    if (offset + 100 >= res.body.pagination.total) return out.reverse();
  }
}

/** Identity's sign-in security events in the platform's log so far. */
async function authEvents(): Promise<Record<string, unknown>[]> {
  const { captured } = await e2e.log.text();
  return captured
    .split("\n")
    .filter((line) => line.includes('"auth.'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** Identity's security events once `ready` says they are all there (polled; at most 10 s), or as they are then. */
async function authEventsWhen(ready: (events: Record<string, unknown>[]) => boolean): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const events = await authEvents();
    if (ready(events) || Date.now() >= deadline) return events;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The value and attributes of the one session cookie a response sets. */
function sessionCookieOf(res: HumanResponse): { value: string; attributes: string[] } {
  const cookies = res.setCookies.filter((c) => c.startsWith(`${COOKIE_NAME}=`));
  expect(cookies, res.setCookies.join(" | ")).toHaveLength(1);
  const [pair, ...attributes] = cookies[0]!.split(";").map((part) => part.trim());
  return { value: pair!.slice(COOKIE_NAME.length + 1), attributes };
}

beforeAll(async () => {
  admin = await bootstrapAdmin(e2e.operator);
  secrets.push(admin.password, admin.totpSecret);
  shopA = await e2e.operator.merchant({ name: "Member Shop" });
  shopB = await e2e.operator.merchant({ name: "Other Shop" });
}, 180_000);

describe("login validation (400)", () => {
  const cases: [string, unknown][] = [
    ["a password under 12 characters", { email: "a@example.com", password: "short-pw", transport: "bearer" }],
    ["a password over 128 characters", { email: "a@example.com", password: "p".repeat(129), transport: "bearer" }],
    ["an unknown transport", { email: "a@example.com", password: "long-enough-pw", transport: "header" }],
    ["no transport", { email: "a@example.com", password: "long-enough-pw" }],
    ["an extra field", { email: "a@example.com", password: "long-enough-pw", transport: "bearer", remember: true }],
    ["an email that is not one", { email: "not-an-email", password: "long-enough-pw", transport: "bearer" }],
    ["a password that is not a string", { email: "a@example.com", password: 123456789012, transport: "bearer" }],
  ];

  it.each(cases)("refuses %s with 400 VALIDATION_ERROR", async (_name, body) => {
    expectError(await from(2).request("POST", "/api/v1/auth/login", { json: body }), 400, "VALIDATION_ERROR");
  });

  it("refuses a body that is not JSON", async () => {
    const res = await from(2).request("POST", "/api/v1/auth/login", { headers: { "content-type": "text/plain" } });
    expectError(res, 415);
  });
});

describe("MFA sign-in of the bootstrapped admin", () => {
  let step = 0;

  it("answers mfa_required with a challenge token, no cookie and no session token", async () => {
    step = await awaitFreshTotpStep();
    const res = await from(3).login(admin.email, admin.password, "bearer");
    expect(res.status, res.text).toBe(200);
    expectKeys(res.body, ["mfa_challenge_token", "status"]);
    expect(res.body.status).toBe("mfa_required");
    expect(res.setCookies).toEqual([]);
    secrets.push(res.body.mfa_challenge_token);

    // The challenge is no session: refused at /auth/session, as bearer and as cookie.
    const challenge = res.body.mfa_challenge_token as string;
    expectError(await from(3).request("GET", "/api/v1/auth/session", { token: challenge }), 401);
    expectError(await from(3).request("GET", "/api/v1/auth/session", { cookie: challenge }), 401);
    expectError(await e2e.api.list(shopA.uuid, challenge), 401);

    const done = await from(3).completeMfa(challenge, totpCodeAt(admin.totpSecret, step - 1));
    adminToken = keep(done);
    expectKeys(done.body, AUTHENTICATED_KEYS);
    expect(done.body).toMatchObject({ status: "authenticated", transport: "bearer", token_type: "Bearer", roles: ["platform_admin"] });
    expectKeys(done.body.identity, IDENTITY_KEYS);
    expect(done.body.identity).toEqual({ uuid: admin.uuid, email: admin.email, status: "active", roles: ["platform_admin"] });
    expect(done.setCookies).toEqual([]);

    // A challenge completes once.
    expectError(await from(3).completeMfa(challenge, totpCodeAt(admin.totpSecret, step)), 401, "AUTH_INVALID_CREDENTIALS");
  });

  it("reads the MFA-satisfied session with exactly the contract's fields", async () => {
    const res = await from(3).request("GET", "/api/v1/auth/session", { token: adminToken });
    expect(res.status, res.text).toBe(200);
    expectKeys(res.body, SESSION_KEYS);
    expect(res.body.identity).toEqual({ uuid: admin.uuid, email: admin.email, status: "active", roles: ["platform_admin"] });
    expect(res.body.roles).toEqual(["platform_admin"]);
    expect(res.body.mfa_satisfied).toBe(true);
    for (const field of ["expires_at", "absolute_expires_at", "primary_authenticated_at"]) expect(res.body[field]).toMatch(ISO_UTC);
    expect(Date.parse(res.body.absolute_expires_at)).toBeGreaterThanOrEqual(Date.parse(res.body.expires_at));
    expect(res.body.csrf_token.length).toBeGreaterThan(20);
  });

  it("refuses a TOTP step already used, and the challenge still completes with a fresh one", async () => {
    const res = await from(3).login(admin.email, admin.password, "bearer");
    expect(res.body.status).toBe("mfa_required");
    const challenge = res.body.mfa_challenge_token as string;
    secrets.push(challenge);
    const replay = expectError(await from(3).completeMfa(challenge, totpCodeAt(admin.totpSecret, step - 1)), 401, "AUTH_INVALID_CREDENTIALS");
    expect(replay.message).not.toMatch(/step|used|replay/i);
    // It is the code that was wrong, not a password.
    expect(replay.message).not.toMatch(/password|email/i);
    expectError(await from(3).completeMfa(challenge, "000000x"), 401);
    keep(await from(3).completeMfa(challenge, totpCodeAt(admin.totpSecret, step)));
  });

  it("validates the MFA body and refuses an unknown challenge", async () => {
    const extra = { mfa_challenge_token: "x", code: "123456", trust_device: true };
    expectError(await from(3).request("POST", "/api/v1/auth/mfa", { json: extra }), 400, "VALIDATION_ERROR");
    expectError(await from(3).request("POST", "/api/v1/auth/mfa", { json: { code: "123456" } }), 400, "VALIDATION_ERROR");
    expectError(await from(3).completeMfa(randomBytes(32).toString("base64url"), "123456"), 401, "AUTH_INVALID_CREDENTIALS");
  });
});

describe("signed-in people", () => {
  let alice: { uuid: string; email: string; password: string };
  let bob: { uuid: string; email: string; password: string };
  let olga: { uuid: string; email: string; password: string };

  beforeAll(async () => {
    expect(adminToken, "the MFA tests sign the admin in").not.toBe("");
    alice = await createIdentity("alice", ["merchant_member"]);
    bob = await createIdentity("bob", ["merchant_member"]);
    olga = await createIdentity("olga", ["platform_operator"]);
    await e2e.operator.merchants.ensureMember({ merchantUuid: shopA.uuid, identityUuid: alice.uuid });
    await e2e.operator.merchants.ensureMember({ merchantUuid: shopA.uuid, identityUuid: olga.uuid });
  });

  it("answers a wrong password and an unknown email alike", async () => {
    const wrong = expectError(await from(4).login(alice.email, newPassword()), 401, "AUTH_INVALID_CREDENTIALS");
    const unknown = expectError(await from(4).login(newEmail("nobody"), newPassword()), 401, "AUTH_INVALID_CREDENTIALS");
    expect(unknown.message).toBe(wrong.message);
  });

  describe("cookie transport", () => {
    let cookie = "";
    let csrf = "";

    it("sets the __Host- session cookie (Secure, HttpOnly, SameSite=Lax, Path=/, no Domain)", async () => {
      const res = await from(5).login(alice.email, alice.password, "cookie");
      keep(res);
      expectKeys(res.body, AUTHENTICATED_KEYS);
      expect(res.body).toMatchObject({ transport: "cookie", token_type: "Bearer", roles: ["merchant_member"] });
      const { value, attributes } = sessionCookieOf(res);
      expect(value).toBe(res.body.token);
      const names = attributes.map((a) => a.split("=")[0]!.toLowerCase());
      expect(names).toEqual(expect.arrayContaining(["path", "secure", "httponly", "samesite", "max-age"]));
      expect(names).not.toContain("domain");
      expect(attributes).toContain("Path=/");
      expect(attributes).toContain("SameSite=Lax");
      const maxAge = Number(attributes.find((a) => a.startsWith("Max-Age="))!.slice(8));
      expect(maxAge).toBeGreaterThan(11 * 3600);
      expect(maxAge).toBeLessThanOrEqual(12 * 3600);
      cookie = value;
      csrf = res.body.csrf_token;
    });

    it("reads the session with the cookie", async () => {
      const res = await from(5).request("GET", "/api/v1/auth/session", { cookie });
      expect(res.status, res.text).toBe(200);
      expectKeys(res.body, SESSION_KEYS);
      expect(res.body.csrf_token).toBe(csrf);
      expect(res.body.mfa_satisfied).toBe(false);
      expect(res.body.identity.uuid).toBe(alice.uuid);
    });

    it("refuses the cookie and a bearer token together (400), and the cookie's token as a bearer (401)", async () => {
      const both = await from(5).request("GET", "/api/v1/auth/session", { cookie, token: cookie });
      expectError(both, 400, "AUTH_AMBIGUOUS");
      expectError(await from(5).request("GET", intentsPath(shopA.uuid), { cookie, token: shopA.token }), 400, "AUTH_AMBIGUOUS");
      expectError(await from(5).request("GET", "/api/v1/auth/session", { token: cookie }), 401);
    });

    it("never treats a machine token sent as the cookie as a session", async () => {
      expectError(await from(5).request("GET", "/api/v1/auth/session", { cookie: shopA.token }), 401);
      expectError(await from(5).request("GET", intentsPath(shopA.uuid), { cookie: shopA.token }), 401);
    });

    it("needs X-CSRF-Token matching the session on a state-changing request", async () => {
      const path = intentsPath(shopA.uuid);
      const post = (extra: { csrf?: string }) =>
        from(5).request("POST", path, { cookie, json: createBody(), headers: { "idempotency-key": newKey() }, ...extra });
      expectError(await post({}), 403, "CSRF_TOKEN_INVALID");
      expectError(await post({ csrf: `${csrf}x` }), 403, "CSRF_TOKEN_INVALID");
      expectError(await post({ csrf: randomBytes(32).toString("base64url") }), 403, "CSRF_TOKEN_INVALID");
      const created = await post({ csrf });
      expect(created.status, created.text).toBe(201);
      // Reads need none.
      const read = await from(5).request("GET", `${path}/${created.body.intent_uuid}`, { cookie });
      expect(read.status, read.text).toBe(200);
      // Logout is state-changing too; refused, it changes nothing, the cookie included.
      const refused = await from(5).request("POST", "/api/v1/auth/logout", { cookie });
      expectError(refused, 403, "CSRF_TOKEN_INVALID");
      expect(refused.setCookies).toEqual([]);
      expect(refused.headers.get("clear-site-data")).toBeNull();
      expect((await from(5).request("GET", "/api/v1/auth/session", { cookie })).status).toBe(200);
    });

    it("logs out with the CSRF token, clears the cookie, and the session is gone", async () => {
      const res = await from(5).request("POST", "/api/v1/auth/logout", { cookie, csrf });
      expect(res.status, res.text).toBe(204);
      const cleared = sessionCookieOf(res);
      expect(cleared.value).toBe("");
      expect(cleared.attributes).toContain("Max-Age=0");
      expect(res.headers.get("clear-site-data")).toBe('"cookies"');
      expectError(await from(5).request("GET", "/api/v1/auth/session", { cookie }), 401);
    });
  });

  describe("bearer transport", () => {
    it("needs no CSRF token, and logout ends the session at once", async () => {
      const token = keep(await from(6).login(alice.email, alice.password, "bearer"));
      const login = await from(6).request("GET", "/api/v1/auth/session", { token });
      expect(login.status).toBe(200);
      expect(login.setCookies).toEqual([]);
      const created = await e2e.api.create(shopA.uuid, token, createBody());
      expect(created.status, created.text).toBe(201);
      const logout = await from(6).request("POST", "/api/v1/auth/logout", { token });
      expect(logout.status, logout.text).toBe(204);
      expect(logout.setCookies).toEqual([]);
      // No cookie, nothing for the browser to clear.
      expect(logout.headers.get("clear-site-data")).toBeNull();
      expectError(await from(6).request("GET", "/api/v1/auth/session", { token }), 401);
      expectError(await e2e.api.list(shopA.uuid, token), 401);
    });
  });

  describe("merchant members and pay-ins", () => {
    it("lets a member create, list and read its merchant's pay-ins with a bearer session", async () => {
      const token = keep(await from(7).login(alice.email, alice.password, "bearer"));
      const body = createBody({ reference: "member-order-1" });
      const key = newKey();
      const created = await e2e.api.create(shopA.uuid, token, body, key);
      expect(created.status, created.text).toBe(201);
      expect(created.body.status).toBe("created");
      const replay = await e2e.api.create(shopA.uuid, token, body, key);
      expect(replay.status).toBe(201);
      expect(replay.body.intent_uuid).toBe(created.body.intent_uuid);

      const read = await e2e.api.read(shopA.uuid, token, created.body.intent_uuid);
      expect(read.status, read.text).toBe(200);
      expect(read.body).toMatchObject({ merchant_uuid: shopA.uuid, reference: "member-order-1" });
      const list = await e2e.api.list(shopA.uuid, token, "limit=100");
      expect(list.status).toBe(200);
      expect(list.body.data.map((i: { intent_uuid: string }) => i.intent_uuid)).toContain(created.body.intent_uuid);

      // The merchant's machine credential sees what the member created.
      expect((await e2e.api.read(shopA.uuid, shopA.token, created.body.intent_uuid)).status).toBe(200);

      // Another merchant: 403 for all three, before the body is looked at.
      expectError(await e2e.api.create(shopB.uuid, token, createBody()), 403, "FORBIDDEN");
      expectError(await e2e.api.create(shopB.uuid, token, { nonsense: true }, null), 403, "FORBIDDEN");
      expectError(await e2e.api.list(shopB.uuid, token), 403, "FORBIDDEN");
      expectError(await e2e.api.read(shopB.uuid, token, created.body.intent_uuid), 403, "FORBIDDEN");
      expectError(await e2e.api.read(randomUUID(), token, created.body.intent_uuid), 403, "FORBIDDEN");
      expect(await e2e.api.total(shopB)).toBe(0);
    });

    it("refuses a person who is no member (403), and a member without the pay-in permissions (403)", async () => {
      const bobToken = keep(await from(7).login(bob.email, bob.password, "bearer"));
      expectError(await e2e.api.create(shopA.uuid, bobToken, createBody()), 403, "FORBIDDEN");
      expectError(await e2e.api.list(shopA.uuid, bobToken), 403, "FORBIDDEN");
      const olgaToken = keep(await from(7).login(olga.email, olga.password, "bearer"));
      expectError(await e2e.api.create(shopA.uuid, olgaToken, createBody()), 403, "FORBIDDEN");
      expectError(await e2e.api.list(shopA.uuid, olgaToken), 403, "FORBIDDEN");
      expectError(await e2e.api.read(shopA.uuid, olgaToken, randomUUID()), 403, "FORBIDDEN");
      // The admin administers the platform but is no merchant member.
      expectError(await e2e.api.list(shopA.uuid, adminToken), 403, "FORBIDDEN");
    });
  });

  describe("own sessions and password", () => {
    it("lists own sessions without any token, and revokes one (another's is 404)", async () => {
      const first = keep(await from(8).login(bob.email, bob.password, "bearer"));
      const second = keep(await from(8).login(bob.email, bob.password, "cookie"));
      const secondUuid = ((await from(8).request("GET", "/api/v1/auth/sessions", { cookie: second })).body.data as { current: boolean; session_uuid: string }[])
        .find((s) => s.current)!.session_uuid;

      const res = await from(8).request("GET", "/api/v1/auth/sessions?limit=100", { token: first });
      expect(res.status, res.text).toBe(200);
      expectKeys(res.body, ["data", "pagination"]);
      const sessions = res.body.data as Record<string, unknown>[];
      expect(sessions.length).toBeGreaterThanOrEqual(2);
      expect(res.body.pagination).toEqual({ total: sessions.length, limit: 100, offset: 0 });
      // Newest first, paged like every list.
      expect(sessions.map((s) => s.created_at)).toEqual([...sessions.map((s) => s.created_at as string)].sort().reverse());
      const page = await from(8).request("GET", "/api/v1/auth/sessions?limit=1&offset=1", { token: first });
      expect(page.body).toEqual({ data: [sessions[1]], pagination: { total: sessions.length, limit: 1, offset: 1 } });
      expect((await from(8).request("GET", "/api/v1/auth/sessions", { token: first })).body.pagination).toMatchObject({ limit: 20, offset: 0 });
      const past = await from(8).request("GET", `/api/v1/auth/sessions?offset=${sessions.length}`, { token: first });
      expect(past.body).toEqual({ data: [], pagination: { total: sessions.length, limit: 20, offset: sessions.length } });
      for (const query of ["limit=0", "limit=101", "offset=-1", "limit=ten", "since=yesterday"]) {
        expectError(await from(8).request("GET", `/api/v1/auth/sessions?${query}`, { token: first }), 400, "VALIDATION_ERROR");
      }
      for (const s of sessions) {
        expectKeys(s, SESSION_ITEM_KEYS);
        expect(s.session_uuid).toMatch(UUID);
        expect(s.created_at).toMatch(ISO_UTC);
      }
      expect(sessions.filter((s) => s.current)).toHaveLength(1);
      expect(sessions.find((s) => s.session_uuid === secondUuid)).toMatchObject({ current: false, transport: "cookie" });
      for (const secret of [first, second]) expect(res.text).not.toContain(secret);
      expect(res.text).not.toContain("csrf");

      // Another person's session, an unknown one and a malformed uuid: 404.
      const aliceToken = keep(await from(8).login(alice.email, alice.password, "bearer"));
      const aliceSessions = (await from(8).request("GET", "/api/v1/auth/sessions", { token: aliceToken })).body.data as { session_uuid: string }[];
      for (const uuid of [aliceSessions[0]!.session_uuid, randomUUID(), "not-a-uuid"]) {
        expectError(await from(8).request("DELETE", `/api/v1/auth/sessions/${uuid}`, { token: first }), 404, "SESSION_NOT_FOUND");
      }
      expect((await from(8).request("GET", "/api/v1/auth/session", { token: aliceToken })).status).toBe(200);

      const revoked = await from(8).request("DELETE", `/api/v1/auth/sessions/${secondUuid}`, { token: first });
      expect(revoked.status, revoked.text).toBe(204);
      expectError(await from(8).request("GET", "/api/v1/auth/session", { cookie: second }), 401);
      expectError(await from(8).request("DELETE", `/api/v1/auth/sessions/${secondUuid}`, { token: first }), 404);
      expect((await from(8).request("GET", "/api/v1/auth/session", { token: first })).status).toBe(200);
    });

    it("changes the password: 401 on a wrong current one, other sessions revoked at once", async () => {
      const kept = keep(await from(9).login(bob.email, bob.password, "bearer"));
      const other = keep(await from(9).login(bob.email, bob.password, "bearer"));
      const change = (json: unknown) => from(9).request("POST", "/api/v1/auth/password", { token: kept, json });
      const next = newPassword();
      secrets.push(next);

      const wrong = expectError(await change({ current_password: newPassword(), new_password: next }), 401, "AUTH_INVALID_CREDENTIALS");
      expect(wrong.message).toBe("current password is incorrect");
      // current_password is any string (the contract bounds only new passwords): one that cannot match is a wrong one.
      expectError(await change({ current_password: "", new_password: next }), 401, "AUTH_INVALID_CREDENTIALS");
      expectError(await change({ current_password: "x".repeat(200), new_password: next }), 401, "AUTH_INVALID_CREDENTIALS");
      expectError(await change({ new_password: next }), 400, "VALIDATION_ERROR");
      expectError(await change({ current_password: bob.password, new_password: "too-short" }), 400, "VALIDATION_ERROR");
      expectError(await change({ current_password: bob.password, new_password: next, logout_others: false }), 400, "VALIDATION_ERROR");
      expect((await from(9).request("GET", "/api/v1/auth/session", { token: other })).status).toBe(200);

      const res = await change({ current_password: bob.password, new_password: next });
      expect(res.status, res.text).toBe(204);
      expectError(await from(9).request("GET", "/api/v1/auth/session", { token: other }), 401);
      expect((await from(9).request("GET", "/api/v1/auth/session", { token: kept })).status).toBe(200);
      expectError(await from(9).login(bob.email, bob.password), 401, "AUTH_INVALID_CREDENTIALS");
      keep(await from(9).login(bob.email, next));
      bob.password = next;

      // Audited: the refused attempts (401) and the change (identity's record, delivered by its relay), never a password.
      const events = await vi.waitFor(
        async () => {
          const found = (await auditEventsBy(bob.uuid)).filter((e) => e.action === "identity.password.change");
          expect(found.map((e) => [e.outcome, e.error_code, e.target_type, e.target_uuid])).toEqual([
            ["failed", "AUTH_INVALID_CREDENTIALS", "identity", bob.uuid],
            ["failed", "AUTH_INVALID_CREDENTIALS", "identity", bob.uuid],
            ["failed", "AUTH_INVALID_CREDENTIALS", "identity", bob.uuid],
            ["succeeded", null, "identity", bob.uuid],
          ]);
          return found;
        },
        { timeout: 10_000, interval: 200 },
      );
      expect(JSON.stringify(events)).not.toContain(next);
    });

    it("refuses a guessable new password or one containing the email's name (400), keeping the old one", async () => {
      const maria = await createIdentity("maria.santos", ["merchant_member"]);
      const token = keep(await from(17).login(maria.email, maria.password, "bearer"));
      const change = (newPass: string) =>
        from(17).request("POST", "/api/v1/auth/password", { token, json: { current_password: maria.password, new_password: newPass } });
      const local = maria.email.slice(0, maria.email.indexOf("@"));
      for (const [weak, why] of [
        ["password1234", /too common or easy to guess/],
        ["Password1234!", /too common or easy to guess/],
        [`${local}-2024!`, /must not contain the email address's name/],
      ] as const) {
        const error = expectError(await change(weak), 400, "VALIDATION_ERROR");
        expect(error.message).toMatch(why);
        expect(error.message).not.toContain(weak);
      }
      keep(await from(17).login(maria.email, maria.password));
    });
  });

  describe("signing in again", () => {
    const login = (presenting: { token?: string; cookie?: string }, transport: "cookie" | "bearer", who = alice) =>
      from(16).request("POST", "/api/v1/auth/login", { ...presenting, json: { email: who.email, password: who.password, transport } });
    const sessionStatus = async (presenting: { token?: string; cookie?: string }) => (await from(16).request("GET", "/api/v1/auth/session", presenting)).status;

    it("ends the bearer session a sign-in presents; the new session works", async () => {
      const old = keep(await from(16).login(alice.email, alice.password, "bearer"));
      const again = await login({ token: old }, "bearer");
      const fresh = keep(again);
      expect(fresh).not.toBe(old);
      expectError(await from(16).request("GET", "/api/v1/auth/session", { token: old }), 401, "AUTH_INVALID_CREDENTIALS");
      expect(await sessionStatus({ token: fresh })).toBe(200);
    });

    it("ends the cookie session a sign-in presents, also for another person", async () => {
      const old = keep(await from(16).login(alice.email, alice.password, "cookie"));
      const again = await login({ cookie: old }, "cookie", bob);
      const fresh = keep(again);
      expect(sessionCookieOf(again).value).toBe(fresh);
      expectError(await from(16).request("GET", "/api/v1/auth/session", { cookie: old }), 401, "AUTH_INVALID_CREDENTIALS");
      const session = await from(16).request("GET", "/api/v1/auth/session", { cookie: fresh });
      expect(session.status, session.text).toBe(200);
      expect(session.body.identity.uuid).toBe(bob.uuid);
    });

    it("refuses a sign-in that presents both the cookie and a bearer token (400 AUTH_AMBIGUOUS), as every route does, ending neither", async () => {
      const cookie = keep(await from(16).login(alice.email, alice.password, "cookie"));
      const token = keep(await from(16).login(bob.email, bob.password, "bearer"));
      for (const transport of ["cookie", "bearer"] as const) {
        const refused = await login({ cookie, token }, transport);
        expectError(refused, 400, "AUTH_AMBIGUOUS");
        expect(refused.setCookies).toEqual([]);
      }
      expect(await sessionStatus({ cookie })).toBe(200);
      expect(await sessionStatus({ token })).toBe(200);
    });

    it("signs in whatever else was presented: an unknown token, a machine token; a refused sign-in ends nothing", async () => {
      keep(await login({ token: randomBytes(32).toString("base64url") }, "bearer"));
      keep(await login({ cookie: randomBytes(32).toString("base64url") }, "cookie"));
      keep(await login({ token: shopA.token }, "bearer"));
      // A machine token is no session: it keeps working.
      expect((await e2e.api.list(shopA.uuid, shopA.token)).status).toBe(200);
      const kept = keep(await from(16).login(alice.email, alice.password, "bearer"));
      const refused = await from(16).request("POST", "/api/v1/auth/login", { token: kept, json: { email: alice.email, password: newPassword(), transport: "bearer" } });
      expectError(refused, 401, "AUTH_INVALID_CREDENTIALS");
      expect(await sessionStatus({ token: kept })).toBe(200);
    });
  });

  describe("TOTP enrolment", () => {
    it("enrols TOTP, returns 10 recovery codes once, and every later login asks for MFA", async () => {
      const carol = await createIdentity("carol", ["merchant_member"]);
      const client = from(10);
      const cookieLogin = await client.login(carol.email, carol.password, "cookie");
      const cookie = keep(cookieLogin);
      // Enrolment changes state: a cookie session needs the CSRF token.
      expectError(await client.request("POST", "/api/v1/auth/mfa/totp", { cookie }), 403, "CSRF_TOKEN_INVALID");
      const enrol = await client.request("POST", "/api/v1/auth/mfa/totp", { cookie, csrf: cookieLogin.body.csrf_token, json: { current_password: carol.password } });
      expect(enrol.status, enrol.text).toBe(200);
      expectKeys(enrol.body, ["otpauth_uri"]);
      expect(enrol.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\//);
      const secret = totpSecretOf(enrol.body.otpauth_uri);
      secrets.push(secret);

      const confirm = (code: string) => client.request("POST", "/api/v1/auth/mfa/totp/confirm", { cookie, csrf: cookieLogin.body.csrf_token, json: { code } });
      const wrong = totpCodeAt(secret, totpStepAt() + 5);
      expectError(await confirm(wrong), 400, "TOTP_CODE_INVALID");
      const confirmed = await confirm(totpCodeAt(secret, totpStepAt()));
      expect(confirmed.status, confirmed.text).toBe(200);
      expectKeys(confirmed.body, ["recovery_codes"]);
      const codes = confirmed.body.recovery_codes as string[];
      expect(codes).toHaveLength(10);
      expect(new Set(codes).size).toBe(10);
      recoveryCodes.push(...codes);
      expectError(await confirm(totpCodeAt(secret, totpStepAt())), 409, "TOTP_ALREADY_ENROLLED");

      // From now on: mfa_required, completed here with a recovery code, which works once.
      const login = await client.login(carol.email, carol.password, "cookie");
      expect(login.status).toBe(200);
      expect(login.body.status).toBe("mfa_required");
      expect(login.setCookies).toEqual([]);
      secrets.push(login.body.mfa_challenge_token);
      const done = await client.completeMfa(login.body.mfa_challenge_token, codes[0]!);
      keep(done);
      expect(done.body.transport).toBe("cookie");
      expect(sessionCookieOf(done).value).toBe(done.body.token);
      const session = await client.request("GET", "/api/v1/auth/session", { cookie: done.body.token });
      expect(session.body.mfa_satisfied).toBe(true);

      const again = await client.login(carol.email, carol.password, "bearer");
      secrets.push(again.body.mfa_challenge_token);
      expectError(await client.completeMfa(again.body.mfa_challenge_token, codes[0]!), 401, "AUTH_INVALID_CREDENTIALS");
      const bearer = await client.completeMfa(again.body.mfa_challenge_token, codes[1]!.toLowerCase());
      keep(bearer);
      expect(bearer.body.transport).toBe("bearer");
      expect(bearer.setCookies).toEqual([]);

      // Audited: enrolment started, the wrong code, the confirmation, the repeat (a CSRF refusal stops before any change is tried).
      const events = await vi.waitFor(
        async () => {
          const found = (await auditEventsBy(carol.uuid)).filter((e) => e.action.startsWith("identity.totp."));
          expect(found.map((e) => [e.action, e.outcome, e.error_code])).toEqual([
            ["identity.totp.start", "succeeded", null],
            ["identity.totp.confirm", "failed", "TOTP_CODE_INVALID"],
            ["identity.totp.confirm", "succeeded", null],
            ["identity.totp.confirm", "failed", "TOTP_ALREADY_ENROLLED"],
          ]);
          return found;
        },
        { timeout: 10_000, interval: 200 },
      );
      const recorded = JSON.stringify(events);
      for (const code of codes) expect(recorded).not.toContain(code);
    });
  });

  describe("throttling (429)", () => {
    it("refuses sign-in for an email from one address after 5 failures, even with the right password, but not the owner elsewhere", async () => {
      const dave = await createIdentity("dave", ["merchant_member"]);
      const client = from(11);
      for (let i = 0; i < 5; i++) expectError(await client.login(dave.email, newPassword()), 401, "AUTH_INVALID_CREDENTIALS");
      // Until the failures leave the 15 minutes.
      expectRateLimited(await client.login(dave.email, dave.password), 15 * 60 - 60, 15 * 60);
      // Per email and address: the owner signs in from another one, and this one stays refused.
      keep(await from(12).login(dave.email, dave.password));
      expectRateLimited(await client.login(dave.email, dave.password), 15 * 60 - 60, 15 * 60);
    });

    it("refuses MFA completion after repeated wrong codes, even with the right one", async () => {
      const erin = await createIdentity("erin", ["merchant_member"]);
      const client = from(15);
      const bearer = keep(await client.login(erin.email, erin.password, "bearer"));
      const enrol = await client.request("POST", "/api/v1/auth/mfa/totp", { token: bearer, json: { current_password: erin.password } });
      expect(enrol.status, enrol.text).toBe(200);
      const secret = totpSecretOf(enrol.body.otpauth_uri);
      secrets.push(secret);
      const confirmed = await client.request("POST", "/api/v1/auth/mfa/totp/confirm", { token: bearer, json: { code: totpCodeAt(secret, totpStepAt()) } });
      expect(confirmed.status, confirmed.text).toBe(200);
      recoveryCodes.push(...(confirmed.body.recovery_codes as string[]));

      const login = await client.login(erin.email, erin.password, "bearer");
      expect(login.body.status).toBe("mfa_required");
      const challenge = login.body.mfa_challenge_token as string;
      secrets.push(challenge);
      const wrong = totpCodeAt(secret, totpStepAt() + 7);
      for (let i = 0; i < 5; i++) expectError(await client.completeMfa(challenge, wrong), 401, "AUTH_INVALID_CREDENTIALS");
      expectRateLimited(await client.completeMfa(challenge, totpCodeAt(secret, totpStepAt())));
      // The wrong codes count for the email from this address: its sign-in is throttled as well …
      expectRateLimited(await client.login(erin.email, erin.password, "bearer"), 15 * 60 - 60, 15 * 60);
      // … but not the owner's from another address.
      const elsewhere = await from(18).login(erin.email, erin.password, "bearer");
      expect(elsewhere.status, elsewhere.text).toBe(200);
      expect(elsewhere.body.status).toBe("mfa_required");
      secrets.push(elsewhere.body.mfa_challenge_token);
    });

    it(`lifts the cap of ${100} consecutive failures when an admin forgives them (POST /admin/identities/{uuid}/sign-in-failures/reset)`, async () => {
      const heidi = await createIdentity("heidi", ["merchant_member"]);
      // 100 failures from another address, recorded as identity records them: reaching the cap by
      // signing in would wait through the growing delays.
      const db = new pg.Client({ connectionString: e2e.platform.databaseUrl });
      await db.connect();
      try {
        await db.query(
          `insert into identity.login_attempts (email, client_ip, attempted_at, outcome) select $1, '198.51.100.77', now(), 'failed' from generate_series(1, 100)`,
          [heidi.email.toLowerCase()],
        );
      } finally {
        await db.end();
      }
      const client = from(21);
      // At the cap: refused, even with the right password from a fresh address, for the better part of a day.
      expectRateLimited(await client.login(heidi.email, heidi.password), 15 * 60 + 1);

      const reset = await e2e.api.request("POST", `/api/v1/admin/identities/${heidi.uuid}/sign-in-failures/reset`, { token: adminToken });
      expect(reset.status, reset.text).toBe(200);
      expect(reset.body).toEqual({ identity: { uuid: heidi.uuid, email: heidi.email, status: "active", roles: ["merchant_member"] }, forgiven_failures: 100 });
      keep(await client.login(heidi.email, heidi.password));
      // Audited under the admin, naming the identity (identity's outbox relay delivers it shortly after).
      await vi.waitFor(
        async () => {
          const audited = (await auditEventsBy(admin.uuid)).filter((e) => e.action === "identity.sign_in_failures.reset");
          expect(audited.map((e) => [e.outcome, e.target_type, e.target_uuid])).toEqual([["succeeded", "identity", heidi.uuid]]);
        },
        { timeout: 10_000, interval: 100 },
      );
      // An unknown identity is 404; one without identity.manage is 403.
      expectError(await e2e.api.request("POST", `/api/v1/admin/identities/${randomUUID()}/sign-in-failures/reset`, { token: adminToken }), 404, "IDENTITY_NOT_FOUND");
      const member = keep(await from(22).login(heidi.email, heidi.password));
      expectError(await e2e.api.request("POST", `/api/v1/admin/identities/${heidi.uuid}/sign-in-failures/reset`, { token: member }), 403, "FORBIDDEN");
    });

    it("refuses sign-in from a client address after too many attempts", async () => {
      const client = from(13);
      let status = 0;
      for (let i = 0; i < 150 && status !== 429; i++) {
        const res = await client.login(newEmail("spray"), newPassword());
        status = res.status;
        if (status !== 429) expectError(res, 401, "AUTH_INVALID_CREDENTIALS");
        else expectRateLimited(res, 1, 15 * 60);
      }
      expect(status).toBe(429);
      // Another address is unaffected.
      expectError(await from(14).login(newEmail("spray"), newPassword()), 401, "AUTH_INVALID_CREDENTIALS");
    });

    it("ignores X-Forwarded-For from an address that is no trusted proxy", async () => {
      const frank = await createIdentity("frank", ["merchant_member"]);
      const client = from(19);
      const forwarded = (n: number) => ({ headers: { "x-forwarded-for": `198.51.100.${n}` } });
      const login = (password: string, n: number) =>
        client.request("POST", "/api/v1/auth/login", { ...forwarded(n), json: { email: frank.email, password, transport: "bearer" } });
      for (let i = 0; i < 5; i++) expectError(await login(newPassword(), i), 401, "AUTH_INVALID_CREDENTIALS");
      // Each claimed another address; all were counted for 127.0.0.19.
      expectRateLimited(await login(frank.password, 9), 15 * 60 - 60, 15 * 60);
    });

    it("counts the forwarded client address behind a trusted proxy, and logs it in the security events", async () => {
      const grace = await createIdentity("grace", ["merchant_member"]);
      const proxy = new HumanApi(e2e.platform.apiUrl, TRUSTED_PROXY);
      const login = (password: string, client: string) =>
        proxy.request("POST", "/api/v1/auth/login", { headers: { "x-forwarded-for": client }, json: { email: grace.email, password, transport: "bearer" } });
      for (let i = 0; i < 5; i++) expectError(await login(newPassword(), "198.51.100.7"), 401, "AUTH_INVALID_CREDENTIALS");
      const refused = await login(grace.password, "198.51.100.7");
      expectRateLimited(refused, 15 * 60 - 60, 15 * 60);
      // Another client behind the same proxy is another address: the owner gets in.
      keep(await login(grace.password, "198.51.100.8"));

      // Identity logged the refusal with the forwarded address, the identity and the request id
      // (the log reaches the file when the child process writes it: polled, not waited for).
      const events = await authEventsWhen((all) => all.filter((e) => e.identity_uuid === grace.uuid).length >= 7);
      expect(events.find((e) => e.requestId === refused.headers.get("x-request-id"))).toMatchObject({
        event: "auth.throttled",
        identity_uuid: grace.uuid,
        client_ip: "198.51.100.7",
        limit: "email_client_ip",
        step: "login",
      });
      const mine = events.filter((e) => e.identity_uuid === grace.uuid).map((e) => [e.event, e.client_ip]);
      expect(mine).toEqual([
        ...Array.from({ length: 5 }, () => ["auth.login.failed", "198.51.100.7"]),
        ["auth.throttled", "198.51.100.7"],
        ["auth.login.succeeded", "198.51.100.8"],
      ]);
    });
  });
});

describe("response headers", () => {
  const expectSecurityHeaders = (headers: Headers, what: string) => {
    expect(headers.get("content-security-policy"), what).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(headers.get("referrer-policy"), what).toBe("no-referrer");
    expect(headers.get("x-content-type-options"), what).toBe("nosniff");
  };

  it("carries CSP, Referrer-Policy and nosniff on successes, errors, 404, 405, /health and the OpenAPI document", async () => {
    const success = await e2e.api.list(shopA.uuid, shopA.token);
    expect(success.status).toBe(200);
    expectSecurityHeaders(success.headers, "a success");
    expectSecurityHeaders(expectErrorResponse(await e2e.api.list(shopA.uuid, undefined), 401), "a 401");
    expectSecurityHeaders(expectErrorResponse(await e2e.api.request("GET", "/api/v1/nothing-here"), 404), "a 404");
    expectSecurityHeaders(expectErrorResponse(await e2e.api.request("PATCH", "/health"), 405), "a 405");
    const health = await e2e.api.request("GET", "/health");
    expect(health.status).toBe(200);
    expectSecurityHeaders(health.headers, "/health");
    const openApi = await e2e.api.request("GET", "/api/v1/openapi.json");
    expect(openApi.status).toBe(200);
    expectSecurityHeaders(openApi.headers, "/api/v1/openapi.json");
  });

  it("carries them on a request the HTTP parser refuses", async () => {
    // Raw bytes, and an answer kept out of the OpenAPI check on purpose: the
    // parser refuses the request before any route, so no operation answers it.
    const { hostname, port } = new URL(e2e.platform.apiUrl);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), hostname);
      const chunks: Buffer[] = [];
      socket.setTimeout(10_000, () => socket.destroy(new Error("no answer")));
      socket.on("data", (chunk: Buffer) => chunks.push(chunk));
      socket.on("error", reject);
      socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
      socket.write("GET /health HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n");
    });
    const [head] = text.split("\r\n\r\n");
    const lines = head!.split("\r\n");
    expect(lines[0]).toBe("HTTP/1.1 400 Bad Request");
    const headers = new Headers(lines.slice(1).map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()] as [string, string]));
    expectSecurityHeaders(headers, "a client-error answer");
  });
});

/** Checks the error envelope and returns the headers. */
function expectErrorResponse(res: Parameters<typeof expectError>[0], status: number): Headers {
  expectError(res, status);
  return res.headers;
}

describe("machine tokens on the session routes", () => {
  it("are never a human session (401)", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/auth/session"],
      ["GET", "/api/v1/auth/sessions"],
      ["POST", "/api/v1/auth/logout"],
      ["POST", "/api/v1/auth/mfa/totp"],
      ["DELETE", `/api/v1/auth/sessions/${randomUUID()}`],
    ] as const) {
      expectError(await from(15).request(method, path, { token: shopA.token }), 401);
    }
    expectError(await from(15).request("GET", "/api/v1/auth/session"), 401, "AUTH_INVALID_CREDENTIALS");
    // The machine token still works where it belongs.
    expect((await e2e.api.list(shopA.uuid, shopA.token)).status).toBe(200);
  });
});

describe("secrets", () => {
  it("never writes a password, token, TOTP secret or recovery code to the logs", async () => {
    await expectSecretsAbsentFromLogs(e2e.log, [...secrets, ...e2e.operator.tokens]);
    const { file, captured } = await e2e.log.text();
    for (const code of recoveryCodes) {
      expect(`${file ?? ""}${captured}`.includes(code)).toBe(false);
    }
  });
});
