/**
 * `npm start` keeps the platform running: each of its processes, killed
 * (SIGKILL) under a steady load of API requests, is restarted by the stack
 * without anyone restarting `npm start`; meanwhile the API gateway answers
 * every request, 2xx or 503, and soon serves them all again. Ctrl-C then
 * stops the restarted processes like the others. Linux only (reads /proc).
 * The restart policy (pauses, giving up) is unit-tested in
 * restart-policy.test.ts and supervisor.test.ts.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alive, cmdline, descendants, exitOf, freshStackEnv, killTree, ready, sleep, startStack, until, type StackRun } from "./stack-process.js";

let dataDir: string;
let env: NodeJS.ProcessEnv;
let run: StackRun;
let api: string;
let demo: { merchant_uuid: string; token: string };
let intentUuid: string;

beforeAll(async () => {
  ({ dataDir, env } = await freshStackEnv());
  api = `http://127.0.0.1:${env.API_PORT}`;
  run = startStack(env);
  await ready(run);
  demo = JSON.parse(await readFile(path.join(dataDir, "demo-merchant.json"), "utf8"));
  intentUuid = /pay-in intent ([0-9a-f-]{36}):/.exec(run.stdout)![1]!;
}, 180_000);

afterAll(async () => {
  if (run && run.child.exitCode === null && run.child.signalCode === null) killTree(run.pid);
  await sleep(200);
  await rm(dataDir, { recursive: true, force: true });
});

/** <data dir>/processes.json: the pid of each process by name. */
async function pids(): Promise<Record<string, number>> {
  return JSON.parse(await readFile(path.join(dataDir, "processes.json"), "utf8"));
}

const authorization = () => ({ authorization: `Bearer ${demo.token}` });

/** The demo merchant's read of its demo intent: the status, or what went wrong when there was no answer. */
async function readIntent(): Promise<number | string> {
  return fetch(`${api}/api/v1/merchants/${demo.merchant_uuid}/pay-in-intents/${intentUuid}`, { headers: authorization(), signal: AbortSignal.timeout(15_000) }).then(
    (res) => res.status,
    (error: Error) => `no answer: ${String((error.cause as Error | undefined)?.message ?? error.message)}`,
  );
}

/** A create of a 1 USDT intent by the demo merchant: the status, or what went wrong when there was no answer. */
async function createIntent(): Promise<number | string> {
  return fetch(`${api}/api/v1/merchants/${demo.merchant_uuid}/pay-in-intents`, {
    method: "POST",
    headers: { ...authorization(), "content-type": "application/json", "idempotency-key": randomUUID() },
    body: JSON.stringify({ asset: "usdt", amount: "1", jurisdiction: "DE", expires_at: new Date(Date.now() + 3_600_000).toISOString() }),
    signal: AbortSignal.timeout(15_000),
  }).then(
    (res) => res.status,
    (error: Error) => `no answer: ${String((error.cause as Error | undefined)?.message ?? error.message)}`,
  );
}

async function health(url: string): Promise<number | string> {
  return fetch(url, { signal: AbortSignal.timeout(15_000) }).then(
    (res) => res.status,
    (error: Error) => `no answer: ${String((error.cause as Error | undefined)?.message ?? error.message)}`,
  );
}

/**
 * A light steady load on the API gateway until stopped — its health, the
 * intent's read, and a create every third round, one after the other with
 * 50 ms between rounds — recording every answer.
 */
function steadyLoad() {
  const answers: { what: string; status: number | string }[] = [];
  let running = true;
  const loop = (async () => {
    for (let round = 0; running; round++) {
      answers.push({ what: "GET /health", status: await health(`${api}/health`) });
      answers.push({ what: "GET intent", status: await readIntent() });
      if (round % 3 === 0) answers.push({ what: "POST intent", status: await createIntent() });
      await sleep(50);
    }
  })();
  return {
    answers,
    async stop() {
      running = false;
      await loop;
      return answers;
    },
  };
}

/**
 * Kills `name` with SIGKILL and waits for the stack to report it and start it
 * again: the restart line printed, a new pid of a live process in
 * processes.json. Answers the new pid.
 */
