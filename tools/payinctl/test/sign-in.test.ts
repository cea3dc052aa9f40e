/**
 * Who payinctl acts as: a change that grants trust or moves money needs a person
 * signed in with `payinctl session login` (password and TOTP) who holds the
 * command's permission; without one payinctl can only read and recover people
 * (break-glass), and those records name operator_cli with the OS user. The
 * signed-in person's records name them, and the OS user.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { deriveCredential } from "@payin/config";
import { identityV1 } from "@payin/proto";
import { ConnectError, createServiceClient, operatorOsUser, reasonOf } from "@payin/rpc";
import { Operator, randomXpub, startTestPlatform, totpCodeAt, totpSecretOf, totpStepAt, type TestPlatform } from "@payin/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bootstrapTestAdmin, payinctl, payinctlWithInput, platformEnv, signIn, type CliResult, type TestAdmin } from "./support.js";

// Each command is a process of its own (about a second of CPU).
vi.setConfig({ testTimeout: 180_000 });

let platform: TestPlatform;
let harness: Operator;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let sessionFile: string;
let admin: TestAdmin;
/** A person with TOTP who holds none of the commands' permissions (merchant_member). */
let member: TestAdmin;
/** The TOTP step the member's enrolment was confirmed with (identity refuses it again). */
let memberEnrolStep: number;

/** An identity made over the harness's identity client (the test caller may, with no person). */
async function harnessIdentity(email: string, roles: string[]): Promise<{ uuid: string; password: string }> {
  const password = randomBytes(18).toString("base64url");
  const { identity } = await harness.identity.createIdentity({ email, password, roles });
  return { uuid: identity!.uuid, password };
}

