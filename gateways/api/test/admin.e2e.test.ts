/**
 * The platform administration API (/api/v1/admin, docs/platform-api.md) end to end on the
 * real platform: identities, merchants and their lifecycle, members, machine
 * credentials, rules, policies, operating profiles, providers, bindings,
 * connections, wallets and the audit log, with every 400/401/403/404/409.
 *
 * People sign in over the identity RPC (Login + CompleteMfa with a TOTP code
 * from @payin/testing) and use the session token as a bearer token.
 */
import { randomBytes } from "node:crypto";
import { totpCodeAt, totpSecretOf, totpStepAt } from "@payin/testing";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  type ApiResponse,
  expectError,
  expectKeys,
  expectSecretsAbsentFromLogs,
  ISO_UTC,
  MACHINE_TOKEN,
  randomXpub,
  setObserverCursors,
  usePlatform,
  UUID,
} from "./support.js";

const A = "/api/v1/admin";
const MERCHANT_KEYS = ["created_at", "display_name", "legal_name", "status", "updated_at", "uuid"];
const IDENTITY_KEYS = ["email", "roles", "status", "uuid"];
const CREDENTIAL_KEYS = ["created_at", "credential_uuid", "key_id", "last_used_at", "merchant_uuid", "replaced_by_uuid", "revoked_at", "status"];
/** Create and rotate answer without the fields only the listing carries, and with the token. */
const ISSUED_CREDENTIAL_KEYS = ["created_at", "credential_uuid", "key_id", "merchant_uuid", "status", "token"];
const AUDIT_KEYS = ["action", "actor", "error_code", "event_uuid", "occurred_at", "outcome", "request_id", "target_type", "target_uuid"];
const UNKNOWN_UUID = "01a2008d-7400-7000-8000-0000000000ff";

const e2e = usePlatform();
/** Secrets this file saw, for the log check. */
const secrets: string[] = [];

/** Sessions: the bootstrapped admin (MFA done), a second admin without MFA, an e2e.operator, a merchant member. */
let admin: { uuid: string; email: string; password: string; token: string };
let adminNoMfa: { uuid: string; token: string };
let platformOperator: { uuid: string; token: string };
let member: { uuid: string; token: string };
/** A machine credential's token (of an unrelated merchant). */
let machineToken: string;

/** The TOTP code of an otpauth:// URI's secret for a step (the current one by default). */
function totp(otpauthUri: string, step = totpStepAt()): string {
  return totpCodeAt(totpSecretOf(otpauthUri), step);
}

let ipCounter = 1;
/** Signs in over RPC (each sign-in from its own client IP, so throttling never interferes). */
async function signIn(email: string, password: string, otpauthUri?: string): Promise<string> {
  const clientIp = `10.9.0.${ipCounter++}`;
  const res = await e2e.operator.identity.login({ email, password, transport: "bearer", clientIp });
  let token: string;
  if (res.result.case === "authenticated") {
    token = res.result.value.sessionToken;
  } else {
    expect(res.result.case).toBe("mfaChallengeToken");
    const done = await e2e.operator.identity.completeMfa({ mfaChallengeToken: res.result.value as string, code: totp(otpauthUri!), clientIp });
    token = done.authenticated!.sessionToken;
  }
  secrets.push(token);
  return token;
}

/** Creates an identity over HTTP as the admin and signs it in. */
async function person(roles: string[]): Promise<{ uuid: string; email: string; password: string; token: string }> {
  const email = `p-${randomBytes(5).toString("hex")}@example.com`;
  const password = `pw-${randomBytes(12).toString("base64url")}`;
  secrets.push(password);
  const res = await e2e.api.request("POST", `${A}/identities`, { token: admin.token, json: { email, password, roles } });
  expect(res.status, res.text).toBe(201);
  return { uuid: res.body.identity.uuid, email, password, token: await signIn(email, password) };
}

/**
 * Like `person`, then enrols TOTP over HTTP and signs in again completing MFA: a
 * person with an administrative permission can act only through such a session.
 */
async function personWithMfa(roles: string[]): Promise<{ uuid: string; email: string; password: string; token: string }> {
  const p = await person(roles);
  const enrol = await e2e.api.request("POST", "/api/v1/auth/mfa/totp", { token: p.token, json: { current_password: p.password } });
  expect(enrol.status, enrol.text).toBe(200);
  const uri = enrol.body.otpauth_uri as string;
  secrets.push(uri);
  const step = Math.floor(Date.now() / 30_000);
  const confirm = await e2e.api.request("POST", "/api/v1/auth/mfa/totp/confirm", { token: p.token, json: { code: totp(uri, step) } });
  expect(confirm.status, confirm.text).toBe(200);
  // The next step's code: the confirming one is used up, and ±1 step is accepted.
  const clientIp = `10.9.0.${ipCounter++}`;
  const login = await e2e.operator.identity.login({ email: p.email, password: p.password, transport: "bearer", clientIp });
  expect(login.result.case).toBe("mfaChallengeToken");
  const done = await e2e.operator.identity.completeMfa({ mfaChallengeToken: login.result.value as string, code: totp(uri, step + 1), clientIp });
  const token = done.authenticated!.sessionToken;
  secrets.push(token);
  return { ...p, token };
}

async function createMerchant(name = "Admin Shop", token = admin.token): Promise<any> {
  const res = await e2e.api.request("POST", `${A}/merchants`, { token, json: { display_name: name } });
  expect(res.status, res.text).toBe(201);
  return res.body.merchant;
}

/** A request id the platform made (a client's own is never used as one). */
const PLATFORM_REQUEST_ID = /^req_[0-9a-f]{32}$/;

/** Every audit event, newest first (all pages). */
async function auditEvents(): Promise<any[]> {
  const out: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const res = await e2e.api.request("GET", `${A}/audit-events?limit=100&offset=${offset}`, { token: admin.token });
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.data);
    if (offset + 100 >= res.body.pagination.total) return out;
  }
}

async function eventsOf(reqId: string): Promise<any[]> {
  return (await auditEvents()).filter((e) => e.request_id === reqId);
}

/**
 * The events of a request once they are `expected`: identity records its
 * changes in its outbox, and its relay delivers them to the log shortly after.
 */
async function settledEventsOf(reqId: string, expected: unknown[]): Promise<void> {
  await vi.waitFor(async () => expect(await eventsOf(reqId)).toEqual(expected), { timeout: 10_000, interval: 100 });
}

beforeAll(async () => {
  const boot = await e2e.operator.identity.bootstrapAdmin({ email: "admin@example.com" });
  secrets.push(boot.password);
  admin = { uuid: boot.identity!.uuid, email: "admin@example.com", password: boot.password, token: await signIn("admin@example.com", boot.password, boot.totpUri) };
  adminNoMfa = await person(["platform_admin"]);
  platformOperator = await personWithMfa(["platform_operator"]);
  member = await person(["merchant_member"]);
  const m = await e2e.operator.merchant({ name: "Machine Owner" });
  machineToken = m.token;
  secrets.push(machineToken);
}, 180_000);

/** Every admin route, with a path that exists in shape. */
function allRoutes(merchantUuid: string): [string, string][] {
  const m = `${A}/merchants/${merchantUuid}`;
  return [
    ["POST", `${A}/identities`],
    ["GET", `${A}/identities`],
    ["GET", `${A}/identities/${UNKNOWN_UUID}`],
    ["POST", `${A}/identities/${UNKNOWN_UUID}/disable`],
    ["POST", `${A}/identities/${UNKNOWN_UUID}/lock`],
    ["POST", `${A}/identities/${UNKNOWN_UUID}/activate`],
    ["POST", `${A}/identities/${UNKNOWN_UUID}/sign-in-failures/reset`],
    ["DELETE", `${A}/identities/${UNKNOWN_UUID}/roles/platform_admin`],
    ["GET", `${A}/merchants`],
    ["POST", `${A}/merchants`],
    ["GET", m],
    ["POST", `${m}/activate`],
    ["POST", `${m}/deactivate`],
    ["POST", `${m}/suspend`],
    ["POST", `${m}/close`],
    ["PUT", `${m}/members`],
    ["GET", `${m}/members/${UNKNOWN_UUID}`],
    ["DELETE", `${m}/members/${UNKNOWN_UUID}`],
    ["GET", `${m}/machine-credentials`],
    ["GET", `${m}/machine-credentials/${UNKNOWN_UUID}`],
    ["POST", `${m}/machine-credentials`],
    ["POST", `${m}/machine-credentials/rotate`],
    ["POST", `${m}/machine-credentials/${UNKNOWN_UUID}/revoke`],
    ["POST", `${A}/rules`],
    ["GET", `${A}/rules`],
    ["GET", `${A}/rules/${UNKNOWN_UUID}`],
    ["PUT", `${m}/operating-profile`],
    ["POST", `${m}/policies`],
    ["GET", `${m}/policies/${UNKNOWN_UUID}`],
    ["GET", `${A}/providers`],
    ["POST", `${A}/providers`],
    ["GET", `${A}/providers/${UNKNOWN_UUID}`],
    ["PUT", `${m}/provider-bindings`],
    ["GET", `${m}/provider-bindings/${UNKNOWN_UUID}`],
    ["PUT", `${m}/provider-connections`],
    ["GET", `${m}/provider-connections/${UNKNOWN_UUID}`],
    ["POST", `${m}/provider-connections/${UNKNOWN_UUID}/rotate-secret`],
    ["PUT", `${m}/wallet`],
    ["GET", `${m}/wallet`],
    ["GET", `${m}/readiness`],
    ["GET", `${A}/audit-events`],
  ];
}

describe("authentication and permissions", () => {
  it("answers 401 on every admin route without a credential, or with an unknown one", async () => {
    const merchant = await createMerchant();
    for (const [method, path] of allRoutes(merchant.uuid)) {
      expectError(await e2e.api.request(method, path, { json: method === "GET" || method === "DELETE" ? undefined : {} }), 401, "AUTH_INVALID_CREDENTIALS");
      expectError(await e2e.api.request(method, path, { token: "not-a-session-token-at-all" }), 401);
    }
  });

  it("answers 403 to a merchant member (no admin permission) and to a machine bearer on every admin route", async () => {
    const merchant = await createMerchant();
    for (const [method, path] of allRoutes(merchant.uuid)) {
      const json = method === "GET" || method === "DELETE" ? undefined : {};
      expectError(await e2e.api.request(method, path, { token: member.token, json }), 403, "FORBIDDEN");
      expectError(await e2e.api.request(method, path, { token: machineToken, json }), 403, "FORBIDDEN");
    }
  });

  it("lets a platform_operator read (merchants, identities, audit) but change nothing", async () => {
    const merchant = await createMerchant();
    for (const path of [`${A}/merchants`, `${A}/merchants/${merchant.uuid}`, `${A}/identities`, `${A}/audit-events`]) {
      const res = await e2e.api.request("GET", path, { token: platformOperator.token });
      expect(res.status, `${path}: ${res.text}`).toBe(200);
    }
    expectError(await e2e.api.request("POST", `${A}/merchants`, { token: platformOperator.token, json: { display_name: "X" } }), 403, "FORBIDDEN");
    expectError(await e2e.api.request("POST", `${A}/merchants/${merchant.uuid}/activate`, { token: platformOperator.token }), 403, "FORBIDDEN");
    expectError(await e2e.api.request("GET", `${A}/merchants/${merchant.uuid}/machine-credentials`, { token: platformOperator.token }), 403);
  });

  it("answers 405 for a method a path does not serve and 404 for an unknown admin path", async () => {
    const patched = await e2e.api.request("PATCH", `${A}/merchants`, { token: admin.token });
    expectError(patched, 405, "METHOD_NOT_ALLOWED");
    expect(patched.headers.get("allow")?.split(/,\s*/).sort()).toEqual(["GET", "HEAD", "POST"]);
    expect(patched.headers.get("x-request-id")).toBeTruthy();
    expectError(await e2e.api.request("GET", `${A}/nothing-here`, { token: admin.token }), 404, "NOT_FOUND");
  });
});

