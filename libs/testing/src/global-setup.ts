import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from "@payin/db-embedded";
import { REPO_ROOT } from "@payin/launcher";
import "./provided-context.js";

let embedded: EmbeddedPostgresHandle | undefined;

/**
 * Starts one embedded PostgreSQL for the whole run, unless TEST_DATABASE_URL
 * names a server to use instead. Each test file then makes its own database.
 */
export async function setup(project: TestProject): Promise<void> {
  // TEST_LOG_DIR keeps two runs in one checkout from clearing each other's logs.
  const logDir = process.env.TEST_LOG_DIR ?? path.join(REPO_ROOT, "tmp", "test-logs");
  await rm(logDir, { recursive: true, force: true });
  await mkdir(logDir, { recursive: true });
  project.provide("testLogDir", logDir);
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    project.provide("pgServerUrl", external);
    return;
  }
  const dataDir = path.join(REPO_ROOT, "tmp", `pg-test-${process.pid}`);
  embedded = await startEmbeddedPostgres({ dataDir, persistent: false });
  project.provide("pgServerUrl", embedded.url);
}

export async function teardown(): Promise<void> {
  await embedded?.stop();
}
