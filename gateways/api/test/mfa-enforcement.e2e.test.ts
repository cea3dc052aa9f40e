/**
 * MFA for privileged identities, end to end on the real platform: a person with
 * an administrative permission who never enrolled TOTP can do nothing but read
 * their session, enrol (with their current password) and log out; changes that
 * move money or trust need MFA within the last 15 minutes (proved against a
 * gateway whose clock the test moves); an identity can be restored (activate).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes, randomUUID } from "node:crypto";
import { createLogger } from "@payin/logging";
import { allocationV1, identityV1, merchantsV1, notificationsV1, payinsV1 } from "@payin/proto";
import { createServiceClient } from "@payin/rpc";
import { totpCodeAt, totpSecretOf, totpStepAt } from "@payin/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../src/app.js";
import { Authenticator } from "../src/auth/authenticator.js";
import {
  Api,
  bootstrapAdmin,
  type BootstrappedAdmin,
  expectError,
  expectSecretsAbsentFromLogs,
  HumanApi,
  randomXpub,
  usePlatform,
} from "./support.js";

const A = "/api/v1/admin";
const MINUTE = 60_000;
const UNKNOWN_UUID = "01a2008d-7400-7000-8000-0000000000fe";

const e2e = usePlatform();
let human: HumanApi;
let first: BootstrappedAdmin;
let firstToken: string;
const secrets: string[] = [];

/** The last TOTP step used per secret: a step once used is refused again. */
const usedSteps = new Map<string, number>();

/** A code for a step not used yet (the current one, or the next, which identity accepts as ±1). */
async function freshTotp(secret: string): Promise<string> {
  const step = Math.max(totpStepAt(), (usedSteps.get(secret) ?? -1) + 1);
  while (step > totpStepAt() + 1) await new Promise((resolve) => setTimeout(resolve, 500));
  usedSteps.set(secret, step);
  return totpCodeAt(secret, step);
}

/** Signs in over HTTP (bearer), completing MFA when asked; answers the session token. */
async function signIn(email: string, password: string, secret?: string): Promise<string> {
  const login = await human.login(email, password, "bearer");
  expect(login.status, login.text).toBe(200);
  let token: string;
  if (login.body.status === "mfa_required") {
    secrets.push(login.body.mfa_challenge_token);
    const done = await human.completeMfa(login.body.mfa_challenge_token, await freshTotp(secret!));
    expect(done.status, done.text).toBe(200);
    token = done.body.token;
  } else {
    token = login.body.token;
  }
  secrets.push(token);
  return token;
}

interface Person {
  uuid: string;
  email: string;
  password: string;
  token: string;
  secret?: string;
}

/** Creates an identity over HTTP as the first admin and signs it in with the password alone. */
async function person(roles: string[]): Promise<Person> {
  const email = `mfa-${randomBytes(5).toString("hex")}@example.com`;
  const password = `pw-${randomBytes(12).toString("base64url")}`;
  secrets.push(password);
  const res = await e2e.api.request("POST", `${A}/identities`, { token: firstToken, json: { email, password, roles } });
  expect(res.status, res.text).toBe(201);
  return { uuid: res.body.identity.uuid, email, password, token: await signIn(email, password) };
}

/** Enrols TOTP over HTTP with the session `p.token`; answers the base32 secret. */
async function enrol(p: Person): Promise<string> {
  const started = await e2e.api.request("POST", "/api/v1/auth/mfa/totp", { token: p.token, json: { current_password: p.password } });
  expect(started.status, started.text).toBe(200);
  secrets.push(started.body.otpauth_uri);
  const secret = totpSecretOf(started.body.otpauth_uri);
  const confirmed = await e2e.api.request("POST", "/api/v1/auth/mfa/totp/confirm", { token: p.token, json: { code: await freshTotp(secret) } });
  expect(confirmed.status, confirmed.text).toBe(200);
  secrets.push(...(confirmed.body.recovery_codes as string[]));
  return secret;
}