describe("identities", () => {
  it("creates an identity (201) and lists identities with pagination", async () => {
    const email = `new-${randomBytes(4).toString("hex")}@example.com`;
    const password = `secret-${randomBytes(10).toString("hex")}`;
    secrets.push(password);
    const res = await e2e.api.request("POST", `${A}/identities`, { token: admin.token, json: { email, password, roles: ["platform_operator"] } });
    expect(res.status, res.text).toBe(201);
    expectKeys(res.body, ["identity"]);
    expectKeys(res.body.identity, IDENTITY_KEYS);
    expect(res.body.identity).toMatchObject({ email, status: "active", roles: ["platform_operator"] });
    expect(res.body.identity.uuid).toMatch(UUID);
    expect(res.text).not.toContain(password);
    // Location names the identity, and reading it answers what the create did.
    expect(res.headers.get("location")).toBe(`${A}/identities/${res.body.identity.uuid}`);
    const read = await e2e.api.request("GET", res.headers.get("location")!, { token: admin.token });
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual(res.body);
    expect((await e2e.api.request("GET", res.headers.get("location")!, { token: platformOperator.token })).status).toBe(200);
    for (const unknown of [UNKNOWN_UUID, "not-a-uuid"]) {
      expectError(await e2e.api.request("GET", `${A}/identities/${unknown}`, { token: admin.token }), 404, "IDENTITY_NOT_FOUND");
    }
    expectError(await e2e.api.request("GET", `${A}/identities/${res.body.identity.uuid}?x=1`, { token: admin.token }), 400, "VALIDATION_ERROR");

    const all = await e2e.api.request("GET", `${A}/identities?limit=100`, { token: admin.token });
    expect(all.status).toBe(200);
    expectKeys(all.body, ["data", "pagination"]);
    expect(all.body.pagination).toEqual({ total: all.body.data.length, limit: 100, offset: 0 });
    expect(all.body.data.map((i: any) => i.email)).toContain(email);
    for (const item of all.body.data) expectKeys(item, IDENTITY_KEYS);
    const page = await e2e.api.request("GET", `${A}/identities?limit=1&offset=1`, { token: admin.token });
    expect(page.body.data).toHaveLength(1);
    expect(page.body.pagination).toEqual({ total: all.body.pagination.total, limit: 1, offset: 1 });
    for (const q of ["limit=0", "limit=101", "offset=-1", "limit=x", "foo=1"]) {
      expectError(await e2e.api.request("GET", `${A}/identities?${q}`, { token: admin.token }), 400, "VALIDATION_ERROR");
    }
  });

  it("refuses bad create bodies (400), a taken email (409), and a session without recent MFA (403)", async () => {
    const good = { email: `x-${randomBytes(4).toString("hex")}@example.com`, password: "long-enough-password", roles: ["merchant_member"] };
    for (const json of [
      { ...good, extra: 1 },
      { ...good, email: undefined },
      { ...good, password: 12345678901234 },
      { ...good, password: "short" },
      { ...good, roles: "merchant_member" },
      { ...good, roles: [1] },
      { ...good, roles: ["emperor"] },
      { ...good, email: "not-an-email" },
    ]) {
      expectError(await e2e.api.request("POST", `${A}/identities`, { token: admin.token, json }), 400);
    }
    expectError(await e2e.api.request("POST", `${A}/identities`, { token: admin.token, raw: "{", headers: { "content-type": "application/json" } }), 400, "MALFORMED_JSON");
    expectError(await e2e.api.request("POST", `${A}/identities`, { token: admin.token, raw: "x", headers: { "content-type": "text/plain" } }), 415);
    expectError(await e2e.api.request("POST", `${A}/identities`, { token: admin.token, json: { ...good, email: admin.email.toUpperCase() } }), 409, "IDENTITY_EMAIL_TAKEN");
    expectError(await e2e.api.request("POST", `${A}/identities`, { token: adminNoMfa.token, json: good }), 403, "MFA_REQUIRED");
    // Without MFA the answer is 403 whatever the body holds.
    expectError(await e2e.api.request("POST", `${A}/identities`, { token: adminNoMfa.token, json: { email: 7 } }), 403, "MFA_REQUIRED");
  });

  it("refuses a guessable password or one containing the email's name (400), creating nothing", async () => {
    const email = "maria.santos@example.com";
    for (const [password, why] of [
      ["password1234", /too common or easy to guess/],
      ["qwertyuiop12", /too common or easy to guess/],
      ["123456789012", /too common or easy to guess/],
      ["maria.santos-2024!", /must not contain the email address's name/],
    ] as const) {
      const error = expectError(await e2e.api.request("POST", `${A}/identities`, { token: admin.token, json: { email, password, roles: [] } }), 400, "VALIDATION_ERROR");
      expect(error.message).toMatch(why);
      expect(error.message).not.toContain(password);
    }
    const all = await e2e.api.request("GET", `${A}/identities?limit=100`, { token: admin.token });
    expect(all.body.data.map((i: any) => i.email)).not.toContain(email);
  });

  it("refuses an email whose local part has a leading, trailing or doubled dot (400 VALIDATION_ERROR), at create and at sign-in", async () => {
    const password = "a-Long-unguessable-pass-42";
    for (const email of [".lead@example.com", "trail.@example.com", "dou..ble@example.com"]) {
      const error = expectError(await e2e.api.request("POST", `${A}/identities`, { token: admin.token, json: { email, password, roles: [] } }), 400, "VALIDATION_ERROR");
      expect(error.message).toBe("email must be an email address");
      expectError(await e2e.api.request("POST", "/api/v1/auth/login", { json: { email, password, transport: "bearer" } }), 400, "VALIDATION_ERROR");
    }
    const all = await e2e.api.request("GET", `${A}/identities?limit=100`, { token: admin.token });
    expect(all.body.data.map((i: any) => i.email).filter((e: string) => e.includes("lead") || e.includes("trail") || e.includes("dou"))).toEqual([]);
  });

  it("disables (sessions revoked at once) and locks identities; 409 when already so; 404 when unknown", async () => {
    const a = await person(["merchant_member"]);
    const b = await person(["merchant_member"]);
    const read = (token: string) => e2e.api.request("GET", `${A}/merchants`, { token });
    expectError(await read(a.token), 403);

    const disabled = await e2e.api.request("POST", `${A}/identities/${a.uuid}/disable`, { token: admin.token });
    expect(disabled.status, disabled.text).toBe(200);
    expectKeys(disabled.body.identity, IDENTITY_KEYS);
    expect(disabled.body.identity.status).toBe("disabled");
    expectError(await read(a.token), 401);
    expectError(await e2e.api.request("POST", `${A}/identities/${a.uuid}/disable`, { token: admin.token }), 409, "IDENTITY_ALREADY_DISABLED");

    const locked = await e2e.api.request("POST", `${A}/identities/${b.uuid}/lock`, { token: admin.token });
    expect(locked.status, locked.text).toBe(200);
    expect(locked.body.identity.status).toBe("locked");
    expectError(await read(b.token), 401);
    expectError(await e2e.api.request("POST", `${A}/identities/${b.uuid}/lock`, { token: admin.token }), 409, "IDENTITY_ALREADY_LOCKED");

    expectError(await e2e.api.request("POST", `${A}/identities/${UNKNOWN_UUID}/lock`, { token: admin.token }), 404);
    expectError(await e2e.api.request("POST", `${A}/identities/not-a-uuid/disable`, { token: admin.token }), 404);
    expectError(await e2e.api.request("POST", `${A}/identities/${b.uuid}/disable?x=1`, { token: admin.token }), 400);
    expectError(await e2e.api.request("POST", `${A}/identities/${b.uuid}/disable`, { token: admin.token, json: { reason: "x" } }), 400);
  });

  it("removes a role (200), then 409 ROLE_NOT_HELD, also for a role no one can hold; 404 for an unknown identity", async () => {
    const p = await person(["platform_operator", "merchant_member"]);
    const res = await e2e.api.request("DELETE", `${A}/identities/${p.uuid}/roles/platform_operator`, { token: admin.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.identity.roles).toEqual(["merchant_member"]);
    expectError(await e2e.api.request("DELETE", `${A}/identities/${p.uuid}/roles/platform_operator`, { token: admin.token }), 409, "ROLE_NOT_HELD");
    expectError(await e2e.api.request("DELETE", `${A}/identities/${p.uuid}/roles/emperor`, { token: admin.token }), 409, "ROLE_NOT_HELD");
    expectError(await e2e.api.request("DELETE", `${A}/identities/${UNKNOWN_UUID}/roles/merchant_member`, { token: admin.token }), 404);
  });
});

describe("merchants", () => {
  it("creates a merchant (201, always inactive, exactly the contract's fields) and reads it", async () => {
    const res = await e2e.api.request("POST", `${A}/merchants`, { token: admin.token, json: { display_name: "Acme", legal_name: "Acme GmbH" } });
    expect(res.status, res.text).toBe(201);
    expectKeys(res.body, ["merchant"]);
    expectKeys(res.body.merchant, MERCHANT_KEYS);
    const m = res.body.merchant;
    expect(m).toMatchObject({ display_name: "Acme", legal_name: "Acme GmbH", status: "inactive" });
    expect(m.uuid).toMatch(UUID);
    expect(m.created_at).toMatch(ISO_UTC);
    expect(m.updated_at).toMatch(ISO_UTC);
    expect(res.headers.get("location")).toBe(`${A}/merchants/${m.uuid}`);
    const read = await e2e.api.request("GET", res.headers.get("location")!, { token: admin.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ merchant: m });
    const bare = await createMerchant("No Legal Name");
    expect(bare.legal_name).toBeNull();
    for (const json of [{ display_name: "a\u0000b" }, { display_name: "A", legal_name: "\udc00" }]) {
      expectError(await e2e.api.request("POST", `${A}/merchants`, { token: admin.token, json }), 400, "VALIDATION_ERROR");
    }
    // A name that would read as another one ("Trojan Source"): bidirectional controls are refused, the field named.
    const trojan = `Trojan ${randomBytes(3).toString("hex")}`;
    for (const [json, field] of [
      [{ display_name: `${trojan} \u202Enmp.exe` }, "display_name"],
      [{ display_name: `${trojan} \u2067isolated\u2069` }, "display_name"],
      [{ display_name: trojan, legal_name: "Acme \u202ALtd\u202C" }, "legal_name"],
    ] as const) {
      const refused = expectError(await e2e.api.request("POST", `${A}/merchants`, { token: admin.token, json }), 400, "VALIDATION_ERROR");
      expect(refused.message).toBe(`${field} must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069)`);
    }
    // Nor an invisible character that makes two names differ that read the same (the rule of every text people read).
    const hidden = expectError(await e2e.api.request("POST", `${A}/merchants`, { token: admin.token, json: { display_name: `${trojan}\u200B` } }), 400, "VALIDATION_ERROR");
    expect(hidden.message).toBe("display_name must not contain zero-width characters (U+200B to U+200F, U+2060, U+FEFF)");
    const stored = await e2e.api.request("GET", `${A}/merchants?display_name=${encodeURIComponent(trojan)}`, { token: admin.token });
    expect(stored.body.pagination.total).toBe(0);
    // Right-to-left scripts themselves are names like any other.
    expect((await e2e.api.request("POST", `${A}/merchants`, { token: admin.token, json: { display_name: "متجر أكمي" } })).status).toBe(201);
    const withNull = await e2e.api.request("POST", `${A}/merchants`, { token: admin.token, json: { display_name: "N", legal_name: null } });
    expect(withNull.status).toBe(201);
    expect(withNull.body.merchant.legal_name).toBeNull();
    const max = await e2e.api.request("POST", `${A}/merchants`, { token: admin.token, json: { display_name: "é".repeat(150), legal_name: "ü".repeat(255) } });
    expect(max.status, max.text).toBe(201);
  });

  it("refuses invalid create bodies with 400", async () => {
    for (const json of [
      {},
      { display_name: "" },
      { display_name: "   " },
      { display_name: "x".repeat(151) },
      { display_name: 5 },
      { display_name: "A", legal_name: "" },
      { display_name: "A", legal_name: "y".repeat(256) },
      { display_name: "A", legal_name: 7 },
      { display_name: "A", status: "active" },
      { display_name: "A", uuid: UNKNOWN_UUID },
      [],
    ]) {
      expectError(await e2e.api.request("POST", `${A}/merchants`, { token: admin.token, json }), 400);
    }
  });

  it("answers 404 for an unknown or malformed merchant uuid", async () => {
    expectError(await e2e.api.request("GET", `${A}/merchants/${UNKNOWN_UUID}`, { token: admin.token }), 404, "MERCHANT_NOT_FOUND");
    expectError(await e2e.api.request("GET", `${A}/merchants/nope`, { token: admin.token }), 404, "MERCHANT_NOT_FOUND");
    expectError(await e2e.api.request("POST", `${A}/merchants/${UNKNOWN_UUID}/activate`, { token: admin.token }), 404, "MERCHANT_NOT_FOUND");
  });

  it("moves through activate / suspend / deactivate / close with 409 for forbidden moves; closed stays readable", async () => {
    const m = await createMerchant("Lifecycle");
    const move = (verb: string) => e2e.api.request("POST", `${A}/merchants/${m.uuid}/${verb}`, { token: admin.token });
    expectError(await move("suspend"), 409, "MERCHANT_TRANSITION_NOT_ALLOWED");
    expectError(await move("deactivate"), 409, "MERCHANT_TRANSITION_NOT_ALLOWED");
    for (const [verb, status] of [["activate", "active"], ["suspend", "suspended"], ["activate", "active"], ["deactivate", "inactive"], ["close", "closed"]]) {
      const res = await move(verb!);
      expect(res.status, `${verb}: ${res.text}`).toBe(200);
      expectKeys(res.body.merchant, MERCHANT_KEYS);
      expect(res.body.merchant.status).toBe(status);
    }
    for (const verb of ["activate", "deactivate", "suspend", "close"]) expectError(await move(verb), 409, "MERCHANT_TRANSITION_NOT_ALLOWED");
    const read = await e2e.api.request("GET", `${A}/merchants/${m.uuid}`, { token: admin.token });
    expect(read.body.merchant.status).toBe("closed");
    const listed = await e2e.api.request("GET", `${A}/merchants?uuid=${m.uuid}`, { token: admin.token });
    expect(listed.body.data.map((x: any) => x.uuid)).toEqual([m.uuid]);
  });

  it("never ends concurrent transitions in an impossible state", async () => {
    const m = await createMerchant("Race");
    const verbs = ["activate", "suspend", "deactivate", "close", "activate", "suspend"];
    const results = await Promise.all(verbs.map((verb) => e2e.api.request("POST", `${A}/merchants/${m.uuid}/${verb}`, { token: admin.token })));
    for (const res of results) expect([200, 409]).toContain(res.status);
    const read = await e2e.api.request("GET", `${A}/merchants/${m.uuid}`, { token: admin.token });
    expect(["inactive", "active", "suspended", "closed"]).toContain(read.body.merchant.status);
  });

  it("lists with exact filters, pagination and the list envelope", async () => {
    const name = `Filter ${randomBytes(4).toString("hex")}`;
    const made = [await createMerchant(name), await createMerchant(name), await createMerchant(name)];
    await e2e.api.request("POST", `${A}/merchants/${made[0].uuid}/activate`, { token: admin.token });
    const q = (query: string) => e2e.api.request("GET", `${A}/merchants?${query}`, { token: platformOperator.token });
    const all = await q(`display_name=${encodeURIComponent(name)}`);
    expect(all.status, all.text).toBe(200);
    expectKeys(all.body, ["data", "pagination"]);
    expect(all.body.pagination).toEqual({ total: 3, limit: 20, offset: 0 });
    for (const item of all.body.data) expectKeys(item, MERCHANT_KEYS);
    expect(new Set(all.body.data.map((x: any) => x.uuid))).toEqual(new Set(made.map((x) => x.uuid)));
    const page1 = await q(`display_name=${encodeURIComponent(name)}&limit=2`);
    const page2 = await q(`display_name=${encodeURIComponent(name)}&limit=2&offset=2`);
    expect(page1.body.data).toHaveLength(2);
    expect(page2.body.data).toHaveLength(1);
    expect(page2.body.pagination).toEqual({ total: 3, limit: 2, offset: 2 });
    expect(new Set([...page1.body.data, ...page2.body.data].map((x: any) => x.uuid)).size).toBe(3);
    const active = await q(`display_name=${encodeURIComponent(name)}&status=active`);
    expect(active.body.data.map((x: any) => x.uuid)).toEqual([made[0].uuid]);
    const inactive = await q(`display_name=${encodeURIComponent(name)}&status=inactive`);
    expect(inactive.body.pagination.total).toBe(2);
    const byUuid = await q(`uuid=${made[1].uuid}`);
    expect(byUuid.body.data.map((x: any) => x.uuid)).toEqual([made[1].uuid]);
    const prefix = await q(`display_name=${encodeURIComponent(name.slice(0, -1))}`);
    expect(prefix.body.pagination.total).toBe(0);
    const beyond = await q(`display_name=${encodeURIComponent(name)}&offset=50`);
    expect(beyond.body).toEqual({ data: [], pagination: { total: 3, limit: 20, offset: 50 } });
    const far = await q(`display_name=${encodeURIComponent(name)}&offset=4294967296`);
    expect(far.body).toEqual({ data: [], pagination: { total: 3, limit: 20, offset: 4294967296 } });
    for (const bad of ["limit=0", "limit=101", "limit=1.5", "limit=", "offset=-1", "offset=x", "status=open", "uuid=123", "display_name=", "sort=name", "limit=1&limit=2", "display_name=a%00b"]) {
      expectError(await q(bad), 400, "VALIDATION_ERROR");
    }
  });

  it("attaches a member idempotently (201 then 200); 404 unknown merchant or identity; 400 bad body", async () => {
    const m = await createMerchant("Members");
    const put = (uuid: string, json: unknown) => e2e.api.request("PUT", `${A}/merchants/${uuid}/members`, { token: admin.token, json });
    const first = await put(m.uuid, { identity_uuid: member.uuid });
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get("location")).toBe(`${A}/merchants/${m.uuid}/members/${member.uuid}`);
    expect(first.body).toEqual({ membership: { merchant_uuid: m.uuid, identity_uuid: member.uuid, created_at: expect.stringMatching(ISO_UTC), role: null } });
    const read = await e2e.api.request("GET", first.headers.get("location")!, { token: admin.token });
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual(first.body);
    // A platform_operator reads it as it reads the merchant.
    expect((await e2e.api.request("GET", first.headers.get("location")!, { token: platformOperator.token })).body).toEqual(first.body);
    const readMember = (merchantUuid: string, identityUuid: string) =>
      e2e.api.request("GET", `${A}/merchants/${merchantUuid}/members/${identityUuid}`, { token: admin.token });
    expectError(await readMember(m.uuid, admin.uuid), 404, "MEMBER_NOT_FOUND");
    expectError(await readMember(m.uuid, UNKNOWN_UUID), 404, "MEMBER_NOT_FOUND");
    expectError(await readMember(m.uuid, "not-a-uuid"), 404, "MEMBER_NOT_FOUND");
    expectError(await readMember((await createMerchant("Not Member")).uuid, member.uuid), 404, "MEMBER_NOT_FOUND");
    expectError(await readMember(UNKNOWN_UUID, member.uuid), 404, "MERCHANT_NOT_FOUND");
    const again = await put(m.uuid, { identity_uuid: member.uuid });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("location")).toBeNull();
    expectError(await put(UNKNOWN_UUID, { identity_uuid: member.uuid }), 404, "MERCHANT_NOT_FOUND");
    const stranger = await put(m.uuid, { identity_uuid: UNKNOWN_UUID });
    expectError(stranger, 404, "IDENTITY_NOT_FOUND");
    // Nothing was written: the merchant still has its one member.
    expect((await put(m.uuid, { identity_uuid: member.uuid })).status).toBe(200);
    for (const json of [{}, { identity_uuid: "x" }, { identity_uuid: 1 }, { identity_uuid: member.uuid, role: "admin" }]) {
      expectError(await put(m.uuid, json), 400);
    }
  });

  it("sets a member's role for one merchant, and changes it on a repeat naming another (audited); a repeat naming none keeps it", async () => {
    const m = await createMerchant("Roles");
    const p = await person(["merchant_member"]);
    const put = (json: unknown) => e2e.api.request("PUT", `${A}/merchants/${m.uuid}/members`, { token: admin.token, json });
    const first = await put({ identity_uuid: p.uuid, role: "merchant_admin" });
    expect(first.status, first.text).toBe(201);
    expect(first.body.membership).toMatchObject({ identity_uuid: p.uuid, role: "merchant_admin" });
    const same = await put({ identity_uuid: p.uuid, role: null });
    expect([same.status, same.body.membership.role]).toEqual([200, "merchant_admin"]);
    const changed = await put({ identity_uuid: p.uuid, role: "merchant_member" });
    expect([changed.status, changed.body.membership.role]).toEqual([200, "merchant_member"]);
    const read = await e2e.api.request("GET", `${A}/merchants/${m.uuid}/members/${p.uuid}`, { token: admin.token });
    expect(read.body.membership.role).toBe("merchant_member");
    const audit = (await auditEvents()).filter((e) => e.target_uuid === m.uuid && e.action.startsWith("merchant.member."));
    expect(audit.map((e) => [e.action, e.outcome, e.actor.uuid])).toEqual([
      ["merchant.member.role_change", "succeeded", admin.uuid],
      ["merchant.member.attach", "succeeded", admin.uuid],
    ]);
    expectError(await put({ identity_uuid: p.uuid, role: "platform_admin" }), 400, "VALIDATION_ERROR");
    expectError(await put({ identity_uuid: p.uuid, role: "" }), 400, "VALIDATION_ERROR");
  });

  it("removes a member (204): the member's very next request for that merchant is refused, its other merchant still answers", async () => {
    const [kept, left] = [await createMerchant("Kept"), await createMerchant("Left")];
    const p = await person(["merchant_member"]);
    for (const m of [kept, left]) expect((await e2e.api.request("PUT", `${A}/merchants/${m.uuid}/members`, { token: admin.token, json: { identity_uuid: p.uuid } })).status).toBe(201);
    // Signed in (bearer) before the removal, and reading both merchants.
    for (const m of [kept, left]) {
      const before = await e2e.api.list(m.uuid, p.token);
      expect(before.status, before.text).toBe(200);
    }
    const remove = (merchantUuid: string, identityUuid: string, token = admin.token) =>
      e2e.api.request("DELETE", `${A}/merchants/${merchantUuid}/members/${identityUuid}`, { token });
    // Not by someone who may only read merchants, nor without a recent MFA.
    expectError(await remove(left.uuid, p.uuid, platformOperator.token), 403, "FORBIDDEN");
    expectError(await remove(left.uuid, p.uuid, adminNoMfa.token), 403, "MFA_REQUIRED");
    const removed = await remove(left.uuid, p.uuid);
    expect(removed.status, removed.text).toBe(204);
    expect(removed.text).toBe("");

    expectError(await e2e.api.list(left.uuid, p.token), 403, "FORBIDDEN");
    expectError(await e2e.api.read(left.uuid, p.token, UNKNOWN_UUID), 403, "FORBIDDEN");
    const stillKept = await e2e.api.list(kept.uuid, p.token);
    expect(stillKept.status, stillKept.text).toBe(200);
    expectError(await e2e.api.request("GET", `${A}/merchants/${left.uuid}/members/${p.uuid}`, { token: admin.token }), 404, "MEMBER_NOT_FOUND");

    // Not a member (any more, never, or no identity at all), no such merchant: 404 with the standard body.
    expectError(await remove(left.uuid, p.uuid), 404, "MEMBER_NOT_FOUND");
    expectError(await remove(left.uuid, admin.uuid), 404, "MEMBER_NOT_FOUND");
    expectError(await remove(left.uuid, "not-a-uuid"), 404, "MEMBER_NOT_FOUND");
    expectError(await remove(UNKNOWN_UUID, p.uuid), 404, "MERCHANT_NOT_FOUND");
    expectError(await remove("not-a-uuid", p.uuid), 404, "MERCHANT_NOT_FOUND");

    const audit = (await auditEvents()).filter((e) => e.target_uuid === left.uuid && e.action === "merchant.member.remove");
    expect(audit.map((e) => [e.outcome, e.error_code, e.actor.uuid])).toEqual([
      ["failed", "MEMBER_NOT_FOUND", admin.uuid],
      ["failed", "MEMBER_NOT_FOUND", admin.uuid],
      ["failed", "MEMBER_NOT_FOUND", admin.uuid],
      ["succeeded", null, admin.uuid],
      ["failed", "MFA_REQUIRED", adminNoMfa.uuid],
      ["failed", "FORBIDDEN", platformOperator.uuid],
    ]);
  });
});