beforeAll(async () => {
  platform = await startTestPlatform();
  harness = new Operator(platform);
  dataDir = await mkdtemp(path.join(os.tmpdir(), "payinctl-sign-in-"));
  env = platformEnv(platform, dataDir);
  sessionFile = env.PAYINCTL_SESSION_FILE!;
  admin = await bootstrapTestAdmin(platform);

  // The member enrols TOTP as a person does: signed in (no factor yet), with their password, then a first code.
  const email = "member@example.com";
  const { uuid, password } = await harnessIdentity(email, ["merchant_member"]);
  const started = await harness.identity.login({ email, password, transport: "bearer" });
  if (started.result.case !== "authenticated") throw new Error(`expected a session without MFA, got ${started.result.case}`);
  const caller = { sessionToken: started.result.value.sessionToken };
  const { otpauthUri } = await harness.identity.enrollTotp({ caller, currentPassword: password });
  const totpSecret = totpSecretOf(otpauthUri);
  memberEnrolStep = totpStepAt();
  await harness.identity.confirmTotp({ caller, code: totpCodeAt(totpSecret, memberEnrolStep) });
  member = { uuid, email, password, totpSecret };
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
  return result.json;
}

/** Checks a refusal: exit 1, nothing on stdout, `{error:{code,message}}` on stderr. */
function expectRefused(result: CliResult, code: string): void {
  expect({ code: result.code, stdout: result.stdout, error: result.error }).toEqual({ code: 1, stdout: "", error: { code, message: expect.any(String) } });
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** A merchant made over the harness's RPC clients: active, without a wallet or a credential. */
async function harnessMerchant(name: string): Promise<string> {
  return (await harness.merchant({ name, authorise: false, provider: false, xpub: null, credential: false })).uuid;
}

/** The audit log's records of successes by actors of `kind`. */
async function successesBy(kind: string): Promise<any[]> {
  return (await ok("audit", "list", "--outcome", "succeeded", "--actor-kind", kind, "--limit", "100")).data;
}

describe("without a signed-in person", () => {
  it("refuses the changes that grant trust or move money with SIGN_IN_REQUIRED, changing nothing and recording no success", async () => {
    expect(await exists(sessionFile)).toBe(false);
    expect(await ok("session", "show")).toEqual({ signed_in: false });
    const merchant = await harnessMerchant("Nobody's Shop");
    const merchantsBefore = await ok("merchant", "list", "--limit", "100");

    expectRefused(await cli("wallet", "set", merchant, "--xpub", randomXpub()), "SIGN_IN_REQUIRED");
    expectRefused(await cli("credential", "create", merchant), "SIGN_IN_REQUIRED");
    const out = path.join(dataDir, "never.json");
    expectRefused(await cli("identity", "create", "--email", "nobody@example.com", "--role", "platform_admin", "--out", out), "SIGN_IN_REQUIRED");
    expectRefused(await cli("merchant", "create", "--display-name", "Never Made"), "SIGN_IN_REQUIRED");

    // Nothing changed: no wallet, no credential, no identity (nor its secrets file), no merchant.
    expectRefused(await cli("wallet", "get", merchant), "WALLET_NOT_FOUND");
    expect(await ok("credential", "list", merchant)).toEqual({ credentials: [] });
    await expect(stat(out)).rejects.toMatchObject({ code: "ENOENT" });
    expect((await ok("identity", "list", "--limit", "100")).data.map((i: { email: string }) => i.email)).not.toContain("nobody@example.com");
    expect(await ok("merchant", "list", "--limit", "100")).toEqual(merchantsBefore);
    // No success of payinctl's is on record (the harness's changes before are not payinctl's).
    expect(await successesBy("operator_cli")).toEqual([]);
  });

  it("identity refuses payinctl's own credential issuing a machine credential or creating an identity without a person: FORBIDDEN", async () => {
    const merchant = await harnessMerchant("Direct Call Shop");
    const identity = createServiceClient(identityV1.IdentityService, {
      baseUrl: platform.serviceUrls.identity!,
      serviceToken: deriveCredential(platform.masterToken, "payinctl"),
      protocol: "grpc",
      // As payinctl calls: naming the OS user it runs as.
      interceptors: [(next) => (req) => (req.header.set("x-operator-os-user", operatorOsUser()), next(req))],
    });
    const refusal = (error: unknown) => (error instanceof ConnectError ? reasonOf(error) : String(error));
    expect(await identity.createMachineCredential({ merchantUuid: merchant }).then(() => "issued", refusal)).toBe("FORBIDDEN");
    const password = randomBytes(18).toString("base64url");
    expect(await identity.createIdentity({ email: "direct@example.com", password, roles: ["platform_admin"] }).then(() => "created", refusal)).toBe("FORBIDDEN");
    // The same credential may still read (break-glass), and nothing was made.
    expect((await identity.listMachineCredentials({ merchantUuid: merchant })).credentials).toEqual([]);
    expect((await identity.listIdentities({ limit: 100, offset: 0 })).identities.map((i) => i.email)).not.toContain("direct@example.com");
  });

  it("recovers people (break-glass): locks, activates and forgives sign-in failures, recorded as operator_cli with the OS user", async () => {
    const { uuid } = await harnessIdentity("locked.out@example.com", ["merchant_admin"]);
    expect((await ok("identity", "lock", uuid)).identity.status).toBe("locked");
    expect((await ok("identity", "activate", uuid)).identity.status).toBe("active");
    expect(await ok("identity", "reset-sign-in-failures", uuid)).toMatchObject({ identity: { uuid, status: "active" }, forgiven_failures: 0 });
    // Identity records its own changes through an outbox, delivered to the log shortly after.
    await vi.waitFor(
      async () => {
        const events = (await ok("audit", "list", "--target-uuid", uuid, "--actor-kind", "operator_cli", "--limit", "100")).data.reverse();
        expect(events.map((e: any) => [e.action, e.outcome, e.actor])).toEqual(
          ["identity.lock", "identity.activate", "identity.sign_in_failures.reset"].map((action) => [
            action,
            "succeeded",
            { kind: "operator_cli", uuid: null, os_user: operatorOsUser() },
          ]),
        );
      },
      { timeout: 20_000, interval: 250 },
    );
  });
});

describe("session login", () => {
  it("refuses a wrong TOTP code (exit 1) and keeps no session", async () => {
    const step = totpStepAt();
    const valid = new Set([-2, -1, 0, 1, 2].map((d) => totpCodeAt(admin.totpSecret, step + d)));
    let wrong = 0;
    while (valid.has(String(wrong).padStart(6, "0"))) wrong += 1;
    const result = await payinctlWithInput(env, `${admin.password}\n${String(wrong).padStart(6, "0")}\n`, "session", "login", "--email", admin.email);
    expect({ code: result.code, stdout: result.stdout, error: result.error }).toEqual({ code: 1, stdout: "", error: { code: "AUTH_INVALID_CREDENTIALS", message: expect.any(String) } });
    expect(await exists(sessionFile)).toBe(false);
    expect(await ok("session", "show")).toEqual({ signed_in: false });
  });

  it("acts as the signed-in person until logout: their records name them and the OS user; after logout a change is refused again", async () => {
    const merchant = await harnessMerchant("Signed-in Shop");
    const login = await signIn(env, admin);
    expect({ code: login.code, stderr: login.stderr }).toEqual({ code: 0, stderr: "" });
    expect(login.json).toMatchObject({ session: { identity_uuid: admin.uuid, email: admin.email }, session_file: sessionFile });
    expect((await stat(sessionFile)).mode & 0o777).toBe(0o600);
    const shown = await ok("session", "show");
    expect(shown).toMatchObject({ signed_in: true, identity_uuid: admin.uuid });
    expect(shown.permissions).toEqual(expect.arrayContaining(["provider.manage", "merchant.manage", "credential.manage", "identity.create"]));

    const xpub = randomXpub();
    expect((await ok("wallet", "set", merchant, "--xpub", xpub)).wallet).toMatchObject({ merchant_uuid: merchant, xpub });
    // Allocation's record of the change, delivered by its relay shortly after.
    await vi.waitFor(
      async () => {
        const audited = await ok("audit", "list", "--action", "wallet.set", "--target-uuid", merchant);
        expect(audited.data.map((e: any) => [e.outcome, e.actor])).toEqual([["succeeded", { kind: "identity", uuid: admin.uuid, os_user: operatorOsUser() }]]);
      },
      { timeout: 20_000, interval: 500 },
    );

    const kept = await readFile(sessionFile, "utf8");
    expect(await ok("session", "logout")).toEqual({ signed_out: true });
    expect(await exists(sessionFile)).toBe(false);
    expect(await ok("session", "show")).toEqual({ signed_in: false });
    expectRefused(await cli("wallet", "set", merchant, "--xpub", randomXpub()), "SIGN_IN_REQUIRED");
    // The session ended at identity too: its token, put back, is no one's any more.
    await writeFile(sessionFile, kept, { mode: 0o600 });
    expect(await ok("session", "show")).toEqual({ signed_in: false, ended: true });
    expectRefused(await cli("wallet", "set", merchant, "--xpub", randomXpub()), "SIGN_IN_REQUIRED");
    await rm(sessionFile);
    expect((await ok("wallet", "get", merchant)).wallet.xpub).toBe(xpub);
  });

  it("refuses a signed-in person without the command's permission: FORBIDDEN, nothing changed", async () => {
    while (totpStepAt() <= memberEnrolStep) await new Promise((resolve) => setTimeout(resolve, 1_000));
    const merchant = await harnessMerchant("Member's Shop");
    const login = await signIn(env, member);
    expect({ code: login.code, stderr: login.stderr }).toEqual({ code: 0, stderr: "" });
    const shown = await ok("session", "show");
    expect(shown).toMatchObject({ signed_in: true, identity_uuid: member.uuid });
    expect(shown.permissions).not.toContain("provider.manage");

    expectRefused(await cli("wallet", "set", merchant, "--xpub", randomXpub()), "FORBIDDEN");
    expectRefused(await cli("credential", "create", merchant), "FORBIDDEN");
    expectRefused(await cli("merchant", "create", "--display-name", "Member Made"), "FORBIDDEN");
    expectRefused(await cli("wallet", "get", merchant), "WALLET_NOT_FOUND");
    expect((await harness.identity.listMachineCredentials({ merchantUuid: merchant })).credentials).toEqual([]);
    // The member's own TOTP enrolment is theirs to record; none of the refused changes is.
    const refusedActions = ["wallet.set", "credential.create", "merchant.create"];
    expect((await successesBy("identity")).filter((e) => e.actor.uuid === member.uuid && refusedActions.includes(e.action))).toEqual([]);
    expect(await ok("session", "logout")).toEqual({ signed_out: true });
  });
});
