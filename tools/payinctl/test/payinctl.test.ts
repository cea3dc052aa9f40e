/**
 * payinctl as an operator runs it: its configuration check, and `admin bootstrap`
 * (through `npm run -s payinctl --`) against a real platform.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort } from "@payin/db-embedded";
import { merchantsV1 } from "@payin/proto";
import { createServiceClient, operatorOsUser } from "@payin/rpc";
import { startTestPlatform, totpSecretOf, type TestPlatform } from "@payin/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cleanEnv, MAIN, payinctl, platformEnv, run, signIn } from "./support.js";

let emptyDataDir: string;

beforeAll(async () => {
  emptyDataDir = await mkdtemp(path.join(os.tmpdir(), "payinctl-"));
});

afterAll(async () => {
  await rm(emptyDataDir, { recursive: true, force: true });
});

describe("configuration", () => {
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // Ports nothing listens on, so that a call made despite a bad setting fails at once.
    env = cleanEnv({
      PAYIN_DATA_DIR: emptyDataDir,
      SERVICE_TOKEN: "t".repeat(32),
      IDENTITY_PORT: String(await freePort()),
      MERCHANTS_PORT: String(await freePort()),
      ALLOCATION_PORT: String(await freePort()),
    });
  });

  it.each([
    ["IDENTITY_PORT", "abc", 'configuration error: IDENTITY_PORT must be a whole number, got "abc"'],
    ["MERCHANTS_PORT", "70000", "configuration error: MERCHANTS_PORT must be between 1 and 65535, got 70000"],
    ["IDENTITY_URL", "not a url", "configuration error: IDENTITY_URL must be a URL"],
    ["ALLOCATION_URL", "ftp://127.0.0.1:1", "configuration error: ALLOCATION_URL must be a URL with protocol http: or https:"],
    ["SERVICE_TOKEN", "short", "configuration error: SERVICE_TOKEN must be at least 32 characters"],
  ])("a malformed %s (%s) stops it before any call, with one line naming it", async (name, value, line) => {
    const out = path.join(emptyDataDir, "never-written.json");
    const result = await run(process.execPath, ["--import", "tsx", MAIN, "admin", "bootstrap", "--email", "ops@example.com", "--out", out], {
      ...env,
      [name]: value,
    });
    expect(result).toEqual({ code: 78, stdout: "", stderr: `${line}\n` });
    await expect(stat(out)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("refuses admin bootstrap to a stdout that is not a terminal without --out: a usage error naming --out, before anything is read or called", async () => {
    // A malformed setting too: the usage error comes first, so nothing was read.
    const result = await run(process.execPath, ["--import", "tsx", MAIN, "admin", "bootstrap", "--email", "ops@example.com"], { ...env, IDENTITY_PORT: "abc" });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: "" });
    expect(result.stderr).toMatch(/^stdout is not a terminal: pass --out FILE .*\n/);
  });

  it("checks the command and its arguments first: a usage error is reported as one, whatever the environment", async () => {
    const result = await run(process.execPath, ["--import", "tsx", MAIN, "merchant", "get"], { ...env, IDENTITY_PORT: "abc" });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^expected exactly one merchant uuid\n/);
  });
});

describe("admin bootstrap (npm run -s payinctl -- admin bootstrap --email EMAIL --out FILE)", () => {
  let platform: TestPlatform;
  let env: NodeJS.ProcessEnv;
  const bootstrap = (email: string, ...more: string[]) => run("npm", ["run", "-s", "payinctl", "--", "admin", "bootstrap", "--email", email, ...more], env);
  const outFile = (name: string) => path.join(emptyDataDir, name);

  beforeAll(async () => {
    platform = await startTestPlatform();
    env = platformEnv(platform, emptyDataDir);
  });

  afterAll(async () => {
    await platform?.stopAll();
  });

  it("refuses to write the secrets over an existing file, before any call", async () => {
    const existing = outFile("existing.json");
    await writeFile(existing, "kept\n");
    const result = await bootstrap("Ops@Example.com", "--out", existing);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: "" });
    expect(JSON.parse(result.stderr)).toEqual({ error: { code: "OUT_FILE_EXISTS", message: `${existing} exists; --out must name a new file` } });
    expect(await readFile(existing, "utf8")).toBe("kept\n");
  });

  it("refuses without --out when stdout is not a terminal, and creates no admin", async () => {
    const result = await bootstrap("Ops@Example.com");
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: "" });
    expect(result.stderr).toContain("--out FILE");
  });

  it("creates the first platform admin: its identity, password, TOTP URI and recovery codes only in the 0600 --out file", async () => {
    const out = outFile("first-admin.json");
    const result = await bootstrap("Ops@Example.com", "--out", out);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^\{.*\}\n$/); // one line of JSON, nothing else
    const shown = JSON.parse(result.stdout);
    expect(Object.keys(shown)).toEqual(["identity", "secrets_file"]);
    expect(shown.secrets_file).toBe(out);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    const printed = JSON.parse(await readFile(out, "utf8"));
    expect(shown.identity).toEqual(printed.identity);
    expect(Object.keys(printed)).toEqual(["identity", "password", "totp_uri", "recovery_codes"]);
    expect(Object.keys(printed.identity)).toEqual(["uuid", "email", "status", "roles"]);
    expect(printed.identity).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      email: "ops@example.com",
      status: "active",
      roles: ["platform_admin"],
    });
    expect(printed.password).toEqual(expect.any(String));
    expect(printed.password.length).toBeGreaterThanOrEqual(16);
    expect(printed.totp_uri).toMatch(/^otpauth:\/\/totp\/.+\?.*secret=[A-Z2-7]+/);
    expect(printed.recovery_codes).toHaveLength(10);
    for (const code of printed.recovery_codes) expect(code).toMatch(/^[A-Z2-7]{5}-[A-Z2-7]{5}$/);
    // None of the secrets reached stdout.
    for (const secret of [printed.password, printed.totp_uri, ...printed.recovery_codes]) expect(result.stdout).not.toContain(secret);
  });

  it("records the signed-in operator's changes in the audit log: the person and the OS user, one request id per command", async () => {
    // The admin just bootstrapped signs in with the password and TOTP the --out file holds (and stays signed in for the next test).
    const admin = JSON.parse(await readFile(outFile("first-admin.json"), "utf8"));
    const login = await signIn(env, { uuid: admin.identity.uuid, email: admin.identity.email, password: admin.password, totpSecret: totpSecretOf(admin.totp_uri) });
    expect({ code: login.code, stderr: login.stderr }).toEqual({ code: 0, stderr: "" });
    const cli = (...args: string[]) => run(process.execPath, ["--import", "tsx", MAIN, ...args], env);
    const created = await cli("merchant", "create", "--display-name", "Audited Ltd");
    expect(created.code, created.stderr).toBe(0);
    const merchantUuid = JSON.parse(created.stdout).merchant.uuid as string;
    const activated = await cli("merchant", "activate", merchantUuid);
    expect(activated.code, activated.stderr).toBe(0);
    const credential = await cli("credential", "create", merchantUuid);
    expect(credential.code, credential.stderr).toBe(0);
    expect(credential.stderr).toBe("");
    const credentialUuid = JSON.parse(credential.stdout).credential.credential_uuid as string;

    const merchants = createServiceClient(merchantsV1.MerchantsService, { baseUrl: platform.serviceUrls.merchants!, serviceToken: platform.serviceToken });
    // As the admin API records them: the merchant's changes, and the credential it was issued (identity's
    // records reach the log through its outbox, shortly after the command answered).
    const ofTheTest = async () => {
      const { events } = await merchants.listAuditEvents({ limit: 100, offset: 0 });
      return { events, mine: events.filter((e) => e.targetUuid === merchantUuid || e.targetUuid === credentialUuid) };
    };
    await vi.waitFor(
      async () => {
        const now = await ofTheTest();
        expect({ mine: now.mine.length, bootstrap: now.events.filter((e) => e.action === "identity.bootstrap").length }).toEqual({ mine: 3, bootstrap: 1 });
      },
      { timeout: 20_000, interval: 250 },
    );
    const { events, mine } = await ofTheTest();
    expect(mine.map((e) => `${e.action} ${e.targetType}`).sort()).toEqual(["credential.create machine_credential", "merchant.activate merchant", "merchant.create merchant"]);
    for (const e of mine) {
      expect({ kind: e.actor?.kind, uuid: e.actor?.uuid, osUser: e.actor?.osUser }).toEqual({ kind: "identity", uuid: admin.identity.uuid, osUser: operatorOsUser() });
      expect(e.actor?.requestId).toMatch(/^req_[0-9a-f]{32}$/);
      expect(e.outcome).toBe("succeeded");
    }
    // Three commands, three request ids; the bootstrap before them was recorded too, with nobody signed in.
    expect(new Set(mine.map((e) => e.actor?.requestId)).size).toBe(3);
    expect(events.filter((e) => e.action === "identity.bootstrap").map((e) => [e.actor?.kind, e.actor?.uuid, e.actor?.osUser])).toEqual([["operator_cli", "", operatorOsUser()]]);
  });

  it("rescues the admins with nobody signed in, never leaving the platform without an active admin", async () => {
    const first = JSON.parse(await readFile(outFile("first-admin.json"), "utf8")).identity.uuid as string;
    // A deputy admin is made by the admin signed in in the test before; then they sign out.
    const second = await payinctl(env, "identity", "create", "--email", "deputy@example.com", "--role", "platform_admin", "--out", outFile("deputy.json"));
    expect({ code: second.code, stderr: second.stderr }).toEqual({ code: 0, stderr: "" });
    expect(second.json.identity.roles).toEqual(["platform_admin"]);
    const deputy = second.json.identity.uuid as string;
    expect((await payinctl(env, "session", "logout")).json).toEqual({ signed_out: true });

    const status = async (verb: string, uuid: string) => (await payinctl(env, "identity", verb, uuid)).json?.identity.status;
    expect(await status("lock", deputy)).toBe("locked");
    const refused = await payinctl(env, "identity", "lock", first);
    expect({ code: refused.code, error: refused.error }).toEqual({ code: 1, error: { code: "LAST_PLATFORM_ADMIN", message: expect.any(String) } });
    expect(await status("activate", deputy)).toBe("active");
    expect(await status("lock", first)).toBe("locked");
    expect(await status("activate", first)).toBe("active");
  });

  it("refuses once an admin exists: an error on stderr, nothing on stdout, a non-zero exit, no file left", async () => {
    const out = outFile("second-admin.json");
    const result = await bootstrap("second@example.com", "--out", out);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: "" });
    expect(JSON.parse(result.stderr)).toEqual({ error: { code: "ADMIN_EXISTS", message: expect.any(String) } });
    await expect(stat(out)).rejects.toMatchObject({ code: "ENOENT" });
  });
});