describe("machine credentials", () => {
  const path = (merchantUuid: string, rest = "") => `${A}/merchants/${merchantUuid}/machine-credentials${rest}`;

  it("lists, creates (409 twice), rotates and revokes (409 twice); the old token stops at once", async () => {
    const m = await e2e.operator.merchant({ name: "Cred Shop", credential: false });
    const empty = await e2e.api.request("GET", path(m.uuid), { token: admin.token });
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toEqual({ credentials: [] });
    expectError(await e2e.api.request("POST", path(m.uuid, "/rotate"), { token: admin.token }), 409, "NO_ACTIVE_CREDENTIAL");

    const created = await e2e.api.request("POST", path(m.uuid), { token: admin.token });
    expect(created.status, created.text).toBe(201);
    expectKeys(created.body, ["credential"]);
    expect(created.headers.get("location")).toBe(path(m.uuid, `/${created.body.credential.credential_uuid}`));
    expectKeys(created.body.credential, ISSUED_CREDENTIAL_KEYS);
    const first = created.body.credential;
    secrets.push(first.token);
    expect(first).toMatchObject({ merchant_uuid: m.uuid, status: "active" });
    expect(first.token).toMatch(MACHINE_TOKEN);
    expect(first.token.slice(4, 36)).toBe(first.key_id);
    const readWith = (token: string) => e2e.api.list(m.uuid, token);
    expect((await readWith(first.token)).status).toBe(200);

    expectError(await e2e.api.request("POST", path(m.uuid), { token: admin.token }), 409, "CREDENTIAL_ALREADY_ACTIVE");

    // Its Location reads it as the listing shows it, never with its token.
    const read = await e2e.api.request("GET", created.headers.get("location")!, { token: admin.token });
    expect(read.status, read.text).toBe(200);
    expectKeys(read.body, ["credential"]);
    expectKeys(read.body.credential, CREDENTIAL_KEYS);
    const { token: issuedToken, ...issued } = first;
    expect(read.body.credential).toMatchObject({ ...issued, last_used_at: expect.stringMatching(ISO_UTC), revoked_at: null, replaced_by_uuid: null });
    expect(read.text).not.toContain(issuedToken);
    expectError(await e2e.api.request("GET", path(m.uuid, `/${UNKNOWN_UUID}`), { token: admin.token }), 404, "CREDENTIAL_NOT_FOUND");
    expectError(await e2e.api.request("GET", path(m.uuid, "/not-a-uuid"), { token: admin.token }), 404, "CREDENTIAL_NOT_FOUND");
    expectError(await e2e.api.request("GET", path(UNKNOWN_UUID, `/${first.credential_uuid}`), { token: admin.token }), 404, "MERCHANT_NOT_FOUND");

    const listed = await e2e.api.request("GET", path(m.uuid), { token: admin.token });
    expect(listed.body.credentials).toHaveLength(1);
    expectKeys(listed.body.credentials[0], CREDENTIAL_KEYS);
    // Used once above: the listing says when.
    expect(listed.body.credentials[0]).toMatchObject({ credential_uuid: first.credential_uuid, last_used_at: expect.stringMatching(ISO_UTC), revoked_at: null, replaced_by_uuid: null });
    for (const word of ["token", "secret", "secret_hash"]) expect(listed.text).not.toContain(`"${word}"`);
    expect(listed.text).not.toContain(first.token);

    const rotated = await e2e.api.request("POST", path(m.uuid, "/rotate"), { token: admin.token });
    expect(rotated.status, rotated.text).toBe(200);
    expectKeys(rotated.body.credential, ISSUED_CREDENTIAL_KEYS);
    const second = rotated.body.credential;
    secrets.push(second.token);
    expect(second.token).toMatch(MACHINE_TOKEN);
    expect(second.token).not.toBe(first.token);
    expect(second.credential_uuid).not.toBe(first.credential_uuid);
    expect(second.status).toBe("active");
    expect((await readWith(second.token)).status).toBe(200);
    // The rotate went through this gateway, which forgot the cached old token:
    // it is refused at the very next request, not after the cache delay.
    expectError(await readWith(first.token), 401, "AUTH_INVALID_CREDENTIALS");

    const after = await e2e.api.request("GET", path(m.uuid), { token: admin.token });
    const byUuid = new Map(after.body.credentials.map((c: any) => [c.credential_uuid, c]));
    expect(byUuid.get(first.credential_uuid)).toMatchObject({ status: "revoked", replaced_by_uuid: second.credential_uuid, revoked_at: expect.stringMatching(ISO_UTC) });
    expect(byUuid.get(first.credential_uuid)).toHaveProperty("last_used_at", expect.stringMatching(ISO_UTC));
    expect(byUuid.get(second.credential_uuid)).toMatchObject({ status: "active", revoked_at: null });

    const revoke = (credentialUuid: string) => e2e.api.request("POST", path(m.uuid, `/${credentialUuid}/revoke`), { token: admin.token });
    const revoked = await revoke(second.credential_uuid);
    expect(revoked.status, revoked.text).toBe(200);
    expectKeys(revoked.body, ["credential"]);
    expectKeys(revoked.body.credential, CREDENTIAL_KEYS);
    expect(revoked.body.credential).toMatchObject({ credential_uuid: second.credential_uuid, status: "revoked" });
    expectError(await readWith(second.token), 401, "AUTH_INVALID_CREDENTIALS");
    expectError(await revoke(second.credential_uuid), 409, "CREDENTIAL_ALREADY_REVOKED");
    expectError(await revoke(first.credential_uuid), 409, "CREDENTIAL_ALREADY_REVOKED");
    expectError(await revoke(UNKNOWN_UUID), 404, "CREDENTIAL_NOT_FOUND");
    expectError(await e2e.api.request("POST", path(m.uuid, "/rotate"), { token: admin.token }), 409, "NO_ACTIVE_CREDENTIAL");

    // Another merchant's credential is not found through this merchant.
    const other = await e2e.operator.merchant({ name: "Other", credential: false, authorise: false, xpub: null });
    const otherCred = await e2e.api.request("POST", path(other.uuid), { token: admin.token });
    secrets.push(otherCred.body.credential.token);
    expectError(await e2e.api.request("POST", path(m.uuid, `/${otherCred.body.credential.credential_uuid}/revoke`), { token: admin.token }), 404, "CREDENTIAL_NOT_FOUND");
    expectError(await e2e.api.request("GET", path(m.uuid, `/${otherCred.body.credential.credential_uuid}`), { token: admin.token }), 404, "CREDENTIAL_NOT_FOUND");
    expect((await e2e.api.request("GET", path(other.uuid, `/${otherCred.body.credential.credential_uuid}`), { token: admin.token })).status).toBe(200);
    // A new one can be created once none is active.
    const fresh = await e2e.api.request("POST", path(m.uuid), { token: admin.token });
    expect(fresh.status).toBe(201);
    secrets.push(fresh.body.credential.token);
  });

  it("refuses a rotated-out token right after the rotate, even with requests using it in flight during the rotate", async () => {
    const m = await e2e.operator.merchant({ name: "Cred Race", credential: false });
    const created = await e2e.api.request("POST", path(m.uuid), { token: admin.token });
    const old = created.body.credential.token as string;
    secrets.push(old);
    expect((await e2e.api.list(m.uuid, old)).status).toBe(200);
    // Reads with the old token keep arriving while the rotate runs; some look
    // the token up before the rotate commits. None may leave it cached.
    let rotating = true;
    const readers = Array.from({ length: 8 }, async () => {
      const statuses: number[] = [];
      while (rotating) statuses.push((await e2e.api.list(m.uuid, old)).status);
      return statuses;
    });
    const rotated = await e2e.api.request("POST", path(m.uuid, "/rotate"), { token: admin.token });
    rotating = false;
    expect(rotated.status, rotated.text).toBe(200);
    secrets.push(rotated.body.credential.token);
    for (const statuses of await Promise.all(readers)) for (const s of statuses) expect([200, 401]).toContain(s);
    const after = await Promise.all(Array.from({ length: 20 }, () => e2e.api.list(m.uuid, old)));
    expect(after.map((r) => r.status)).toEqual(Array(20).fill(401));
    expect((await e2e.api.list(m.uuid, rotated.body.credential.token)).status).toBe(200);
  });

  it("answers 404 for an unknown merchant, 409 to issue for a closed one, 400 for a body", async () => {
    for (const [method, rest] of [["GET", ""], ["POST", ""], ["POST", "/rotate"], ["POST", `/${UNKNOWN_UUID}/revoke`]] as const) {
      expectError(await e2e.api.request(method, path(UNKNOWN_UUID, rest), { token: admin.token }), 404, "MERCHANT_NOT_FOUND");
      expectError(await e2e.api.request(method, path("not-a-uuid", rest), { token: admin.token }), 404, "MERCHANT_NOT_FOUND");
    }
    const closed = await createMerchant("Closed Cred");
    await e2e.api.request("POST", `${A}/merchants/${closed.uuid}/close`, { token: admin.token });
    expectError(await e2e.api.request("POST", path(closed.uuid), { token: admin.token }), 409, "MERCHANT_CLOSED");
    expect((await e2e.api.request("GET", path(closed.uuid), { token: admin.token })).status).toBe(200);
    expectError(await e2e.api.request("POST", path(closed.uuid), { token: admin.token, json: { name: "x" } }), 400);
  });

  it("refuses a machine bearer (even the merchant's own), a person without the permission, and an admin without MFA (403)", async () => {
    const m = await e2e.operator.merchant({ name: "Guarded" });
    secrets.push(m.token);
    const cases: [string, string][] = [["GET", ""], ["POST", ""], ["POST", "/rotate"], ["POST", `/${UNKNOWN_UUID}/revoke`]];
    for (const [method, rest] of cases) {
      expectError(await e2e.api.request(method, path(m.uuid, rest), { token: m.token }), 403, "FORBIDDEN");
      expectError(await e2e.api.request(method, path(m.uuid, rest), { token: member.token }), 403, "FORBIDDEN");
      expectError(await e2e.api.request(method, path(m.uuid, rest), { token: adminNoMfa.token }), 403, "MFA_REQUIRED");
      expectError(await e2e.api.request(method, path(m.uuid, rest)), 401);
    }
    // The merchant's credential still works: nothing was rotated.
    expect((await e2e.api.list(m.uuid, m.token)).status).toBe(200);
  });

  it("leaves exactly one active credential after 20 concurrent rotates over HTTP", async () => {
    const m = await e2e.operator.merchant({ name: "Rotate Race" });
    secrets.push(m.token);
    const results = await Promise.all(Array.from({ length: 20 }, () => e2e.api.request("POST", path(m.uuid, "/rotate"), { token: admin.token })));
    for (const res of results) expect([200, 409], res.text).toContain(res.status);
    const tokens = results.filter((r) => r.status === 200).map((r) => r.body.credential.token as string);
    secrets.push(...tokens);
    expect(tokens.length).toBeGreaterThan(0);
    const listed = await e2e.api.request("GET", path(m.uuid), { token: admin.token });
    const active = listed.body.credentials.filter((c: any) => c.status === "active");
    expect(active).toHaveLength(1);
    expect(listed.body.credentials).toHaveLength(tokens.length + 1);
    // Exactly one of the issued tokens authenticates (none was used before, so none is cached).
    const working = [];
    for (const token of tokens) if ((await e2e.api.list(m.uuid, token)).status === 200) working.push(token);
    expect(working).toHaveLength(1);
    expect(working[0]!.slice(4, 36)).toBe(active[0].key_id);
  });
});

