/**
 * payinctl's commands against a real platform, as an operator runs them: what
 * each prints, how each refuses (usage errors before any call, the services'
 * refusals as `{error:{code,message}}` with exit 1), what each records in the
 * audit log, and a merchant made ready to take pay-ins with the CLI alone.
 */
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { EVM_RPC_PROVIDER_UUID, randomXpub, setObserverCursors, startTestPlatform, type TestPlatform } from "@payin/testing";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { bootstrapTestAdmin, payinctl, platformEnv, signIn, type CliResult, type TestAdmin } from "./support.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const MACHINE_TOKEN = /^mpk_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/;
const UNKNOWN = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const OS_USER = /^[A-Za-z0-9._@-]{1,64}$/;

// Each command is a process of its own (about a second of CPU): the longest tests run a few dozen.
vi.setConfig({ testTimeout: 180_000 });

let platform: TestPlatform;
let dataDir: string;
let env: NodeJS.ProcessEnv;
/** The person the commands act as: signed in with `payinctl session login` before the tests. */
let admin: TestAdmin;
let signedInAt = 0;

/** Signs the admin in (again): their second factor counts as recent for 15 minutes. */
async function signAdminIn(): Promise<void> {
  const result = await signIn(env, admin);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
  expect(result.json.session.identity_uuid).toBe(admin.uuid);
  signedInAt = Date.now();
}

beforeAll(async () => {
  platform = await startTestPlatform();
  dataDir = await mkdtemp(path.join(os.tmpdir(), "payinctl-commands-"));
  env = platformEnv(platform, dataDir);
  admin = await bootstrapTestAdmin(platform);
  await signAdminIn();
}, 120_000);

// A long run of the file would outlive the admin's recent second factor: sign in again well before.
beforeEach(async () => {
  if (Date.now() - signedInAt > 10 * 60_000) await signAdminIn();
}, 120_000);

afterAll(async () => {
  await platform?.stopAll();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const cli = (...args: string[]) => payinctl(env, ...args);

/** The command's JSON output; fails the test, showing stderr, unless it succeeded. */
async function ok(...args: string[]): Promise<any> {
  const result = await cli(...args);
  expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: "" });
  expect(result.stdout).toMatch(/^\{.*\}\n$/); // one line of JSON, nothing else
  return result.json;
}

/** Checks a service's refusal: exit 1, nothing on stdout, `{error:{code,message}}` on stderr. */
function expectRefused(result: CliResult, code: string): void {
  expect({ code: result.code, stdout: result.stdout, error: result.error }).toEqual({ code: 1, stdout: "", error: { code, message: expect.any(String) } });
}

/** Checks a usage error: exit 2, nothing on stdout, the message then the group's usage on stderr. */
function expectUsageError(result: CliResult, message: string | RegExp): void {
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: "" });
  const [first] = result.stderr.split("\n");
  if (typeof message === "string") expect(first).toBe(message);
  else expect(first).toMatch(message);
  expect(result.stderr).toContain("usage: payinctl ");
}

async function newMerchant(name = "CLI Shop"): Promise<string> {
  return (await ok("merchant", "create", "--display-name", name)).merchant.uuid;
}

/** The actor of a record of the signed-in admin's command: the person, and the OS user payinctl ran as. */
const byAdmin = () => ({ kind: "identity", uuid: admin.uuid, os_user: expect.stringMatching(OS_USER) });

/**
 * Waits for an expectation about the audit log: identity records its own changes
 * through an outbox, delivered to the log shortly after the command answered.
 */
function eventually(check: () => Promise<void>): Promise<void> {
  return vi.waitFor(check, { timeout: 20_000, interval: 250 });
}

/** The audit log's events of a target, newest first, through the CLI's own filter. */
async function auditOf(targetUuid: string, ...filters: string[]): Promise<any[]> {
  return (await ok("audit", "list", "--target-uuid", targetUuid, "--limit", "100", ...filters)).data;
}