async function killAndAwaitRestart(name: string): Promise<number> {
  const before = (await pids())[name]!;
  expect(alive(before), `${name} (${before}) runs before it is killed`).toBe(true);
  process.kill(before, "SIGKILL");
  await until(`the stack reports ${name}'s exit`, 10_000, () =>
    run.stdout.includes(`${name} exited (code null, signal SIGKILL); restarting in 0.5 s\n`) ? true : undefined,
  );
  const after = await until(`${name} runs again`, 60_000, async () => {
    const pid = (await pids())[name];
    return pid !== undefined && pid !== before && alive(pid) ? pid : undefined;
  });
  expect(run.stdout).toContain(`${name} restarted\n`);
  return after;
}

describe("a process that dies is restarted", () => {
  it("each service killed under load comes back by itself; every answer meanwhile is 2xx or 503, and the API serves again within seconds", { timeout: 300_000 }, async () => {
    expect(Object.keys(await pids()).sort()).toEqual(["allocation", "api", "checkout", "identity", "merchants", "notifications", "notifier", "observer", "payins"]);
    expect(await readIntent()).toBe(200);
    const load = steadyLoad();
    const servedAgainAfter: Record<string, number> = {};
    for (const name of ["identity", "merchants", "payins", "allocation"]) {
      const killedAt = Date.now();
      const pid = await killAndAwaitRestart(name);
      expect(cmdline(pid)).toContain(`services/${name}/src/main.ts`);
      // Served again: a create (through payins, merchants, allocation, identity's token check) and a read.
      await until(`the API serves again after ${name}'s restart`, 30_000, async () =>
        (await createIntent()) === 201 && (await readIntent()) === 200 ? true : undefined,
      );
      servedAgainAfter[name] = Date.now() - killedAt;
    }
    const answers = await load.stop();

    const wrong = answers.filter(({ status }) => !(typeof status === "number" && ((status >= 200 && status < 300) || status === 503)));
    expect(wrong).toEqual([]);
    expect(answers.length).toBeGreaterThan(40);
    // Within seconds of each kill, on a busy two-core machine: a restart pause
    // (0.5 s) and a process's boot under tsx.
    for (const [name, ms] of Object.entries(servedAgainAfter)) expect(ms, `${name}: ${ms} ms`).toBeLessThan(20_000);
    expect(run.child.exitCode).toBeNull(); // the same npm start throughout
  });

  it("the observer and the checkout gateway come back too", { timeout: 120_000 }, async () => {
    await killAndAwaitRestart("observer");
    await until("the observer answers its health again", 30_000, async () => ((await health(`http://127.0.0.1:${env.OBSERVER_PORT}/health`)) === 200 ? true : undefined));
    await killAndAwaitRestart("checkout");
    await until("the checkout gateway answers again", 30_000, async () => ((await health(`http://127.0.0.1:${env.CHECKOUT_PORT}/health`)) === 200 ? true : undefined));
  });

  it("Ctrl-C stops the restarted processes with the others, exits 0, and leaves neither process nor processes.json behind", { timeout: 60_000 }, async () => {
    const running = await pids();
    const tree = descendants(run.pid);
    for (const pid of Object.values(running)) expect(tree).toContain(pid);
    process.kill(-run.pid, "SIGINT");
    expect(await exitOf(run, 30_000)).toBe(0);
    const shutdown = run.stdout.slice(run.stdout.indexOf("stopping…")).split("\n");
    for (const name of Object.keys(running)) expect(shutdown).toContain(`  ${name} stopped`);
    expect(shutdown.filter((line) => line.includes("restart"))).toEqual([]); // nothing restarted once stopping
    expect(existsSync(path.join(dataDir, "processes.json"))).toBe(false);
    const deadline = Date.now() + 5_000;
    while (tree.some(alive) && Date.now() < deadline) await sleep(100);
    expect(tree.filter(alive).map((pid) => `${pid} ${cmdline(pid)}`)).toEqual([]);
  });
});
