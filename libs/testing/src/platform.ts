import { randomBytes } from "node:crypto";
import path from "node:path";
import { inject } from "vitest";
import "./provided-context.js";
import { deriveCredential } from "@payin/config";
import { freePort } from "@payin/db-embedded";
import { launchPlatform, PLATFORM_PROCESSES, SERVICES, type Platform } from "@payin/launcher";
import { createTestDatabase } from "./database.js";

export interface TestPlatform extends Platform {
  /** Base URL of the API gateway, e.g. http://127.0.0.1:40123 */
  readonly apiUrl: string;
  /** Base URL of the hosted checkout gateway. */
  readonly checkoutUrl: string;
  /** Base URL of each service by name. */
  readonly serviceUrls: Record<string, string>;
  /**
   * The credential of the `test` caller, which every service allows every RPC:
   * what a test presents when it calls services directly, playing an operator.
   */
  readonly serviceToken: string;
  /** The master secret (SERVICE_TOKEN) the processes' credentials are derived from, as `npm start` keeps it. */
  readonly masterToken: string;
  /** The credential of one caller (e.g. "payins"), to test what that caller may call. */
  credential(caller: string): string;
  readonly databaseUrl: string;
  /** File every process of this platform writes its logs to. */
  readonly logFile: string;
}

/**
 * Starts the real platform for a test file: its own database, free ports, every
 * service and gateway as its own process, logs in the run's log directory.
 */
export async function startTestPlatform(options: { env?: Record<string, string> } = {}): Promise<TestPlatform> {
  const databaseUrl = await createTestDatabase("stack");
  const masterToken = randomBytes(32).toString("base64url");
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    SERVICE_TOKEN: masterToken,
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString("base64url"),
    LOG_LEVEL: "info",
    // Test files run two platforms at once on a small machine: identity at the
    // lowest priority could miss the gateway's 5 s deadline there and fail tests
    // that are not about priorities (priority.test.ts tests those).
    PROCESS_NICE: "0",
    WORKER_SCHED_IDLE: "false",
    // Tests' webhook receivers listen on loopback over http (private and link-local addresses stay refused).
    WEBHOOK_ALLOW_INSECURE_URLS: "true",
    ...options.env,
  };
  const serviceUrls: Record<string, string> = {};
  for (const spec of PLATFORM_PROCESSES) {
    const port = await freePort();
    env[spec.portVariable] = String(port);
    serviceUrls[spec.name] = `http://127.0.0.1:${port}`;
  }
  for (const spec of SERVICES) env[`${spec.name.toUpperCase()}_URL`] = serviceUrls[spec.name]!;
  const logFile = path.join(inject("testLogDir"), `platform-${randomBytes(4).toString("hex")}.log`);
  const platform = await launchPlatform({ env, output: logFile, extraCallers: ["test"] });
  const credential = (caller: string) => deriveCredential(masterToken, caller);
  return { ...platform, apiUrl: serviceUrls.api!, checkoutUrl: serviceUrls.checkout!, serviceUrls, serviceToken: credential("test"), masterToken, credential, databaseUrl, logFile };
}