/** A person with `roles`, enrolled, and signed in again completing MFA. */
async function personWithMfa(roles: string[]): Promise<Person> {
  const p = await person(roles);
  const secret = await enrol(p);
  return { ...p, secret, token: await signIn(p.email, p.password, secret) };
}

async function createMerchant(token = firstToken): Promise<string> {
  const res = await e2e.api.request("POST", `${A}/merchants`, { token, json: { display_name: "MFA Shop" } });
  expect(res.status, res.text).toBe(201);
  return res.body.merchant.uuid;
}

/**
 * Every administrative change that moves money or trust (recent MFA), with a body
 * that would pass validation, for the merchant `m` and target identity `target`.
 */
function moneyOrTrustRoutes(m: string, target: string, providerUuid: string): [string, string, unknown][] {
  const mp = `${A}/merchants/${m}`;
  return [
    ["POST", `${A}/identities`, { email: `x-${randomBytes(4).toString("hex")}@example.com`, password: "long-enough-password", roles: [] }],
    ["POST", `${A}/identities/${target}/disable`, undefined],
    ["POST", `${A}/identities/${target}/lock`, undefined],
    ["POST", `${A}/identities/${target}/activate`, undefined],
    ["DELETE", `${A}/identities/${target}/roles/merchant_member`, undefined],
    ["POST", `${A}/identities/${target}/sign-in-failures/reset`, undefined],
    ["POST", `${mp}/activate`, undefined],
    ["POST", `${mp}/deactivate`, undefined],
    ["POST", `${mp}/suspend`, undefined],
    ["POST", `${mp}/close`, undefined],
    ["PUT", `${mp}/members`, { identity_uuid: target }],
    ["POST", `${mp}/machine-credentials`, undefined],
    ["POST", `${mp}/machine-credentials/rotate`, undefined],
    ["POST", `${mp}/machine-credentials/${UNKNOWN_UUID}/revoke`, undefined],
    ["POST", `${A}/rules`, { capability: "crypto.payin", jurisdiction: "DE", effect: "allow" }],
    ["PUT", `${mp}/operating-profile`, { operating_mode: "non_custodial" }],
    ["POST", `${mp}/policies`, { scope: "payin", effect: "allow" }],
    ["POST", `${A}/providers`, { name: `provider-${randomBytes(4).toString("hex")}` }],
    ["PUT", `${mp}/provider-bindings`, { provider_uuid: providerUuid, capability: "crypto.payin", jurisdiction: "DE" }],
    ["PUT", `${mp}/provider-connections`, { provider_uuid: providerUuid, secret_reference: "vault://payin/provider" }],
    ["POST", `${mp}/provider-connections/${UNKNOWN_UUID}/rotate-secret`, { secret_reference: "vault://payin/provider-2" }],
    ["PUT", `${mp}/wallet`, { xpub: randomXpub() }],
  ];
}

/** The administrative reads (MFA at any age). */
function readRoutes(m: string): string[] {
  const mp = `${A}/merchants/${m}`;
  return [`${A}/identities`, `${A}/merchants`, mp, `${mp}/machine-credentials`, `${A}/rules`, `${A}/providers`, `${mp}/readiness`, `${A}/audit-events`];
}

/** The administrative reads of one created resource (MFA at any age), each naming one that does not exist. */
function resourceReadRoutes(m: string): string[] {
  const mp = `${A}/merchants/${m}`;
  return [
    `${mp}/members/${UNKNOWN_UUID}`,
    `${mp}/machine-credentials/${UNKNOWN_UUID}`,
    `${A}/rules/${UNKNOWN_UUID}`,
    `${mp}/policies/${UNKNOWN_UUID}`,
    `${A}/providers/${UNKNOWN_UUID}`,
    `${mp}/provider-bindings/${UNKNOWN_UUID}`,
    `${mp}/provider-connections/${UNKNOWN_UUID}`,
  ];
}

