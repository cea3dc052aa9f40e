import { randomBytes } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { startEmbeddedPostgres } from "../src/embedded.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// A terminal's Ctrl-C signals the whole process group: the server may be gone
// before stop() runs, and stop() must then return instead of waiting for an
// exit that already happened.
it("stops a server that already ended (Ctrl-C reached it first) at once, and removes its data", async () => {
  // Under the repository's tmp/, as the test server's (a root run initialises it as another user).
  const dataDir = path.join(ROOT, "tmp", `pg-stop-test-${randomBytes(4).toString("hex")}`);
  try {
    const handle = await startEmbeddedPostgres({ dataDir, persistent: false });
    const pid = Number.parseInt((await readFile(path.join(dataDir, "postmaster.pid"), "utf8")).split("\n", 1)[0]!, 10);
    expect(alive(pid)).toBe(true);
    process.kill(pid, "SIGINT"); // PostgreSQL's fast shutdown, as on Ctrl-C
    const started = Date.now();
    while (alive(pid) && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive(pid)).toBe(false);
    const stopping = Date.now();
    await handle.stop();
    expect(Date.now() - stopping).toBeLessThan(5_000);
    await expect(readFile(path.join(dataDir, "PG_VERSION"))).rejects.toMatchObject({ code: "ENOENT" });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.password`, { force: true });
  }
}, 60_000);
