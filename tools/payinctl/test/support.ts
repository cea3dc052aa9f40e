/** Running payinctl as an operator does, against a test platform. */
import { spawn } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "@payin/launcher";
import { awaitFreshTotpStep, Operator, totpCodeAt, totpSecretOf, type TestPlatform } from "@payin/testing";

export const MAIN = path.join(REPO_ROOT, "tools/payinctl/src/main.ts");

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (killed after `timeoutMs`), with `input` on its stdin when given. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000, input?: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The test's environment without the settings payinctl reads. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (name === "SERVICE_TOKEN" || name === "SERVICE_CREDENTIAL" || /_(PORT|URL)$/.test(name)) delete env[name];
  return { ...env, ...extra };
}

/** payinctl's environment for a platform: its services' URLs and the master secret, as `npm start` keeps it. */
export function platformEnv(platform: TestPlatform, dataDir: string): NodeJS.ProcessEnv {
  return cleanEnv({
    PAYIN_DATA_DIR: dataDir,
    // The operator's sign-in (payinctl session login) is kept here, never in the tester's home.
    PAYINCTL_SESSION_FILE: path.join(dataDir, "payinctl-session"),
    SERVICE_TOKEN: platform.masterToken,
    IDENTITY_URL: platform.serviceUrls.identity!,
    MERCHANTS_URL: platform.serviceUrls.merchants!,
    ALLOCATION_URL: platform.serviceUrls.allocation!,
  });
}

/** A finished payinctl command. */
export interface CliResult extends Result {
  /** stdout as JSON (a successful command prints exactly one JSON line). */
  json: any;
  /** The `{error:{code,message}}` stderr holds, for a failed command. */
  error: { code: string; message: string } | undefined;
}

/** Runs `payinctl ARGS…` in `env` (node with tsx, as `npm run -s payinctl --` does). */
export function payinctl(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
  return payinctlWithInput(env, undefined, ...args);
}

/** Runs `payinctl ARGS…` with `input` on its stdin (what `session login` reads its password and code from). */
export async function payinctlWithInput(env: NodeJS.ProcessEnv, input: string | undefined, ...args: string[]): Promise<CliResult> {
  const result = await run(process.execPath, ["--import", "tsx", MAIN, ...args], env, 30_000, input);
  const parse = (text: string) => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };
  return { ...result, json: parse(result.stdout), error: result.code === 1 ? parse(result.stderr)?.error : undefined };
}

/** A platform admin with TOTP (as payinctl's bootstrap makes one, over the test harness's identity client). */
export interface TestAdmin {
  uuid: string;
  email: string;
  password: string;
  totpSecret: string;
}

/** Creates the first platform admin of `platform`, with TOTP. */
export async function bootstrapTestAdmin(platform: TestPlatform, email = "ops@example.com"): Promise<TestAdmin> {
  const res = await new Operator(platform).identity.bootstrapAdmin({ email });
  return { uuid: res.identity!.uuid, email, password: res.password, totpSecret: totpSecretOf(res.totpUri) };
}

/** The latest TOTP step each admin signed in with. */
const usedSteps = new Map<string, number>();

/**
 * Signs `admin` in with `payinctl session login` in `env`, at a TOTP step no
 * earlier sign-in of the run used (identity refuses a used step).
 */
export async function signIn(env: NodeJS.ProcessEnv, admin: TestAdmin): Promise<CliResult> {
  let step = await awaitFreshTotpStep();
  while (step <= (usedSteps.get(admin.email) ?? -1)) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    step = await awaitFreshTotpStep();
  }
  usedSteps.set(admin.email, step);
  return payinctlWithInput(env, `${admin.password}\n${totpCodeAt(admin.totpSecret, step)}\n`, "session", "login", "--email", admin.email);
}