describe("usage errors: checked before any call", () => {
  it.each([
    [["merchant", "get", "not-a-uuid"], 'merchant uuid must be a uuid, got "not-a-uuid"'],
    [["merchant", "close", "12345"], 'merchant uuid must be a uuid, got "12345"'],
    [["wallet", "get", "acme"], 'merchant uuid must be a uuid, got "acme"'],
    [["readiness", "get", "x"], 'merchant uuid must be a uuid, got "x"'],
    [["credential", "revoke", UNKNOWN, "y"], 'credential uuid must be a uuid, got "y"'],
    [["member", "attach", UNKNOWN, "--identity", "ops@example.com"], '--identity must be a uuid, got "ops@example.com"'],
    [["identity", "disable", "z"], 'identity uuid must be a uuid, got "z"'],
    [["merchant", "list", "--limit", "500"], '--limit must be a whole number from 1 to 100, got "500"'],
    [["merchant", "frobnicate"], "unknown command: merchant frobnicate"],
  ])("%j", async (argv, message) => {
    // A malformed variable too: a usage error comes first, so nothing was read, let alone called.
    expectUsageError(await payinctl({ ...env, MERCHANTS_PORT: "abc", MERCHANTS_URL: "not a url" }, ...argv), message);
  });

  it("a malformed uuid never reaches a service: it is not MERCHANT_NOT_FOUND, and nothing is audited", async () => {
    const activations = async () => (await ok("audit", "list", "--action", "merchant.activate", "--limit", "1")).pagination.total;
    const before = await activations();
    const unknown = crypto.randomUUID();
    expectUsageError(await cli("merchant", "activate", unknown.slice(0, -1)), /^merchant uuid must be a uuid/);
    expect(await activations()).toBe(before);
    // A well-formed unknown one is the service's answer, and its refusal is audited.
    expectRefused(await cli("merchant", "activate", unknown), "MERCHANT_NOT_FOUND");
    expect((await auditOf(unknown, "--outcome", "failed")).map((e) => [e.action, e.error_code, e.actor.kind])).toEqual([
      ["merchant.activate", "MERCHANT_NOT_FOUND", "identity"],
    ]);
  });

  it("--help lists every command of a group with its arguments; no argument is a usage error naming the group", async () => {
    const help = await cli("credential", "--help");
    expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: "" });
    for (const line of ["credential create MERCHANT_UUID", "credential list MERCHANT_UUID", "credential rotate MERCHANT_UUID", "credential revoke MERCHANT_UUID CREDENTIAL_UUID"]) {
      expect(help.stdout).toContain(`  ${line}\n`);
    }
    expect(help.stdout).not.toContain("merchant create");
    const all = await cli("--help");
    expect(all.code).toBe(0);
    expect(all.stdout).toContain("  audit list [--action ACTION]");
    expectUsageError(await cli("identity"), "identity needs a command");
  });
});

describe("merchants", () => {
  it("creates, reads, lists with the API's filters, and moves through every transition", async () => {
    const name = `Lifecycle ${Date.now()}`;
    const created = await ok("merchant", "create", "--display-name", name, "--legal-name", "Lifecycle Ltd");
    expect(Object.keys(created)).toEqual(["merchant"]);
    expect(created.merchant).toEqual({
      uuid: expect.stringMatching(UUID),
      display_name: name,
      legal_name: "Lifecycle Ltd",
      status: "inactive",
      created_at: expect.stringMatching(ISO_UTC),
      updated_at: expect.stringMatching(ISO_UTC),
    });
    const uuid = created.merchant.uuid as string;
    expect((await ok("merchant", "get", uuid.toUpperCase())).merchant).toEqual(created.merchant);

    const listed = await ok("merchant", "list", "--display-name", name);
    expect(listed).toEqual({ data: [created.merchant], pagination: { total: 1, limit: 20, offset: 0 } });
    expect((await ok("merchant", "list", "--uuid", uuid, "--status", "inactive")).data.map((m: any) => m.uuid)).toEqual([uuid]);
    expect((await ok("merchant", "list", "--uuid", uuid, "--status", "active")).pagination.total).toBe(0);
    await newMerchant("Another");
    const page = await ok("merchant", "list", "--limit", "1", "--offset", "1");
    expect(page.data).toHaveLength(1);
    expect(page.pagination).toMatchObject({ limit: 1, offset: 1 });

    // A refused transition: suspend needs an active merchant.
    expectRefused(await cli("merchant", "suspend", uuid), "MERCHANT_TRANSITION_NOT_ALLOWED");
    const statuses: string[] = [];
    for (const verb of ["activate", "suspend", "activate", "deactivate", "close"]) statuses.push((await ok("merchant", verb, uuid)).merchant.status);
    expect(statuses).toEqual(["active", "suspended", "active", "inactive", "closed"]);
    expectRefused(await cli("merchant", "activate", uuid), "MERCHANT_TRANSITION_NOT_ALLOWED");
    expectRefused(await cli("merchant", "get", UNKNOWN), "MERCHANT_NOT_FOUND");
    expectRefused(await cli("merchant", "create", "--display-name", ""), "INVALID_ARGUMENT");

    const audited = (await auditOf(uuid)).reverse();
    expect(audited.map((e) => [e.action, e.outcome])).toEqual([
      ["merchant.create", "succeeded"],
      ["merchant.suspend", "failed"],
      ["merchant.activate", "succeeded"],
      ["merchant.suspend", "succeeded"],
      ["merchant.activate", "succeeded"],
      ["merchant.deactivate", "succeeded"],
      ["merchant.close", "succeeded"],
      ["merchant.activate", "failed"],
    ]);
    for (const e of audited) expect(e.actor).toEqual(byAdmin());
  });
});