beforeAll(async () => {
  human = new HumanApi(e2e.platform.apiUrl, "127.0.0.1");
  first = await bootstrapAdmin(e2e.operator, "first.admin@example.com");
  secrets.push(first.password);
  firstToken = await signIn(first.email, first.password, first.totpSecret);
}, 180_000);

describe("a privileged identity without MFA", () => {
  it("is refused 403 MFA_REQUIRED on every administrative route, before any lookup, and nothing changes", async () => {
    const noMfa = await person(["platform_admin"]);
    const target = await person(["merchant_member"]);
    const merchant = await createMerchant();
    // Unknown merchants and identities too: the refusal comes before any lookup or body read.
    for (const m of [merchant, UNKNOWN_UUID]) {
      for (const [method, path, json] of moneyOrTrustRoutes(m, m === merchant ? target.uuid : UNKNOWN_UUID, UNKNOWN_UUID)) {
        const error = expectError(await e2e.api.request(method, path, { token: noMfa.token, json }), 403, "MFA_REQUIRED");
        expect(error.message).toContain("POST /api/v1/auth/mfa/totp");
      }
      for (const path of [...readRoutes(m), ...resourceReadRoutes(m)]) {
        expectError(await e2e.api.request("GET", path, { token: noMfa.token }), 403, "MFA_REQUIRED");
      }
      expectError(await e2e.api.request("POST", `${A}/merchants`, { token: noMfa.token, json: { display_name: "Nope" } }), 403, "MFA_REQUIRED");
    }
    // Whatever the body holds (even none, or a malformed one), the answer is the same.
    expectError(await e2e.api.request("PUT", `${A}/merchants/${merchant}/wallet`, { token: noMfa.token, json: { xpub: 7, extra: true } }), 403, "MFA_REQUIRED");
    expectError(await e2e.api.request("PUT", `${A}/merchants/${merchant}/wallet`, { token: noMfa.token, raw: "{", headers: { "content-type": "application/json" } }), 403, "MFA_REQUIRED");
    // Its own sessions and password: refused as well, so a password alone cannot entrench itself.
    expectError(await e2e.api.request("GET", "/api/v1/auth/sessions", { token: noMfa.token }), 403, "MFA_REQUIRED");
    expectError(await e2e.api.request("DELETE", `/api/v1/auth/sessions/${randomUUID()}`, { token: noMfa.token }), 403, "MFA_REQUIRED");
    expectError(
      await e2e.api.request("POST", "/api/v1/auth/password", { token: noMfa.token, json: { current_password: noMfa.password, new_password: "a-brand-new-password" } }),
      403,
      "MFA_REQUIRED",
    );

    // Nothing changed: the merchant is still inactive without a wallet, the target still active with its role.
    const read = await e2e.api.request("GET", `${A}/merchants/${merchant}`, { token: firstToken });
    expect(read.body.merchant.status).toBe("inactive");
    const readiness = await e2e.api.request("GET", `${A}/merchants/${merchant}/readiness`, { token: firstToken });
    expect(JSON.stringify(readiness.body)).toContain("wallet_not_ready");
    const { identity } = await e2e.operator.identity.getIdentity({ identityUuid: target.uuid });
    expect(identity).toMatchObject({ status: "active", roles: ["merchant_member"] });
    expect((await e2e.api.request("GET", "/api/v1/auth/session", { token: noMfa.token })).status).toBe(200);
  });

  it("can read its session, enrol TOTP with its password, confirm, and act after signing in with MFA", async () => {
    const p = await person(["platform_admin"]);
    const session = await e2e.api.request("GET", "/api/v1/auth/session", { token: p.token });
    expect(session.status, session.text).toBe(200);
    expect(session.body.mfa_satisfied).toBe(false);
    expect(session.body.roles).toEqual(["platform_admin"]);

    // The current password is required, and a wrong one is 401.
    expectError(await e2e.api.request("POST", "/api/v1/auth/mfa/totp", { token: p.token, json: {} }), 400, "VALIDATION_ERROR");
    expectError(await e2e.api.request("POST", "/api/v1/auth/mfa/totp", { token: p.token, json: { current_password: 5 } }), 400, "VALIDATION_ERROR");
    expectError(await e2e.api.request("POST", "/api/v1/auth/mfa/totp", { token: p.token, json: { current_password: p.password, x: 1 } }), 400, "VALIDATION_ERROR");
    const wrong = expectError(
      await e2e.api.request("POST", "/api/v1/auth/mfa/totp", { token: p.token, json: { current_password: "not-the-password" } }),
      401,
      "AUTH_INVALID_CREDENTIALS",
    );
    expect(wrong.message).toBe("current password is incorrect");

    // Another session of the same person, opened with the password: confirming ends it.
    const other = await signIn(p.email, p.password);
    const secret = await enrol(p);
    expectError(await e2e.api.request("GET", "/api/v1/auth/session", { token: other }), 401, "AUTH_INVALID_CREDENTIALS");
    // The confirming session lives on, not upgraded: still refused until it signs in with MFA.
    const after = await e2e.api.request("GET", "/api/v1/auth/session", { token: p.token });
    expect(after.status, after.text).toBe(200);
    expect(after.body.mfa_satisfied).toBe(false);
    expectError(await e2e.api.request("GET", `${A}/merchants`, { token: p.token }), 403, "MFA_REQUIRED");
    // Logging out stays allowed.
    expect((await e2e.api.request("POST", "/api/v1/auth/logout", { token: p.token })).status).toBe(204);

    const token = await signIn(p.email, p.password, secret);
    expect((await e2e.api.request("GET", `${A}/merchants`, { token })).status).toBe(200);
    const merchant = await createMerchant(token);
    const wallet = await e2e.api.request("PUT", `${A}/merchants/${merchant}/wallet`, { token, json: { xpub: randomXpub() } });
    expect(wallet.status, wallet.text).toBe(200);
    expect((await e2e.api.request("GET", "/api/v1/auth/sessions", { token })).status).toBe(200);
  });

  it("applies to a platform_operator too: its reads need MFA", async () => {
    const p = await person(["platform_operator"]);
    for (const path of [`${A}/merchants`, `${A}/identities`, `${A}/audit-events`]) {
      expectError(await e2e.api.request("GET", path, { token: p.token }), 403, "MFA_REQUIRED");
    }
    // A change it has no permission for stays FORBIDDEN: MFA would not help.
    expectError(await e2e.api.request("POST", `${A}/merchants`, { token: p.token, json: { display_name: "X" } }), 403, "FORBIDDEN");
    const secret = await enrol(p);
    const token = await signIn(p.email, p.password, secret);
    for (const path of [`${A}/merchants`, `${A}/identities`, `${A}/audit-events`]) {
      expect((await e2e.api.request("GET", path, { token })).status).toBe(200);
    }
  });
});

