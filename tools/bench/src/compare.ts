/**
 * `npm run bench:compare -- <git ref>`: the bench on the code at <ref> ("old") and
 * on this checkout ("new"), alternating in one run, so that a change is judged
 * against the code before it on the same machine in the same minutes.
 *
 * The old code is checked out as a git worktree under the system's temporary
 * directory (installed with `npm ci` once; reused while its commit is the same).
 * Each run is a whole `npm run bench` of BENCH_COMPARE_SCENARIOS (default
 * "baselines,create,read": create/B1 and read/B2) in its tree, with
 * BENCH_LIST_ROWS 1,000 unless set; every other BENCH_* variable reaches both. BENCH_COMPARE_ROUNDS (default 2) rounds of one run per
 * tree, in the order old, new, new, old, … Prints each run's ratios, each tree's
 * medians and new/old, judged against BENCH_COMPARE_FLOOR (default 0.9: new keeps
 * at least 90 % of old), and writes tmp/bench-compare.json. Exits 0 whatever the
 * verdict; 1 when a run fails.
 */
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "@payin/launcher";
import { compareRuns, runOrder, type CompareRun, type Tree } from "./compare-summary.js";
import { envInt, fmt } from "./stats.js";

const out = (line = "") => process.stdout.write(`${line}\n`);
const RATIO_KEYS = ["createVsB1", "readVsB2"] as const;

const ref = process.argv[2] ?? process.env.BENCH_COMPARE_REF;
if (!ref) {
  process.stderr.write("usage: npm run bench:compare -- <git ref of the old code>\n");
  process.exit(2);
}
const rounds = envInt("BENCH_COMPARE_ROUNDS", 2, 1);
const floor = Number(process.env.BENCH_COMPARE_FLOOR ?? "0.9");
const scenarios = process.env.BENCH_COMPARE_SCENARIOS ?? "baselines,create,read";

function git(args: string[]): string {
  const result = spawnSync("git", args, { cwd: REPO_ROOT, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

/** Runs a command in `cwd` with its output appended to `logFile`; rejects when it fails. */
function run(command: string, args: string[], cwd: string, logFile: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const log = createWriteStream(logFile, { flags: "a" });
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on("error", reject);
    child.on("exit", (code) => {
      log.end();
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(" ")} in ${cwd} exited ${code}; see ${logFile}`));
    });
  });
}

async function oldTree(commit: string, logFile: string): Promise<string> {
  const dir = path.join(os.tmpdir(), "payin-bench-compare", commit);
  if (!existsSync(path.join(dir, "package.json"))) {
    await mkdir(path.dirname(dir), { recursive: true });
    git(["worktree", "prune"]);
    git(["worktree", "add", "--detach", "--force", dir, commit]);
  }
  if (!existsSync(path.join(dir, "node_modules"))) {
    out(`installing the old tree (${commit.slice(0, 12)}) with npm ci …`);
    await run("npm", ["ci", "--no-audit", "--no-fund"], dir, logFile);
  }
  return dir;
}

function ratiosOf(tree: string): Record<string, number | null> {
  const results = JSON.parse(readFileSync(path.join(tree, "tmp", "bench-results.json"), "utf8")) as { ratios?: Record<string, { value?: number | null } | null> };
  return Object.fromEntries(RATIO_KEYS.map((key) => [key, results.ratios?.[key]?.value ?? null]));
}

const commit = git(["rev-parse", "--verify", `${ref}^{commit}`]);
const tmpDir = path.join(REPO_ROOT, "tmp");
await mkdir(tmpDir, { recursive: true });
const logFile = path.join(tmpDir, "bench-compare.log");
const trees: Record<Tree, string> = { old: await oldTree(commit, logFile), new: REPO_ROOT };
out(`old: ${commit.slice(0, 12)} (${trees.old}); new: this checkout (${git(["rev-parse", "--short=12", "HEAD"])}${git(["status", "--porcelain"]) ? ", with uncommitted changes" : ""})`);
out(`scenarios ${scenarios}; ${rounds} round(s); logs in ${logFile}`);

const runs: CompareRun[] = [];
for (const [i, tree] of runOrder(rounds).entries()) {
  const started = Date.now();
  // The list group is not compared: its big merchant's million rows would only lengthen each run's seeding.
  await run("npm", ["run", "-s", "bench"], trees[tree], logFile, { BENCH_LIST_ROWS: "1000", ...process.env, BENCH_SCENARIOS: scenarios });
  const ratios = ratiosOf(trees[tree]);
  runs.push({ tree, ratios });
  out(`run ${i + 1} ${tree.padEnd(3)}  ${RATIO_KEYS.map((k) => `${k} ${fmt(ratios[k] ?? undefined, 2)}`).join("   ")}   (${Math.round((Date.now() - started) / 1000)} s)`);
}

const compared = compareRuns(runs, RATIO_KEYS, floor);
out();
out(`new vs old, medians of each tree's runs (holds when new ≥ ${floor} × old)`);
for (const c of compared) {
  const verdict = c.holds === null ? "n/a (not measured)" : c.holds ? "holds" : "WORSE";
  out(`  ${c.key.padEnd(10)} old ${fmt(c.old ?? undefined, 2)}   new ${fmt(c.new ?? undefined, 2)}   new/old ${fmt(c.change ?? undefined, 2)}   ${verdict}`);
}
await writeFile(path.join(tmpDir, "bench-compare.json"), `${JSON.stringify({ oldCommit: commit, scenarios, rounds, floor, runs, compared }, null, 2)}\n`);