describe("platform configuration", () => {
  it("rules: a new version closes the open one; the same effect again is RULE_UNCHANGED", async () => {
    const first = await ok("rule", "set", "--capability", "crypto.payin", "--jurisdiction", "NL", "--effect", "deny");
    expect(first.rule).toMatchObject({ capability: "crypto.payin", jurisdiction: "NL", effect: "deny", valid_to: null });
    const second = await ok("rule", "set", "--capability", "crypto.payin", "--jurisdiction", "NL", "--effect", "allow");
    expect(second.rule.version).toBe(first.rule.version + 1);
    expectRefused(await cli("rule", "set", "--capability", "crypto.payin", "--jurisdiction", "NL", "--effect", "allow"), "RULE_UNCHANGED");
    expectRefused(await cli("rule", "set", "--capability", "crypto.payin", "--jurisdiction", "XX", "--effect", "allow"), "INVALID_ARGUMENT");

    const open = await ok("rule", "list", "--limit", "100");
    expect(Object.keys(open)).toEqual(["data", "pagination"]);
    expect(open.data.filter((r: any) => r.jurisdiction === "NL").map((r: any) => r.rule_uuid)).toEqual([second.rule.rule_uuid]);
    const all = await ok("rule", "list", "--include-closed", "--limit", "100");
    expect(all.data.filter((r: any) => r.jurisdiction === "NL").map((r: any) => r.effect).sort()).toEqual(["allow", "deny"]);
    expect(all.pagination.total).toBeGreaterThan(open.pagination.total);
  });

  it("providers: registered once per name, any letter case; listed with the seeded evm-rpc", async () => {
    const name = `Observer ${Date.now()}`;
    const created = await ok("provider", "create", "--name", name);
    expect(created.provider).toEqual({ provider_uuid: expect.stringMatching(UUID), name, created_at: expect.stringMatching(ISO_UTC) });
    expectRefused(await cli("provider", "create", "--name", name.toUpperCase()), "PROVIDER_NAME_TAKEN");
    const listed = await ok("provider", "list", "--limit", "100");
    expect(listed.data.map((p: any) => p.provider_uuid)).toEqual(expect.arrayContaining([EVM_RPC_PROVIDER_UUID, created.provider.provider_uuid]));
    expect(listed.pagination.total).toBe(listed.data.length);
  });

  it("profile, policy, binding and connection: set, ensured again, and refused", async () => {
    const merchant = await newMerchant();
    const profile = await ok("profile", "set", merchant, "--operating-mode", "non_custodial");
    expect(profile.operating_profile).toMatchObject({ merchant_uuid: merchant, operating_mode: "non_custodial" });
    expectRefused(await cli("profile", "set", merchant, "--operating-mode", "offshore"), "INVALID_ARGUMENT");

    const policy = await ok("policy", "set", merchant, "--scope", "payin", "--effect", "allow");
    expect(policy.policy).toMatchObject({ merchant_uuid: merchant, scope: "payin", effect: "allow", version: 1, valid_to: null });
    expectRefused(await cli("policy", "set", merchant, "--scope", "payin", "--effect", "allow"), "POLICY_UNCHANGED");
    expectRefused(await cli("policy", "set", UNKNOWN, "--scope", "payin", "--effect", "allow"), "MERCHANT_NOT_FOUND");

    const bind = ["binding", "ensure", merchant, "--provider", EVM_RPC_PROVIDER_UUID, "--capability", "crypto.payin", "--jurisdiction", "DE"];
    const bound = await ok(...bind);
    expect(bound).toEqual({
      provider_binding: {
        binding_uuid: expect.stringMatching(UUID),
        merchant_uuid: merchant,
        provider_uuid: EVM_RPC_PROVIDER_UUID,
        capability: "crypto.payin",
        jurisdiction: "DE",
        created_at: expect.stringMatching(ISO_UTC),
      },
      created: true,
    });
    expect(await ok(...bind)).toEqual({ ...bound, created: false });
    expectRefused(await cli("binding", "ensure", merchant, "--provider", UNKNOWN, "--capability", "crypto.payin", "--jurisdiction", "DE"), "PROVIDER_NOT_FOUND");

    const connect = ["connection", "ensure", merchant, "--provider", EVM_RPC_PROVIDER_UUID, "--secret-reference", "vault:kv/payin/one"];
    const connected = await ok(...connect);
    expect(connected).toMatchObject({ provider_connection: { merchant_uuid: merchant, provider_uuid: EVM_RPC_PROVIDER_UUID, secret_reference: "vault:kv/payin/one" }, created: true });
    expect((await ok(...connect)).created).toBe(false);
    expectRefused(await cli("connection", "ensure", merchant, "--provider", EVM_RPC_PROVIDER_UUID, "--secret-reference", "vault:kv/payin/two"), "CONNECTION_EXISTS");
    const connectionUuid = connected.provider_connection.connection_uuid as string;
    const rotated = await ok("connection", "rotate-secret", merchant, connectionUuid, "--secret-reference", "vault:kv/payin/two");
    expect(rotated.provider_connection).toMatchObject({ connection_uuid: connectionUuid, secret_reference: "vault:kv/payin/two" });
    expectRefused(await cli("connection", "rotate-secret", merchant, connectionUuid, "--secret-reference", "vault:kv/payin/two"), "SECRET_REFERENCE_UNCHANGED");
    expectRefused(await cli("connection", "rotate-secret", merchant, UNKNOWN, "--secret-reference", "vault:kv/payin/three"), "CONNECTION_NOT_FOUND");

    // A closed merchant's configuration is frozen.
    await ok("merchant", "close", merchant);
    expectRefused(await cli("profile", "set", merchant, "--operating-mode", "hybrid"), "MERCHANT_CLOSED");
    // Refusals are recorded against the merchant with the code the admin API answers (a bad field is
    // VALIDATION_ERROR), successes by merchants against what they made, as the admin API has them.
    expect((await auditOf(merchant, "--outcome", "failed")).map((e) => `${e.action} ${e.error_code}`)).toEqual([
      "merchant.operating_profile.ensure MERCHANT_CLOSED",
      "provider_connection.create CONNECTION_EXISTS",
      "provider_binding.create PROVIDER_NOT_FOUND",
      "policy.create POLICY_UNCHANGED",
      "merchant.operating_profile.ensure VALIDATION_ERROR",
    ]);
    expect((await auditOf(merchant, "--outcome", "succeeded")).map((e) => e.action)).toEqual(["merchant.close", "merchant.operating_profile.ensure", "merchant.create"]);
    expect((await auditOf(policy.policy.policy_uuid)).map((e) => `${e.action} ${e.actor.kind}`)).toEqual(["policy.create identity"]);
    expect((await auditOf(bound.provider_binding.binding_uuid)).map((e) => `${e.action} ${e.actor.kind}`)).toEqual(["provider_binding.create identity"]);
    expect((await auditOf(connectionUuid)).map((e) => `${e.action} ${e.outcome} ${e.error_code}`)).toEqual([
      "provider_connection.rotate_secret failed SECRET_REFERENCE_UNCHANGED",
      "provider_connection.rotate_secret succeeded null",
      "provider_connection.create succeeded null",
    ]);
  });

  it("wallet: set, read, replaced keeping its counter; refused when malformed, unknown or closed", async () => {
    const merchant = await newMerchant();
    expectRefused(await cli("wallet", "get", merchant), "WALLET_NOT_FOUND");
    expectRefused(await cli("wallet", "get", UNKNOWN), "MERCHANT_NOT_FOUND");
    const xpub = randomXpub();
    const set = await ok("wallet", "set", merchant, "--xpub", xpub);
    expect(set).toEqual({
      wallet: { merchant_uuid: merchant, xpub, next_index: 0, created_at: expect.stringMatching(ISO_UTC), updated_at: expect.stringMatching(ISO_UTC) },
    });
    expect(await ok("wallet", "get", merchant)).toEqual(set);
    expectRefused(await cli("wallet", "set", merchant, "--xpub", "xpub-not-really"), "WALLET_XPUB_INVALID");
    expectRefused(await cli("wallet", "set", UNKNOWN, "--xpub", randomXpub()), "MERCHANT_NOT_FOUND");
    await ok("merchant", "close", merchant);
    expectRefused(await cli("wallet", "set", merchant, "--xpub", randomXpub()), "MERCHANT_CLOSED");
    expect((await ok("wallet", "get", merchant)).wallet.xpub).toBe(xpub); // still readable
    // The success is allocation's record (its outbox, delivered shortly after); the refusals payinctl's.
    await eventually(async () =>
      expect((await auditOf(merchant, "--action", "wallet.set")).map((e) => [e.outcome, e.error_code])).toEqual([
        ["failed", "MERCHANT_CLOSED"],
        ["failed", "WALLET_XPUB_INVALID"],
        ["succeeded", null],
      ]),
    );
  });
});

