/**
 * `npm start`: the whole platform on one machine — an embedded PostgreSQL with
 * its data under .data/ (unless DATABASE_URL names one), the four services and
 * the gateways (see stack.ts) — stopped in order on Ctrl-C.
 *
 * stack.ts reads the configuration before anything starts: a missing or
 * malformed variable stops it with one line naming the variable (exit 78), the
 * exit code this process passes on.
 *
 * A terminal's Ctrl-C signals every process of its foreground process group at
 * once: the gateways, the services and PostgreSQL would all stop together,
 * PostgreSQL under services still using it. So the platform runs in stack.ts,
 * in a session (and process group) of its own, which alone stops its processes:
 * this process passes SIGINT, SIGTERM and SIGHUP on to it and exits with its
 * exit code. Should this process die, stack.ts sees its IPC channel close and
 * stops the platform too.
 */
import { spawn } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";

const stack = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL("./stack.ts", import.meta.url))], {
  detached: process.platform !== "win32",
  stdio: ["ignore", "inherit", "inherit", "ipc"],
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => stack.kill(signal));
}
stack.on("error", (error) => {
  process.stderr.write(`npm start failed: ${error.message}\n`);
  process.exit(1);
});
stack.on("exit", (code, signal) => {
  process.exit(code ?? 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0));
});