describe("rules, policies, operating profiles, providers, bindings, connections, wallets", () => {
  it("versions rules: 201 with Location, 409 RULE_UNCHANGED, a new version on change; lists open and closed, paged", async () => {
    const post = (json: unknown) => e2e.api.request("POST", `${A}/rules`, { token: admin.token, json });
    const first = await post({ capability: "crypto.payin", jurisdiction: "JP", effect: "allow" });
    expect(first.status, first.text).toBe(201);
    expectKeys(first.body, ["rule"]);
    expectKeys(first.body.rule, ["capability", "effect", "jurisdiction", "rule_uuid", "valid_from", "valid_to", "version"]);
    expect(first.body.rule).toMatchObject({ capability: "crypto.payin", jurisdiction: "JP", effect: "allow", version: 1, valid_to: null });
    expect(first.headers.get("location")).toBe(`${A}/rules/${first.body.rule.rule_uuid}`);
    const readRule = (location: string) => e2e.api.request("GET", location, { token: admin.token });
    const readFirst = await readRule(first.headers.get("location")!);
    expect(readFirst.status, readFirst.text).toBe(200);
    expect(readFirst.body).toEqual(first.body);
    expectError(await post({ capability: "crypto.payin", jurisdiction: "JP", effect: "allow" }), 409, "RULE_UNCHANGED");
    const second = await post({ capability: "crypto.payin", jurisdiction: "JP", effect: "deny" });
    expect(second.status).toBe(201);
    expect(second.body.rule).toMatchObject({ version: 2, effect: "deny" });
    expect((await readRule(second.headers.get("location")!)).body).toEqual(second.body);
    // The closed version stays readable, now with its end.
    expect((await readRule(first.headers.get("location")!)).body.rule).toEqual({ ...first.body.rule, valid_to: second.body.rule.valid_from });
    expectError(await readRule(`${A}/rules/${UNKNOWN_UUID}`), 404, "RULE_NOT_FOUND");
    expectError(await readRule(`${A}/rules/not-a-uuid`), 404, "RULE_NOT_FOUND");
    const japan = (res: ApiResponse) => res.body.data.filter((r: any) => r.jurisdiction === "JP");
    const open = await e2e.api.request("GET", `${A}/rules?limit=100`, { token: admin.token });
    expect(open.status).toBe(200);
    expectKeys(open.body, ["data", "pagination"]);
    expect(japan(open).map((r: any) => r.version)).toEqual([2]);
    const withClosed = await e2e.api.request("GET", `${A}/rules?include_closed=true&limit=100`, { token: admin.token });
    expect(japan(withClosed).map((r: any) => r.version).sort()).toEqual([1, 2]);
    expect(withClosed.body.pagination).toEqual({ total: withClosed.body.data.length, limit: 100, offset: 0 });
    // Pages: the default limit is 20; a page past the end is empty with the same total.
    const page = await e2e.api.request("GET", `${A}/rules?include_closed=true&limit=1&offset=1`, { token: admin.token });
    expect(page.body).toEqual({ data: [withClosed.body.data[1]], pagination: { total: withClosed.body.pagination.total, limit: 1, offset: 1 } });
    expect((await e2e.api.request("GET", `${A}/rules`, { token: admin.token })).body.pagination.limit).toBe(20);
    const past = await e2e.api.request("GET", `${A}/rules?offset=1000`, { token: admin.token });
    expect(past.body).toEqual({ data: [], pagination: { total: open.body.pagination.total, limit: 20, offset: 1000 } });
    expectError(await e2e.api.request("GET", `${A}/rules?include_closed=yes`, { token: admin.token }), 400);
    for (const query of ["limit=0", "limit=101", "offset=-1", "limit=x", "limit=1&limit=2"]) {
      expectError(await e2e.api.request("GET", `${A}/rules?${query}`, { token: admin.token }), 400, "VALIDATION_ERROR");
    }
    for (const json of [
      {},
      { capability: "crypto.payin", jurisdiction: "JP" },
      { capability: "crypto.payin", jurisdiction: "XX", effect: "allow" },
      { capability: "crypto.payin", jurisdiction: "jp", effect: "allow" },
      { capability: "Bad Cap", jurisdiction: "JP", effect: "allow" },
      { capability: "crypto.payin", jurisdiction: "JP", effect: "maybe" },
      { capability: "crypto.payin", jurisdiction: "JP", effect: "allow", version: 3 },
      { capability: 1, jurisdiction: "JP", effect: "allow" },
    ]) {
      expectError(await post(json), 400);
    }
  });

  it("refuses a rule or binding naming a capability it does not know, listing the known ones, and stores nothing", async () => {
    const known = "capability must be one of the known capabilities: crypto.payin";
    for (const capability of ["crypto.payout", "test.cap", "Crypto.payin"]) {
      const refused = expectError(await e2e.api.request("POST", `${A}/rules`, { token: admin.token, json: { capability, jurisdiction: "KR", effect: "allow" } }), 400, "VALIDATION_ERROR");
      expect(refused.message).toBe(known);
    }
    const rules = await e2e.api.request("GET", `${A}/rules?include_closed=true&limit=100`, { token: admin.token });
    expect(rules.body.data.filter((r: any) => r.jurisdiction === "KR")).toEqual([]);
    const m = await createMerchant("Unknown capability");
    const binding = { provider_uuid: "01a2008d-7400-7000-8000-000000000001", capability: "crypto.payout", jurisdiction: "DE" };
    const refused = expectError(await e2e.api.request("PUT", `${A}/merchants/${m.uuid}/provider-bindings`, { token: admin.token, json: binding }), 400, "VALIDATION_ERROR");
    expect(refused.message).toBe(known);
    // Nothing was bound: the merchant's readiness still lacks a provider.
    const readiness = await e2e.api.request("GET", `${A}/merchants/${m.uuid}/readiness`, { token: admin.token });
    expect(readiness.body.readiness.pairs[0].reasons).toContain("provider_not_ready");
  });

  it("ensures an operating profile and versions policies; 400, 404, 409 cases", async () => {
    const m = await createMerchant("Config");
    const profile = (uuid: string, json: unknown) => e2e.api.request("PUT", `${A}/merchants/${uuid}/operating-profile`, { token: admin.token, json });
    const p1 = await profile(m.uuid, { operating_mode: "non_custodial" });
    expect(p1.status, p1.text).toBe(200);
    expect(p1.body).toEqual({
      operating_profile: { merchant_uuid: m.uuid, operating_mode: "non_custodial", created_at: expect.stringMatching(ISO_UTC), updated_at: expect.stringMatching(ISO_UTC) },
    });
    expect((await profile(m.uuid, { operating_mode: "non_custodial" })).status).toBe(200);
    expect((await profile(m.uuid, { operating_mode: "hybrid" })).body.operating_profile.operating_mode).toBe("hybrid");
    expectError(await profile(m.uuid, { operating_mode: "custodial" }), 400);
    expectError(await profile(m.uuid, { operating_mode: "hybrid", extra: true }), 400);
    expectError(await profile(UNKNOWN_UUID, { operating_mode: "hybrid" }), 404, "MERCHANT_NOT_FOUND");

    const policy = (uuid: string, json: unknown) => e2e.api.request("POST", `${A}/merchants/${uuid}/policies`, { token: admin.token, json });
    const pol = await policy(m.uuid, { scope: "payin", effect: "allow" });
    expect(pol.status, pol.text).toBe(201);
    expect(pol.headers.get("location")).toBe(`${A}/merchants/${m.uuid}/policies/${pol.body.policy.policy_uuid}`);
    expectKeys(pol.body.policy, ["effect", "merchant_uuid", "policy_uuid", "scope", "valid_from", "valid_to", "version"]);
    expect(pol.body.policy).toMatchObject({ merchant_uuid: m.uuid, scope: "payin", effect: "allow", version: 1 });
    const readPolicy = (location: string) => e2e.api.request("GET", location, { token: admin.token });
    const polRead = await readPolicy(pol.headers.get("location")!);
    expect(polRead.status, polRead.text).toBe(200);
    expect(polRead.body).toEqual(pol.body);
    expectError(await readPolicy(`${A}/merchants/${m.uuid}/policies/${UNKNOWN_UUID}`), 404, "POLICY_NOT_FOUND");
    expectError(await readPolicy(`${A}/merchants/${m.uuid}/policies/not-a-uuid`), 404, "POLICY_NOT_FOUND");
    expectError(await readPolicy(`${A}/merchants/${UNKNOWN_UUID}/policies/${pol.body.policy.policy_uuid}`), 404, "MERCHANT_NOT_FOUND");
    const otherMerchant = await createMerchant("Other Config");
    expectError(await readPolicy(`${A}/merchants/${otherMerchant.uuid}/policies/${pol.body.policy.policy_uuid}`), 404, "POLICY_NOT_FOUND");
    expectError(await policy(m.uuid, { scope: "payin", effect: "allow" }), 409, "POLICY_UNCHANGED");
    expect((await policy(m.uuid, { scope: "payin", effect: "deny" })).body.policy.version).toBe(2);
    expectError(await policy(m.uuid, { scope: "everything", effect: "allow" }), 400);
    expectError(await policy(m.uuid, { scope: "payin" }), 400);
    expectError(await policy(UNKNOWN_UUID, { scope: "payin", effect: "allow" }), 404, "MERCHANT_NOT_FOUND");

    await e2e.api.request("POST", `${A}/merchants/${m.uuid}/close`, { token: admin.token });
    expectError(await profile(m.uuid, { operating_mode: "non_custodial" }), 409, "MERCHANT_CLOSED");
    expectError(await policy(m.uuid, { scope: "payout", effect: "allow" }), 409, "MERCHANT_CLOSED");
    // A closed merchant's policies stay readable.
    expect((await readPolicy(pol.headers.get("location")!)).status).toBe(200);
  });

  it("keeps a provider registry, binds providers and holds connection secret references", async () => {
    const providers = await e2e.api.request("GET", `${A}/providers`, { token: admin.token });
    expect(providers.status).toBe(200);
    expectKeys(providers.body, ["data", "pagination"]);
    expect(providers.body.data.map((p: any) => p.name)).toContain("evm-rpc");
    expect(providers.body.pagination).toEqual({ total: providers.body.data.length, limit: 20, offset: 0 });
    const name = `prov-${randomBytes(3).toString("hex")}`;
    const created = await e2e.api.request("POST", `${A}/providers`, { token: admin.token, json: { name } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ provider: { provider_uuid: expect.stringMatching(UUID), name, created_at: expect.stringMatching(ISO_UTC) } });
    expect(created.headers.get("location")).toBe(`${A}/providers/${created.body.provider.provider_uuid}`);
    const read = (location: string) => e2e.api.request("GET", location, { token: admin.token });
    const providerRead = await read(created.headers.get("location")!);
    expect(providerRead.status, providerRead.text).toBe(200);
    expect(providerRead.body).toEqual(created.body);
    expectError(await read(`${A}/providers/${UNKNOWN_UUID}`), 404, "PROVIDER_NOT_FOUND");
    expectError(await read(`${A}/providers/not-a-uuid`), 404, "PROVIDER_NOT_FOUND");
    const paged = await e2e.api.request("GET", `${A}/providers?limit=1&offset=1`, { token: admin.token });
    expect(paged.body.pagination).toEqual({ total: providers.body.pagination.total + 1, limit: 1, offset: 1 });
    expect(paged.body.data).toHaveLength(1);
    expectError(await e2e.api.request("GET", `${A}/providers?limit=101`, { token: admin.token }), 400, "VALIDATION_ERROR");
    expectError(await e2e.api.request("GET", `${A}/providers?page=2`, { token: admin.token }), 400, "VALIDATION_ERROR");
    for (const trojan of ["evm\u202Erpc", "evm\u2066rpc\u2069"]) {
      const refused = expectError(await e2e.api.request("POST", `${A}/providers`, { token: admin.token, json: { name: trojan } }), 400, "VALIDATION_ERROR");
      expect(refused.message).toMatch(/^name must not contain bidirectional control characters/);
    }
    expectError(await e2e.api.request("POST", `${A}/providers`, { token: admin.token, json: { name: name.toUpperCase() } }), 409, "PROVIDER_NAME_TAKEN");
    expectError(await e2e.api.request("POST", `${A}/providers`, { token: admin.token, json: { name: "" } }), 400);
    expectError(await e2e.api.request("POST", `${A}/providers`, { token: admin.token, json: { name, kind: "rpc" } }), 400);
    const providerUuid = created.body.provider.provider_uuid;

    const m = await createMerchant("Providers");
    const bind = (json: unknown, uuid = m.uuid) => e2e.api.request("PUT", `${A}/merchants/${uuid}/provider-bindings`, { token: admin.token, json });
    const b1 = await bind({ provider_uuid: providerUuid, capability: "crypto.payin", jurisdiction: "DE" });
    expect(b1.status, b1.text).toBe(201);
    expect(b1.headers.get("location")).toBe(`${A}/merchants/${m.uuid}/provider-bindings/${b1.body.provider_binding.binding_uuid}`);
    expectKeys(b1.body.provider_binding, ["binding_uuid", "capability", "created_at", "jurisdiction", "merchant_uuid", "provider_uuid"]);
    const b2 = await bind({ provider_uuid: providerUuid, capability: "crypto.payin", jurisdiction: "DE" });
    expect(b2.status).toBe(200);
    expect(b2.headers.get("location")).toBeNull();
    expect(b2.body).toEqual(b1.body);
    const bindingRead = await read(b1.headers.get("location")!);
    expect(bindingRead.status, bindingRead.text).toBe(200);
    expect(bindingRead.body).toEqual(b1.body);
    const otherMerchant = await createMerchant("Other Providers");
    const bindingUuid = b1.body.provider_binding.binding_uuid;
    expectError(await read(`${A}/merchants/${m.uuid}/provider-bindings/${UNKNOWN_UUID}`), 404, "BINDING_NOT_FOUND");
    expectError(await read(`${A}/merchants/${m.uuid}/provider-bindings/not-a-uuid`), 404, "BINDING_NOT_FOUND");
    expectError(await read(`${A}/merchants/${otherMerchant.uuid}/provider-bindings/${bindingUuid}`), 404, "BINDING_NOT_FOUND");
    expectError(await read(`${A}/merchants/${UNKNOWN_UUID}/provider-bindings/${bindingUuid}`), 404, "MERCHANT_NOT_FOUND");
    expectError(await bind({ provider_uuid: UNKNOWN_UUID, capability: "crypto.payin", jurisdiction: "DE" }), 404, "PROVIDER_NOT_FOUND");
    expectError(await bind({ provider_uuid: "x", capability: "crypto.payin", jurisdiction: "DE" }), 400);
    expectError(await bind({ provider_uuid: providerUuid, capability: "crypto.payin" }), 400);
    expectError(await bind({ provider_uuid: providerUuid, capability: "crypto.payin", jurisdiction: "DE" }, UNKNOWN_UUID), 404, "MERCHANT_NOT_FOUND");

    const connect = (json: unknown) => e2e.api.request("PUT", `${A}/merchants/${m.uuid}/provider-connections`, { token: admin.token, json });
    const c1 = await connect({ provider_uuid: providerUuid, secret_reference: "vault:kv/payin/acme" });
    expect(c1.status, c1.text).toBe(201);
    expect(c1.headers.get("location")).toBe(`${A}/merchants/${m.uuid}/provider-connections/${c1.body.provider_connection.connection_uuid}`);
    expectKeys(c1.body.provider_connection, ["connection_uuid", "created_at", "merchant_uuid", "provider_uuid", "secret_reference", "updated_at"]);
    expect(c1.body.provider_connection.secret_reference).toBe("vault:kv/payin/acme");
    const connectionRead = await read(c1.headers.get("location")!);
    expect(connectionRead.status, connectionRead.text).toBe(200);
    expect(connectionRead.body).toEqual(c1.body);
    const createdConnection = c1.body.provider_connection.connection_uuid;
    expectError(await read(`${A}/merchants/${m.uuid}/provider-connections/${UNKNOWN_UUID}`), 404, "CONNECTION_NOT_FOUND");
    expectError(await read(`${A}/merchants/${m.uuid}/provider-connections/not-a-uuid`), 404, "CONNECTION_NOT_FOUND");
    expectError(await read(`${A}/merchants/${otherMerchant.uuid}/provider-connections/${createdConnection}`), 404, "CONNECTION_NOT_FOUND");
    expectError(await read(`${A}/merchants/${UNKNOWN_UUID}/provider-connections/${createdConnection}`), 404, "MERCHANT_NOT_FOUND");
    expect((await connect({ provider_uuid: providerUuid })).status).toBe(200);
    expect((await connect({ provider_uuid: providerUuid, secret_reference: "vault:kv/payin/acme" })).status).toBe(200);
    expectError(await connect({ provider_uuid: providerUuid, secret_reference: "vault:kv/other" }), 409, "CONNECTION_EXISTS");
    expectError(await connect({ provider_uuid: providerUuid, secret_reference: "not a reference" }), 400);
    expectError(await connect({ provider_uuid: providerUuid, secret: "hunter2" }), 400);
    const evm = await connect({ provider_uuid: "01a2008d-7400-7000-8000-000000000001" });
    expect(evm.status).toBe(201);
    expect(evm.body.provider_connection.secret_reference).toBeNull();

    const connectionUuid = c1.body.provider_connection.connection_uuid;
    const rotate = (json: unknown, cu = connectionUuid) =>
      e2e.api.request("POST", `${A}/merchants/${m.uuid}/provider-connections/${cu}/rotate-secret`, { token: admin.token, json });
    const r1 = await rotate({ secret_reference: "vault:kv/payin/acme-2" });
    expect(r1.status, r1.text).toBe(200);
    expect(r1.body.provider_connection).toMatchObject({ connection_uuid: connectionUuid, secret_reference: "vault:kv/payin/acme-2" });
    expect((await read(c1.headers.get("location")!)).body).toEqual(r1.body);
    expectError(await rotate({ secret_reference: "vault:kv/payin/acme-2" }), 409, "SECRET_REFERENCE_UNCHANGED");
    expectError(await rotate({}), 400);
    expectError(await rotate({ secret_reference: null }), 400);
    expectError(await rotate({ secret_reference: "vault:x" }, UNKNOWN_UUID), 404, "CONNECTION_NOT_FOUND");
  });

  it("answers each pair's readiness with every failing reason in the contract's order, until the merchant is ready", async () => {
    const m = await createMerchant("Readiness");
    const readiness = async (uuid = m.uuid) => {
      const res = await e2e.api.request("GET", `${A}/merchants/${uuid}/readiness`, { token: admin.token });
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const reasonsOf = async () => (await readiness()).readiness.pairs.map((p: any) => [p.asset, p.rail, p.ready, p.reasons]);
    const fresh = await readiness();
    expect(fresh).toEqual({
      readiness: {
        merchant_uuid: m.uuid,
        pairs: [
          { asset: "usdt", rail: "bep20", ready: false, reasons: ["merchant_inactive", "operating_profile_missing", "payin_not_allowed", "wallet_not_ready", "provider_not_ready"] },
          { asset: "usdc", rail: "erc20", ready: false, reasons: ["merchant_inactive", "operating_profile_missing", "payin_not_allowed", "wallet_not_ready", "provider_not_ready"] },
        ],
      },
    });

    const admin$ = (method: string, path: string, json?: unknown) => e2e.api.request(method, `${A}/merchants/${m.uuid}${path}`, { token: admin.token, json });
    expect((await admin$("POST", "/activate")).status).toBe(200);
    expect((await admin$("PUT", "/operating-profile", { operating_mode: "non_custodial" })).status).toBeLessThan(300);
    expect((await admin$("POST", "/policies", { scope: "payin", effect: "deny" })).status).toBe(201);
    expect(await reasonsOf()).toEqual([
      ["usdt", "bep20", false, ["payin_not_allowed", "wallet_not_ready", "provider_not_ready"]],
      ["usdc", "erc20", false, ["payin_not_allowed", "wallet_not_ready", "provider_not_ready"]],
    ]);
    expect((await admin$("POST", "/policies", { scope: "payin", effect: "allow" })).status).toBe(201);
    expect((await admin$("PUT", "/wallet", { xpub: randomXpub() })).status).toBe(200);
    // A binding alone is not enough: the merchant must be connected to that provider.
    const evmRpc = "01a2008d-7400-7000-8000-000000000001";
    expect((await admin$("PUT", "/provider-bindings", { provider_uuid: evmRpc, capability: "crypto.payin", jurisdiction: "DE" })).status).toBe(201);
    expect(await reasonsOf()).toEqual([
      ["usdt", "bep20", false, ["provider_not_ready"]],
      ["usdc", "erc20", false, ["provider_not_ready"]],
    ]);
    expect((await admin$("PUT", "/provider-connections", { provider_uuid: evmRpc })).status).toBe(201);
    // Configured, but this platform's observer watches no chain: no rail is observed.
    await setObserverCursors(e2e.platform, { bep20: null, erc20: null });
    expect(await reasonsOf()).toEqual([
      ["usdt", "bep20", false, ["provider_not_ready"]],
      ["usdc", "erc20", false, ["provider_not_ready"]],
    ]);
    // Observers that advanced just now make it ready...
    await setObserverCursors(e2e.platform, { bep20: new Date(), erc20: new Date() });
    expect(await reasonsOf()).toEqual([
      ["usdt", "bep20", true, []],
      ["usdc", "erc20", true, []],
    ]);
    // ...merchant-wide. In a jurisdiction, its crypto.payin rule and a provider bound for it count too (as at pay-in create):
    // bound for DE, where a rule allows; in US no rule allows and nothing is bound.
    await e2e.operator.allowJurisdictions(["DE"]);
    const reasonsIn = async (jurisdiction: string) => {
      const res = await e2e.api.request("GET", `${A}/merchants/${m.uuid}/readiness?jurisdiction=${jurisdiction}`, { token: admin.token });
      expect(res.status, res.text).toBe(200);
      expect(res.body.readiness.merchant_uuid).toBe(m.uuid);
      return res.body.readiness.pairs.map((p: any) => [p.asset, p.rail, p.ready, p.reasons]);
    };
    expect(await reasonsIn("DE")).toEqual([
      ["usdt", "bep20", true, []],
      ["usdc", "erc20", true, []],
    ]);
    expect(await reasonsIn("US")).toEqual([
      ["usdt", "bep20", false, ["payin_not_allowed", "provider_not_ready"]],
      ["usdc", "erc20", false, ["payin_not_allowed", "provider_not_ready"]],
    ]);
    expect((await admin$("PUT", "/provider-bindings", { provider_uuid: evmRpc, capability: "crypto.payin", jurisdiction: "US" })).status).toBe(201);
    expect((await reasonsIn("US")).map((p: any) => p[3])).toEqual([["payin_not_allowed"], ["payin_not_allowed"]]);
    for (const bad of ["de", "XX", "DEU", ""]) {
      const refused = expectError(await e2e.api.request("GET", `${A}/merchants/${m.uuid}/readiness?jurisdiction=${bad}`, { token: admin.token }), 400, "VALIDATION_ERROR");
      expect(refused.message).toMatch(/jurisdiction/);
    }
    // ...one stalled for two minutes (OBSERVER_STALL_MS is one) makes its rail's pair provider_not_ready, until it catches up.
    await setObserverCursors(e2e.platform, { bep20: new Date(Date.now() - 120_000) });
    expect(await reasonsOf()).toEqual([
      ["usdt", "bep20", false, ["provider_not_ready"]],
      ["usdc", "erc20", true, []],
    ]);
    await setObserverCursors(e2e.platform, { bep20: new Date() });
    expect(await reasonsOf()).toEqual([
      ["usdt", "bep20", true, []],
      ["usdc", "erc20", true, []],
    ]);

    expect((await admin$("POST", "/suspend")).status).toBe(200);
    expect(await reasonsOf()).toEqual([
      ["usdt", "bep20", false, ["merchant_inactive"]],
      ["usdc", "erc20", false, ["merchant_inactive"]],
    ]);
    // Closed merchants stay readable, readiness included.
    expect((await admin$("POST", "/close")).status).toBe(200);
    expect((await readiness()).readiness.pairs[0].reasons).toEqual(["merchant_inactive"]);

    // A UUID is the same in any letter case.
    expect((await readiness(m.uuid.toUpperCase())).readiness.merchant_uuid).toBe(m.uuid);
    const upper = await e2e.api.request("GET", `${A}/merchants/${m.uuid.toUpperCase()}`, { token: admin.token });
    expect(upper.status, upper.text).toBe(200);
    expect(upper.body.merchant.uuid).toBe(m.uuid);
    expectError(await e2e.api.request("GET", `${A}/merchants/${UNKNOWN_UUID}/readiness`, { token: admin.token }), 404, "MERCHANT_NOT_FOUND");
    expectError(await e2e.api.request("GET", `${A}/merchants/not-a-uuid/readiness`, { token: admin.token }), 404, "MERCHANT_NOT_FOUND");
    expectError(await e2e.api.request("GET", `${A}/merchants/${m.uuid}/readiness?asset=usdt`, { token: admin.token }), 400);
  });

  it("sets a receiving wallet (200) and keeps its counter when replaced; 400, 404, 409", async () => {
    const m = await createMerchant("Wallet");
    const put = (json: unknown, uuid = m.uuid) => e2e.api.request("PUT", `${A}/merchants/${uuid}/wallet`, { token: admin.token, json });
    const xpub = randomXpub();
    const res = await put({ xpub });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      wallet: { merchant_uuid: m.uuid, xpub, next_index: 0, created_at: expect.stringMatching(ISO_UTC), updated_at: expect.stringMatching(ISO_UTC) },
    });
    const replaced = await put({ xpub: randomXpub() });
    expect(replaced.status).toBe(200);
    expect(replaced.body.wallet.created_at).toBe(res.body.wallet.created_at);
    expectError(await put({ xpub: "xpub-not-really" }), 400, "WALLET_XPUB_INVALID");
    expectError(await put({}), 400);
    expectError(await put({ xpub, chain: "eth" }), 400);
    expectError(await put({ xpub }, UNKNOWN_UUID), 404, "MERCHANT_NOT_FOUND");
    await e2e.api.request("POST", `${A}/merchants/${m.uuid}/close`, { token: admin.token });
    expectError(await put({ xpub: randomXpub() }), 409, "MERCHANT_CLOSED");
  });

  it("reads the receiving wallet (closed merchants included); 404 WALLET_NOT_FOUND without one, MERCHANT_NOT_FOUND for no merchant", async () => {
    const m = await createMerchant("Wallet read");
    const get = (uuid = m.uuid, token = admin.token) => e2e.api.request("GET", `${A}/merchants/${uuid}/wallet`, { token });
    expectError(await get(), 404, "WALLET_NOT_FOUND");
    for (const unknown of [UNKNOWN_UUID, "not-a-uuid"]) expectError(await get(unknown), 404, "MERCHANT_NOT_FOUND");
    const set = await e2e.api.request("PUT", `${A}/merchants/${m.uuid}/wallet`, { token: admin.token, json: { xpub: randomXpub() } });
    expect(set.status, set.text).toBe(200);
    const read = await get();
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual(set.body);
    // Closed: its configuration is frozen, its wallet still readable.
    expect((await e2e.api.request("POST", `${A}/merchants/${m.uuid}/close`, { token: admin.token })).status).toBe(200);
    expect((await get()).body).toEqual(set.body);
    // Read with the permission that sets it; a platform_operator (merchant.read only) may not.
    expectError(await get(m.uuid, platformOperator.token), 403, "FORBIDDEN");
    expectError(await e2e.api.request("GET", `${A}/merchants/${m.uuid}/wallet?verbose=1`, { token: admin.token }), 400, "VALIDATION_ERROR");
  });
});