describe("machine credentials", () => {
  it("creates, lists, rotates and revokes; refuses a second active one, a closed merchant, an unknown credential", async () => {
    const merchant = await newMerchant();
    const created = await ok("credential", "create", merchant);
    expect(created.credential).toEqual({
      credential_uuid: expect.stringMatching(UUID),
      merchant_uuid: merchant,
      key_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      status: "active",
      created_at: expect.stringMatching(ISO_UTC),
      token: expect.stringMatching(MACHINE_TOKEN),
    });
    expectRefused(await cli("credential", "create", merchant), "CREDENTIAL_ALREADY_ACTIVE");
    expectRefused(await cli("credential", "rotate", UNKNOWN), "MERCHANT_NOT_FOUND");

    const rotated = await ok("credential", "rotate", merchant);
    expect(rotated.credential.token).toMatch(MACHINE_TOKEN);
    expect(rotated.credential.credential_uuid).not.toBe(created.credential.credential_uuid);
    const listed = await ok("credential", "list", merchant);
    expect(Object.keys(listed)).toEqual(["credentials"]);
    expect(listed.credentials.map((c: any) => [c.credential_uuid, c.status, c.replaced_by_uuid])).toEqual([
      [rotated.credential.credential_uuid, "active", null],
      [created.credential.credential_uuid, "revoked", rotated.credential.credential_uuid],
    ]);
    expect(Object.keys(listed.credentials[0]).sort()).toEqual(
      ["created_at", "credential_uuid", "key_id", "last_used_at", "merchant_uuid", "replaced_by_uuid", "revoked_at", "status"].sort(),
    );
    expect(JSON.stringify(listed)).not.toContain(created.credential.token.slice(36));

    await ok("merchant", "close", merchant);
    expectRefused(await cli("credential", "rotate", merchant), "MERCHANT_CLOSED");
    // Revoking is always allowed, a closed merchant's credentials included.
    const revoked = await ok("credential", "revoke", merchant, rotated.credential.credential_uuid);
    expect(revoked.credential).toMatchObject({ credential_uuid: rotated.credential.credential_uuid, status: "revoked", revoked_at: expect.stringMatching(ISO_UTC) });
    expect(revoked.credential.token).toBeUndefined();
    expectRefused(await cli("credential", "revoke", merchant, rotated.credential.credential_uuid), "CREDENTIAL_ALREADY_REVOKED");
    expectRefused(await cli("credential", "revoke", merchant, UNKNOWN), "CREDENTIAL_NOT_FOUND");

    const issued = [created.credential.credential_uuid, rotated.credential.credential_uuid];
    await eventually(async () => {
      const events = [...(await auditOf(merchant)), ...(await auditOf(issued[0])), ...(await auditOf(issued[1]))];
      expect(events.filter((e) => e.action.startsWith("credential.")).map((e) => `${e.action} ${e.target_type} ${e.outcome}`).sort()).toEqual([
        "credential.create machine_credential succeeded",
        "credential.create merchant failed",
        "credential.revoke machine_credential failed",
        "credential.revoke machine_credential succeeded",
        "credential.rotate machine_credential succeeded",
        "credential.rotate merchant failed",
      ]);
    });
  });
});