/** A second gateway on the platform whose clock runs `offsetMs` ahead, for the describe block it is called in. */
function useShiftedGateway(): { api: Api; offsetMs: number } {
  const shifted = { offsetMs: 0 } as { api: Api; offsetMs: number };
  let server: http.Server | undefined;
  beforeAll(async () => {
    const options = (name: string) => ({ baseUrl: e2e.platform.serviceUrls[name]!, serviceToken: e2e.platform.serviceToken, timeoutMs: 15_000 });
    const identity = createServiceClient(identityV1.IdentityService, options("identity"));
    const app = createApp({
      logger: createLogger("api-test", { level: "silent" }),
      auth: new Authenticator(identity, 0, 10_000, () => new Date(Date.now() + shifted.offsetMs)),
      identity,
      payins: createServiceClient(payinsV1.PayinsService, options("payins")),
      merchants: createServiceClient(merchantsV1.MerchantsService, options("merchants")),
      allocation: createServiceClient(allocationV1.AllocationService, options("allocation")),
      notifications: createServiceClient(notificationsV1.NotificationsService, options("notifications")),
    });
    const listening = http.createServer(app.callback());
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    shifted.api = new Api(`http://127.0.0.1:${(listening.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    shifted.offsetMs = 0;
    await new Promise((resolve) => server?.close(resolve));
  });
  return shifted;
}

describe("recent MFA for changes that move money or trust (the gateway's clock moved)", () => {
  const shifted = useShiftedGateway();

  it("refuses MFA older than 15 minutes with 403 MFA_RECENT_REQUIRED on each such change; reads still work", async () => {
    const merchant = await createMerchant();
    const target = await person(["merchant_member"]);
    const provider = await e2e.api.request("POST", `${A}/providers`, { token: firstToken, json: { name: `p-${randomBytes(4).toString("hex")}` } });
    expect(provider.status, provider.text).toBe(201);
    const token = await signIn(first.email, first.password, first.totpSecret);

    shifted.offsetMs = 16 * MINUTE;
    for (const [method, path, json] of moneyOrTrustRoutes(merchant, target.uuid, provider.body.provider.uuid)) {
      const error = expectError(await shifted.api.request(method, path, { token, json }), 403, "MFA_RECENT_REQUIRED");
      expect(error.message, `${method} ${path}`).toMatch(/15 minutes/);
    }
    // Nothing changed.
    expect((await e2e.api.request("GET", `${A}/merchants/${merchant}`, { token: firstToken })).body.merchant.status).toBe("inactive");
    expect((await e2e.operator.identity.getIdentity({ identityUuid: target.uuid })).identity?.status).toBe("active");
    // Reads and other changes need MFA of any age.
    for (const path of readRoutes(merchant)) {
      const res = await shifted.api.request("GET", path, { token });
      expect(res.status, `${path}: ${res.text}`).toBe(200);
    }
    for (const path of resourceReadRoutes(merchant)) {
      const res = await shifted.api.request("GET", path, { token });
      expect(res.status, `${path}: ${res.text}`).toBe(404);
    }
    expect((await shifted.api.request("POST", `${A}/merchants`, { token, json: { display_name: "Later Shop" } })).status).toBe(201);

    // 14 minutes after MFA it is still recent: the change goes through.
    shifted.offsetMs = 14 * MINUTE;
    const wallet = await shifted.api.request("PUT", `${A}/merchants/${merchant}/wallet`, { token, json: { xpub: randomXpub() } });
    expect(wallet.status, wallet.text).toBe(200);
    const lock = await shifted.api.request("POST", `${A}/identities/${target.uuid}/lock`, { token });
    expect(lock.status, lock.text).toBe(200);
    shifted.offsetMs = 0;
  });
});

describe("a password change (the gateway's clock moved)", () => {
  const shifted = useShiftedGateway();

  const change = (p: Person, newPassword: string) =>
    shifted.api.request("POST", "/api/v1/auth/password", { token: p.token, json: { current_password: p.password, new_password: newPassword } });
  const newPassword = () => {
    const password = `pw-${randomBytes(12).toString("base64url")}`;
    secrets.push(password);
    return password;
  };

  it("needs MFA within 15 minutes for a privileged identity (403 MFA_RECENT_REQUIRED), not for others", async () => {
    const admin = await personWithMfa(["platform_admin"]);
    const member = await person(["merchant_member"]);
    shifted.offsetMs = 16 * MINUTE;
    const error = expectError(await change(admin, newPassword()), 403, "MFA_RECENT_REQUIRED");
    expect(error.message).toMatch(/15 minutes/);
    // Unchanged: the old password still signs in.
    expect((await human.login(admin.email, admin.password, "bearer")).body.status).toBe("mfa_required");
    // A person without an administrative permission changes theirs whatever the age of the session.
    const changed = await change(member, newPassword());
    expect(changed.status, changed.text).toBe(204);
    // 14 minutes after MFA it is still recent.
    shifted.offsetMs = 14 * MINUTE;
    const next = newPassword();
    const recent = await change(admin, next);
    expect(recent.status, recent.text).toBe(204);
    shifted.offsetMs = 0;
  });
});

describe("activate an identity", () => {
  it("lets another admin restore a locked first admin; 409 when active; 404 when unknown; audited", async () => {
    const second = await personWithMfa(["platform_admin"]);
    const locked = await e2e.api.request("POST", `${A}/identities/${first.uuid}/lock`, { token: second.token });
    expect(locked.status, locked.text).toBe(200);
    expect(locked.body.identity.status).toBe("locked");
    expectError(await e2e.api.request("GET", `${A}/merchants`, { token: firstToken }), 401);
    expectError(await human.login(first.email, first.password), 401, "AUTH_INVALID_CREDENTIALS");

    const activated = await e2e.api.request("POST", `${A}/identities/${first.uuid}/activate`, { token: second.token });
    expect(activated.status, activated.text).toBe(200);
    expect(activated.body.identity).toEqual({ uuid: first.uuid, email: first.email, status: "active", roles: ["platform_admin"] });
    // Its old session stays ended; it signs in again, with MFA.
    expectError(await e2e.api.request("GET", `${A}/merchants`, { token: firstToken }), 401);
    firstToken = await signIn(first.email, first.password, first.totpSecret);
    expect((await e2e.api.request("GET", `${A}/merchants`, { token: firstToken })).status).toBe(200);

    const again = await e2e.api.request("POST", `${A}/identities/${first.uuid}/activate`, { token: second.token });
    expectError(again, 409, "IDENTITY_ALREADY_ACTIVE");
    expectError(await e2e.api.request("POST", `${A}/identities/${UNKNOWN_UUID}/activate`, { token: second.token }), 404, "IDENTITY_NOT_FOUND");
    expectError(await e2e.api.request("POST", `${A}/identities/not-a-uuid/activate`, { token: second.token }), 404, "IDENTITY_NOT_FOUND");
    expectError(await e2e.api.request("POST", `${A}/identities/${first.uuid}/activate`, { token: second.token, json: { reason: "x" } }), 400);

    // A disabled identity is restored alike.
    const p = await person(["merchant_member"]);
    expect((await e2e.api.request("POST", `${A}/identities/${p.uuid}/disable`, { token: second.token })).status).toBe(200);
    const restored = await e2e.api.request("POST", `${A}/identities/${p.uuid}/activate`, { token: second.token });
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body.identity.status).toBe("active");
    expect((await human.login(p.email, p.password)).status).toBe(200);

    // Audited as identity.activate: successes (delivered by identity's outbox relay shortly after) and the refusal.
    await vi.waitFor(
      async () => {
        const events = await e2e.api.request("GET", `${A}/audit-events?limit=100`, { token: second.token });
        const activations = (events.body.data as any[]).filter((e) => e.action === "identity.activate");
        expect(activations).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ actor: { kind: "identity", uuid: second.uuid, os_user: null }, target_type: "identity", target_uuid: first.uuid, outcome: "succeeded", error_code: null }),
            expect.objectContaining({ target_uuid: first.uuid, outcome: "failed", error_code: "IDENTITY_ALREADY_ACTIVE", request_id: again.headers.get("x-request-id") }),
            expect.objectContaining({ target_uuid: p.uuid, outcome: "succeeded" }),
          ]),
        );
      },
      { timeout: 10_000, interval: 100 },
    );

    // A person without identity.manage may not activate.
    const operatorPerson = await personWithMfa(["platform_operator"]);
    expectError(await e2e.api.request("POST", `${A}/identities/${p.uuid}/activate`, { token: operatorPerson.token }), 403, "FORBIDDEN");
  });

  it("writes no password, token or TOTP secret to the platform's logs", async () => {
    await expectSecretsAbsentFromLogs(e2e.log, secrets.filter((s) => s.length > 20));
  });
});