describe("audit log", () => {
  async function withId(method: string, path: string, json?: unknown): Promise<{ res: ApiResponse; id: string }> {
    const res = await e2e.api.request(method, path, { token: admin.token, json });
    const id = res.headers.get("x-request-id")!;
    expect(id).toMatch(PLATFORM_REQUEST_ID);
    return { res, id };
  }

  it("records changes made in merchants, identity and allocation, and refused attempts", async () => {
    const create = await withId("POST", `${A}/merchants`, { display_name: "Audited" });
    expect(create.res.status).toBe(201);
    const uuid = create.res.body.merchant.uuid;
    const [created] = await eventsOf(create.id);
    expectKeys(created, AUDIT_KEYS);
    expect(created).toMatchObject({
      actor: { kind: "identity", uuid: admin.uuid, os_user: null },
      action: "merchant.create",
      target_type: "merchant",
      target_uuid: uuid,
      outcome: "succeeded",
      error_code: null,
      request_id: create.id,
    });
    expect(created.event_uuid).toMatch(UUID);
    expect(created.occurred_at).toMatch(ISO_UTC);

    const refused = await withId("POST", `${A}/merchants/${uuid}/suspend`);
    expect(refused.res.status).toBe(409);
    expect(await eventsOf(refused.id)).toEqual([
      expect.objectContaining({ action: "merchant.suspend", target_uuid: uuid, outcome: "failed", error_code: "MERCHANT_TRANSITION_NOT_ALLOWED" }),
    ]);

    const invalid = await withId("POST", `${A}/merchants`, { display_name: "" });
    expect(invalid.res.status).toBe(400);
    expect(await eventsOf(invalid.id)).toEqual([expect.objectContaining({ action: "merchant.create", outcome: "failed", error_code: "VALIDATION_ERROR", target_uuid: null })]);

    const email = `aud-${randomBytes(4).toString("hex")}@example.com`;
    const identity = await withId("POST", `${A}/identities`, { email, password: "audited-password-1", roles: ["merchant_member"] });
    expect(identity.res.status).toBe(201);
    // Exactly one event, naming the admin, once identity's relay delivered it.
    await settledEventsOf(identity.id, [
      expect.objectContaining({
        actor: { kind: "identity", uuid: admin.uuid, os_user: null },
        action: "identity.create",
        target_type: "identity",
        target_uuid: identity.res.body.identity.uuid,
        outcome: "succeeded",
        error_code: null,
        request_id: identity.id,
      }),
    ]);
    const identityUuid = identity.res.body.identity.uuid;
    const lock = await withId("POST", `${A}/identities/${identityUuid}/lock`);
    expect(lock.res.status).toBe(200);
    await settledEventsOf(lock.id, [expect.objectContaining({ action: "identity.lock", target_uuid: identityUuid, outcome: "succeeded" })]);
    const relock = await withId("POST", `${A}/identities/${identityUuid}/lock`);
    expect(await eventsOf(relock.id)).toEqual([expect.objectContaining({ action: "identity.lock", outcome: "failed", error_code: "IDENTITY_ALREADY_LOCKED" })]);
    const disable = await withId("POST", `${A}/identities/${identityUuid}/disable`);
    await settledEventsOf(disable.id, [expect.objectContaining({ action: "identity.disable", outcome: "succeeded" })]);
    const role = await withId("DELETE", `${A}/identities/${identityUuid}/roles/merchant_member`);
    await settledEventsOf(role.id, [expect.objectContaining({ action: "identity.role.remove", target_uuid: identityUuid, outcome: "succeeded" })]);

    const wallet = await withId("PUT", `${A}/merchants/${uuid}/wallet`, { xpub: randomXpub() });
    expect(wallet.res.status).toBe(200);
    // Recorded by allocation with the change, delivered by its relay.
    await settledEventsOf(wallet.id, [
      expect.objectContaining({ action: "wallet.set", target_type: "merchant", target_uuid: uuid, outcome: "succeeded", actor: { kind: "identity", uuid: admin.uuid, os_user: null } }),
    ]);

    const cred = await withId("POST", `${A}/merchants/${uuid}/machine-credentials`);
    expect(cred.res.status).toBe(201);
    secrets.push(cred.res.body.credential.token);
    const credUuid = cred.res.body.credential.credential_uuid;
    await settledEventsOf(cred.id, [expect.objectContaining({ action: "credential.create", target_type: "machine_credential", target_uuid: credUuid, outcome: "succeeded" })]);
    const cred409 = await withId("POST", `${A}/merchants/${uuid}/machine-credentials`);
    expect(await eventsOf(cred409.id)).toEqual([
      expect.objectContaining({ action: "credential.create", target_type: "merchant", target_uuid: uuid, outcome: "failed", error_code: "CREDENTIAL_ALREADY_ACTIVE" }),
    ]);
    const rot = await withId("POST", `${A}/merchants/${uuid}/machine-credentials/rotate`);
    secrets.push(rot.res.body.credential.token);
    await settledEventsOf(rot.id, [expect.objectContaining({ action: "credential.rotate", target_uuid: rot.res.body.credential.credential_uuid, outcome: "succeeded" })]);
    const rev = await withId("POST", `${A}/merchants/${uuid}/machine-credentials/${credUuid}/revoke`);
    expect(await eventsOf(rev.id)).toEqual([expect.objectContaining({ action: "credential.revoke", target_uuid: credUuid, outcome: "failed", error_code: "CREDENTIAL_ALREADY_REVOKED" })]);

    // A refused permission is recorded against the person who tried.
    const denied = await e2e.api.request("POST", `${A}/merchants`, { token: member.token, json: { display_name: "Nope" } });
    const denyId = denied.headers.get("x-request-id")!;
    expect(await eventsOf(denyId)).toEqual([
      expect.objectContaining({ actor: { kind: "identity", uuid: member.uuid, os_user: null }, action: "merchant.create", outcome: "failed", error_code: "FORBIDDEN" }),
    ]);
    // Reads record nothing.
    const read = await withId("GET", `${A}/merchants/${uuid}`);
    expect(await eventsOf(read.id)).toEqual([]);
    // Never a token in the audit log.
    const everything = JSON.stringify(await auditEvents());
    for (const secret of secrets) expect(everything.includes(secret)).toBe(false);
  });

  it("audits a change under the platform's request id, never a client's X-Request-Id, which is only logged beside it", async () => {
    const forged = `forged-id-${randomBytes(4).toString("hex")}`;
    const res = await e2e.api.request("POST", `${A}/merchants`, { token: admin.token, json: { display_name: "Forged Id" }, headers: { "x-request-id": forged } });
    expect(res.status, res.text).toBe(201);
    const id = res.headers.get("x-request-id")!;
    expect(id).toMatch(PLATFORM_REQUEST_ID);
    expect(await eventsOf(forged)).toEqual([]);
    expect(await eventsOf(id)).toEqual([expect.objectContaining({ action: "merchant.create", target_uuid: res.body.merchant.uuid, request_id: id, outcome: "succeeded" })]);
    // A refusal's error body names the platform's id as well.
    const refused = await e2e.api.request("POST", `${A}/merchants`, { token: admin.token, json: { display_name: "" }, headers: { "x-request-id": forged } });
    expect(expectError(refused, 400, "VALIDATION_ERROR").request_id).toMatch(PLATFORM_REQUEST_ID);
    expect(await eventsOf(forged)).toEqual([]);
  });

  it("records refusals on admin routes as security events: logged without secrets, audited when a person was refused", async () => {
    // A cookie session of a person allowed to change nothing refused for its missing CSRF token.
    const p = await person(["platform_operator"]);
    const signedIn = await e2e.operator.identity.login({ email: p.email, password: p.password, transport: "cookie", clientIp: `10.9.0.${ipCounter++}` });
    expect(signedIn.result.case).toBe("authenticated");
    const session = signedIn.result.value as { sessionToken: string; session?: { csrfToken: string } };
    const cookie = session.sessionToken;
    const csrf = session.session!.csrfToken;
    secrets.push(cookie, csrf);
    const request = (method: string, path: string, options: { token?: string; cookie?: string; json?: unknown }) => {
      const headers: Record<string, string> = {};
      if (options.cookie) headers.cookie = `__Host-payin_session=${options.cookie}`;
      return e2e.api.request(method, path, { token: options.token, json: options.json, headers }).then((res) => ({ res, id: res.headers.get("x-request-id")! }));
    };
    const csrfRefused = await request("POST", `${A}/merchants`, { cookie, json: { display_name: "No CSRF" } });
    expectError(csrfRefused.res, 403, "CSRF_TOKEN_INVALID");
    expect(await eventsOf(csrfRefused.id)).toEqual([
      expect.objectContaining({
        actor: { kind: "identity", uuid: p.uuid, os_user: null },
        action: "security.csrf_refused",
        target_type: "merchant",
        target_uuid: null,
        outcome: "failed",
        error_code: "CSRF_TOKEN_INVALID",
      }),
    ]);
    // A read refused for a missing permission (a change's refusal is recorded under its own action, above).
    const merchant = await createMerchant("Refused Reads");
    const readRefused = await request("GET", `${A}/merchants/${merchant.uuid}`, { token: member.token });
    expectError(readRefused.res, 403, "FORBIDDEN");
    expect(await eventsOf(readRefused.id)).toEqual([
      expect.objectContaining({
        actor: { kind: "identity", uuid: member.uuid, os_user: null },
        action: "security.permission_denied",
        target_type: "merchant",
        target_uuid: merchant.uuid,
        outcome: "failed",
        error_code: "FORBIDDEN",
      }),
    ]);
    // No person, no actor: a machine credential and a missing one are logged only.
    const machineRefused = await request("GET", `${A}/merchants`, { token: machineToken });
    expectError(machineRefused.res, 403, "FORBIDDEN");
    const unauthenticated = await request("GET", `${A}/merchants`, {});
    expectError(unauthenticated.res, 401, "AUTH_INVALID_CREDENTIALS");
    expect(await eventsOf(machineRefused.id)).toEqual([]);
    expect(await eventsOf(unauthenticated.id)).toEqual([]);

    // The gateway's log line of each, with the route pattern and never a token, cookie or CSRF token.
    const logged = async (id: string) => {
      const { captured } = await e2e.log.text();
      return captured
        .split("\n")
        .filter((line) => line.includes(id) && line.includes('"security.'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    };
    let csrfLines: Record<string, unknown>[] = [];
    await vi.waitFor(async () => {
      csrfLines = await logged(csrfRefused.id);
      expect(csrfLines).toHaveLength(1);
    });
    expect(csrfLines[0]).toMatchObject({
      service: "api",
      event: "security.csrf_refused",
      code: "CSRF_TOKEN_INVALID",
      method: "POST",
      route: `${A}/merchants`,
      identityUuid: p.uuid,
      requestId: csrfRefused.id,
    });
    expect(typeof csrfLines[0]!.clientIp).toBe("string");
    const readLines = await logged(readRefused.id);
    expect(readLines).toEqual([expect.objectContaining({ event: "security.permission_denied", code: "FORBIDDEN", route: `${A}/merchants/:uuid`, identityUuid: member.uuid })]);
    await vi.waitFor(async () => expect(await logged(unauthenticated.id)).toHaveLength(1));
    expect(await logged(machineRefused.id)).toEqual([expect.objectContaining({ event: "security.permission_denied", identityUuid: null })]);
    expect(await logged(unauthenticated.id)).toEqual([expect.objectContaining({ event: "security.unauthenticated", identityUuid: null })]);
    const lines = JSON.stringify([csrfLines, readLines]);
    for (const secret of [cookie, csrf, member.token, machineToken, p.password]) expect(lines.includes(secret)).toBe(false);
  });

  it("pages newest first with the list envelope; 400 for bad paging; needs audit.read", async () => {
    const all = await e2e.api.request("GET", `${A}/audit-events`, { token: admin.token });
    expect(all.status).toBe(200);
    expectKeys(all.body, ["data", "pagination"]);
    expect(all.body.pagination.limit).toBe(20);
    expect(all.body.pagination.total).toBeGreaterThan(20);
    const times = all.body.data.map((e: any) => e.occurred_at);
    expect([...times].sort().reverse()).toEqual(times);
    const page = await e2e.api.request("GET", `${A}/audit-events?limit=5&offset=3`, { token: admin.token });
    expect(page.body.data.map((e: any) => e.event_uuid)).toEqual(all.body.data.slice(3, 8).map((e: any) => e.event_uuid));
    expect(page.body.pagination).toMatchObject({ limit: 5, offset: 3 });
    for (const q of ["limit=0", "limit=101", "offset=-1", "action=x"]) {
      expectError(await e2e.api.request("GET", `${A}/audit-events?${q}`, { token: admin.token }), 400, "VALIDATION_ERROR");
    }
    expect((await e2e.api.request("GET", `${A}/audit-events`, { token: platformOperator.token })).status).toBe(200);
    expectError(await e2e.api.request("GET", `${A}/audit-events`, { token: member.token }), 403, "FORBIDDEN");
  });
});

describe("last platform_admin and secrets", () => {
  it("refuses to remove platform_admin from the last active platform_admin (409)", async () => {
    expect((await e2e.api.request("POST", `${A}/identities/${adminNoMfa.uuid}/disable`, { token: admin.token })).status).toBe(200);
    expectError(await e2e.api.request("DELETE", `${A}/identities/${admin.uuid}/roles/platform_admin`, { token: admin.token }), 409, "LAST_PLATFORM_ADMIN");
    // Nor disable or lock it: the platform would have nobody to administer it.
    expectError(await e2e.api.request("POST", `${A}/identities/${admin.uuid}/disable`, { token: admin.token }), 409, "LAST_PLATFORM_ADMIN");
    expectError(await e2e.api.request("POST", `${A}/identities/${admin.uuid}/lock`, { token: admin.token }), 409, "LAST_PLATFORM_ADMIN");
    expect((await e2e.api.request("GET", `${A}/identities`, { token: admin.token })).status).toBe(200);
  });

  it("writes no password or token to the platform's logs", async () => {
    await expectSecretsAbsentFromLogs(e2e.log, secrets.filter((s) => s.length > 20));
  });
});