describe("identities and members", () => {
  it("creates an identity whose generated password signs in, shown only in the 0600 --out file", async () => {
    const email = `Person.${Date.now()}@Example.com`;
    expectUsageError(await cli("identity", "create", "--email", email, "--role", "merchant_admin"), /^stdout is not a terminal: pass --out FILE/);
    const out = path.join(dataDir, "person.json");
    const created = await ok("identity", "create", "--email", email, "--role", "merchant_admin", "--out", out);
    expect(created).toEqual({
      identity: { uuid: expect.stringMatching(UUID), email: email.toLowerCase(), status: "active", roles: ["merchant_admin"] },
      secrets_file: out,
    });
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    const secrets = JSON.parse(await readFile(out, "utf8"));
    expect(secrets).toEqual({ identity: created.identity, password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/) });

    const login = await fetch(`${platform.apiUrl}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: secrets.password, transport: "bearer" }),
    });
    expect(login.status).toBe(200);

    const again = path.join(dataDir, "person-again.json");
    expectRefused(await cli("identity", "create", "--email", email, "--out", again), "IDENTITY_EMAIL_TAKEN");
    await expect(stat(again)).rejects.toMatchObject({ code: "ENOENT" }); // removed with the refusal
    expectRefused(await cli("identity", "create", "--email", "not an email", "--out", again), "INVALID_ARGUMENT");
    expectRefused(await cli("identity", "create", "--email", `r.${email}`, "--role", "emperor", "--out", again), "INVALID_ARGUMENT");
    await eventually(async () => expect((await auditOf(created.identity.uuid)).map((e) => `${e.action} ${e.outcome}`)).toEqual(["identity.create succeeded"]));
  });

  it("lists, locks, disables, activates, removes a role and forgives sign-in failures", async () => {
    const out = path.join(dataDir, "second.json");
    const { identity } = await ok("identity", "create", "--email", `second.${Date.now()}@example.com`, "--role", "platform_operator", "--role", "merchant_member", "--out", out);
    const uuid = identity.uuid as string;
    expect(identity.roles).toEqual(["merchant_member", "platform_operator"]);

    const listed = await ok("identity", "list", "--limit", "100");
    expect(Object.keys(listed)).toEqual(["data", "pagination"]);
    expect(listed.data).toContainEqual(identity);
    expect(listed.pagination).toEqual({ total: listed.data.length, limit: 100, offset: 0 });

    expect((await ok("identity", "lock", uuid)).identity.status).toBe("locked");
    expectRefused(await cli("identity", "lock", uuid), "IDENTITY_ALREADY_LOCKED");
    expect((await ok("identity", "disable", uuid)).identity.status).toBe("disabled");
    expect((await ok("identity", "activate", uuid)).identity.status).toBe("active");
    expectRefused(await cli("identity", "activate", uuid), "IDENTITY_ALREADY_ACTIVE");
    expect((await ok("identity", "remove-role", uuid, "--role", "platform_operator")).identity.roles).toEqual(["merchant_member"]);
    expectRefused(await cli("identity", "remove-role", uuid, "--role", "platform_operator"), "ROLE_NOT_HELD");
    expect(await ok("identity", "reset-sign-in-failures", uuid)).toEqual({ identity: { ...identity, roles: ["merchant_member"] }, forgiven_failures: 0 });
    expectRefused(await cli("identity", "lock", UNKNOWN), "IDENTITY_NOT_FOUND");

    await eventually(async () =>
      expect((await auditOf(uuid)).reverse().map((e) => `${e.action} ${e.outcome}`)).toEqual([
        "identity.create succeeded",
        "identity.lock succeeded",
        "identity.lock failed",
        "identity.disable succeeded",
        "identity.activate succeeded",
        "identity.activate failed",
        "identity.role.remove succeeded",
        "identity.role.remove failed",
        "identity.sign_in_failures.reset succeeded",
      ]),
    );
  });

  it("attaches members (once) and lists an identity's memberships; refuses unknown identities and merchants", async () => {
    const { identity } = await ok("identity", "create", "--email", `member.${Date.now()}@example.com`, "--role", "merchant_member", "--out", path.join(dataDir, "member.json"));
    const [first, second] = [await newMerchant("First"), await newMerchant("Second")];
    const attached = await ok("member", "attach", first, "--identity", identity.uuid);
    expect(attached).toEqual({
      membership: { merchant_uuid: first, identity_uuid: identity.uuid, created_at: expect.stringMatching(ISO_UTC), role: null },
      created: true,
      role_changed: false,
    });
    expect(await ok("member", "attach", first, "--identity", identity.uuid)).toEqual({ ...attached, created: false });
    await ok("member", "attach", second, "--identity", identity.uuid);
    const listed = await ok("member", "list", "--identity", identity.uuid);
    expect(listed.memberships.map((m: any) => m.merchant_uuid)).toEqual([first, second]);
    expectRefused(await cli("member", "attach", first, "--identity", UNKNOWN), "IDENTITY_NOT_FOUND");
    expectRefused(await cli("member", "attach", UNKNOWN, "--identity", identity.uuid), "MERCHANT_NOT_FOUND");
    expectRefused(await cli("member", "list", "--identity", UNKNOWN), "IDENTITY_NOT_FOUND");
    expect((await auditOf(first, "--action", "merchant.member.attach")).map((e) => [e.outcome, e.error_code])).toEqual([
      ["failed", "IDENTITY_NOT_FOUND"],
      ["succeeded", null],
    ]);
  });

  it("sets and changes a member's role for one merchant, and removes a member (audited); refuses what is no member", async () => {
    const { identity } = await ok("identity", "create", "--email", `removed.${Date.now()}@example.com`, "--role", "merchant_member", "--out", path.join(dataDir, "removed.json"));
    const [first, second] = [await newMerchant("Kept"), await newMerchant("Left")];
    expect((await ok("member", "attach", first, "--identity", identity.uuid, "--role", "merchant_admin")).membership.role).toBe("merchant_admin");
    expect(await ok("member", "attach", first, "--identity", identity.uuid, "--role", "merchant_member")).toMatchObject({
      membership: { role: "merchant_member" },
      created: false,
      role_changed: true,
    });
    expectRefused(await cli("member", "attach", first, "--identity", identity.uuid, "--role", "platform_admin"), "INVALID_ARGUMENT");
    await ok("member", "attach", second, "--identity", identity.uuid);

    const removed = await ok("member", "remove", second, "--identity", identity.uuid);
    expect(removed).toEqual({ membership: { merchant_uuid: second, identity_uuid: identity.uuid, created_at: expect.stringMatching(ISO_UTC), role: null } });
    expect((await ok("member", "list", "--identity", identity.uuid)).memberships.map((m: any) => [m.merchant_uuid, m.role])).toEqual([[first, "merchant_member"]]);
    expectRefused(await cli("member", "remove", second, "--identity", identity.uuid), "MEMBER_NOT_FOUND");
    expectRefused(await cli("member", "remove", UNKNOWN, "--identity", identity.uuid), "MERCHANT_NOT_FOUND");
    expectUsageError(await cli("member", "remove", second, "--identity", "someone"), '--identity must be a uuid, got "someone"');

    expect((await auditOf(second, "--action", "merchant.member.remove")).map((e) => [e.actor, e.outcome, e.error_code])).toEqual([
      [byAdmin(), "failed", "MEMBER_NOT_FOUND"],
      [byAdmin(), "succeeded", null],
    ]);
    expect((await auditOf(first, "--action", "merchant.member.role_change")).map((e) => e.outcome)).toEqual(["succeeded"]);
  });
});

describe("audit list", () => {
  it("answers the API's view of events with pagination, filtered exactly", async () => {
    const merchant = await newMerchant("Audit Filter");
    await ok("merchant", "activate", merchant);
    const page = await ok("audit", "list", "--target-uuid", merchant, "--action", "merchant.activate", "--actor-kind", "identity", "--outcome", "succeeded");
    expect(page).toEqual({
      data: [
        {
          event_uuid: expect.stringMatching(UUID),
          actor: { kind: "identity", uuid: admin.uuid, os_user: expect.stringMatching(OS_USER) },
          action: "merchant.activate",
          target_type: "merchant",
          target_uuid: merchant,
          outcome: "succeeded",
          error_code: null,
          request_id: expect.stringMatching(/^req_[0-9a-f]{32}$/),
          occurred_at: expect.stringMatching(ISO_UTC),
        },
      ],
      pagination: { total: 1, limit: 20, offset: 0 },
    });
    expect((await ok("audit", "list", "--target-uuid", merchant, "--actor-kind", "operator_cli")).data).toEqual([]);
    expect((await ok("audit", "list", "--target-uuid", merchant, "--target-type", "merchant")).pagination.total).toBe(2);
    expectRefused(await cli("audit", "list", "--action", "Merchant Activate"), "INVALID_ARGUMENT");
    expectUsageError(await cli("audit", "list", "--actor-kind", "robot"), /^--actor-kind must be one of: identity, machine_credential, operator_cli, system/);
  });
});

describe("rails", () => {
  it("lists how each rail's observation stands, and resumes a halted rail once (audited as rail.resume); an unknown rail is refused", async () => {
    await setObserverCursors(platform, { bep20: new Date("2026-11-27T10:00:00Z"), erc20: null });
    const db = new pg.Client({ connectionString: platform.databaseUrl });
    await db.connect();
    try {
      await db.query(
        `update allocation.observer_cursors set settled_through = 40, halted_kind = 'disagreement', halted_reason = 'endpoints disagree: a test', halted_at = '2026-11-27T10:00:01Z' where rail = 'bep20'`,
      );
    } finally {
      await db.end();
    }
    expect(await ok("rail", "list")).toEqual({
      rails: [
        {
          rail: "bep20",
          chain_id: 31337,
          next_block: 0,
          settled_through: 40,
          advanced_at: "2026-11-27T10:00:00.000Z",
          halt: { kind: "disagreement", reason: "endpoints disagree: a test", since: "2026-11-27T10:00:01.000Z" },
        },
      ],
    });
    expect(await ok("rail", "resume", "bep20")).toEqual({ resumed: true, cleared: { kind: "disagreement", reason: "endpoints disagree: a test" } });
    expect((await ok("rail", "list")).rails[0].halt).toBeNull();
    expect(await ok("rail", "resume", "bep20")).toEqual({ resumed: false, cleared: null });
    await eventually(async () =>
      expect((await ok("audit", "list", "--action", "rail.resume")).data.map((e: { outcome: string; target_type: string }) => [e.outcome, e.target_type])).toEqual([
        ["succeeded", "rail"],
        ["succeeded", "rail"],
      ]),
    );
    expectRefused(await cli("rail", "resume", "solana"), "INVALID_ARGUMENT");
    expectUsageError(await cli("rail", "resume"), "expected exactly one rail");
  });
});

describe("onboarding a merchant to ready with the CLI alone", () => {
  it("creates, configures and activates a merchant until readiness says ready on both pairs and the API takes a pay-in with the credential it issued", async () => {
    const merchant = await newMerchant("Ready Shop");
    const before = await ok("readiness", "get", merchant);
    expect(before.readiness.merchant_uuid).toBe(merchant);
    expect(before.readiness.pairs.map((p: any) => [p.asset, p.rail, p.ready])).toEqual([
      ["usdt", "bep20", false],
      ["usdc", "erc20", false],
    ]);
    expect(before.readiness.pairs[0].reasons).toEqual(expect.arrayContaining(["merchant_inactive", "operating_profile_missing", "payin_not_allowed", "wallet_not_ready", "provider_not_ready"]));

    const rule = await cli("rule", "set", "--capability", "crypto.payin", "--jurisdiction", "DE", "--effect", "allow");
    if (rule.code !== 0) expectRefused(rule, "RULE_UNCHANGED"); // already open: as good
    await ok("policy", "set", merchant, "--scope", "payin", "--effect", "allow");
    await ok("profile", "set", merchant, "--operating-mode", "non_custodial");
    await ok("binding", "ensure", merchant, "--provider", EVM_RPC_PROVIDER_UUID, "--capability", "crypto.payin", "--jurisdiction", "DE");
    await ok("connection", "ensure", merchant, "--provider", EVM_RPC_PROVIDER_UUID);
    await ok("wallet", "set", merchant, "--xpub", randomXpub());
    await ok("merchant", "activate", merchant);
    const { identity } = await ok("identity", "create", "--email", `owner.${Date.now()}@example.com`, "--role", "merchant_admin", "--out", path.join(dataDir, "owner.json"));
    await ok("member", "attach", merchant, "--identity", identity.uuid);
    const { credential } = await ok("credential", "create", merchant);

    // The test platform's observer has no chains: say both rails were observed just now.
    await setObserverCursors(platform, { bep20: new Date(), erc20: new Date() });
    const after = await ok("readiness", "get", merchant);
    expect(after).toEqual({
      readiness: {
        merchant_uuid: merchant,
        pairs: [
          { asset: "usdt", rail: "bep20", ready: true, reasons: [] },
          { asset: "usdc", rail: "erc20", ready: true, reasons: [] },
        ],
      },
    });
    // In DE, where it is bound and a rule allows, the same; in a country it is not bound for, its provider does not serve it.
    expect(await ok("readiness", "get", merchant, "--jurisdiction", "DE")).toEqual(after);
    const elsewhere = await ok("readiness", "get", merchant, "--jurisdiction", "JP");
    expect(elsewhere.readiness.pairs.map((p: any) => p.reasons)).toEqual([
      ["payin_not_allowed", "provider_not_ready"],
      ["payin_not_allowed", "provider_not_ready"],
    ]);
    expectRefused(await cli("readiness", "get", merchant, "--jurisdiction", "jp"), "INVALID_ARGUMENT");

    const res = await fetch(`${platform.apiUrl}/api/v1/merchants/${merchant}/pay-in-intents`, {
      method: "POST",
      headers: { authorization: `Bearer ${credential.token}`, "idempotency-key": `cli-${Date.now()}`, "content-type": "application/json" },
      body: JSON.stringify({ asset: "usdt", amount: "25.00", jurisdiction: "DE", expires_at: new Date(Date.now() + 3_600_000).toISOString() }),
    });
    const body = await res.json();
    expect({ status: res.status, body }).toMatchObject({ status: 201, body: { intent_uuid: expect.stringMatching(UUID), asset: "usdt", rail: "bep20" } });
  });
});
