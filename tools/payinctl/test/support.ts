/** Running payinctl as an operator does, against a test platform. */
import { spawn } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "@payin/launcher";
import type { TestPlatform } from "@payin/testing";

export const MAIN = path.join(REPO_ROOT, "tools/payinctl/src/main.ts");

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (killed after `timeoutMs`). */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
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
export async function payinctl(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
  const result = await run(process.execPath, ["--import", "tsx", MAIN, ...args], env);
  const parse = (text: string) => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };
  return { ...result, json: parse(result.stdout), error: result.code === 1 ? parse(result.stderr)?.error : undefined };
}
