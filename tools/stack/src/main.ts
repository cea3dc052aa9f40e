/**
 * `npm start`: the whole platform on one machine. Starts an embedded PostgreSQL
 * with its data under .data/ (unless DATABASE_URL names one), then the four
 * services and the API gateway, prints the URLs, and stops everything on Ctrl-C.
 */
import { access, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_PORTS } from "@payin/config";
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from "@payin/db";
import { dataDir, launchPlatform, readServiceToken, readTotpEncryptionKey, type Platform } from "@payin/launcher";
import { bootstrapView } from "@payin/payinctl/views";
import { identityV1 } from "@payin/proto";
import { ConnectError, createServiceClient, reasonOf } from "@payin/rpc";

const out = (line: string) => process.stdout.write(`${line}\n`);

/** What is running, so that a failure on the way up stops it too. */
const running: { embedded?: EmbeddedPostgresHandle; platform?: Platform } = {};

async function main(): Promise<void> {
  await mkdir(dataDir(), { recursive: true });
  let embedded: EmbeddedPostgresHandle | undefined;
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    out(`starting embedded PostgreSQL (data in ${path.join(dataDir(), "postgres")})…`);
    embedded = await startEmbeddedPostgres({ dataDir: path.join(dataDir(), "postgres"), port: Number(process.env.PG_PORT ?? 0) || undefined });
    running.embedded = embedded;
    databaseUrl = await embedded.createDatabase("payin");
  }
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    SERVICE_TOKEN: await readServiceToken({ create: true }),
    TOTP_ENCRYPTION_KEY: await readTotpEncryptionKey({ create: true }),
  };
  for (const [name, port] of Object.entries(DEFAULT_PORTS)) env[name] = process.env[name] ?? String(port);

  const platform = await launchPlatform({ env, output: "inherit" });
  running.platform = platform;
  let stopping = false;
  /** Stops everything in order; exits 0 when asked to stop, 1 when a process died on its own. */
  const shutdown = async (exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    out("stopping…");
    await platform.stopAll();
    await embedded?.stop();
    process.exit(exitCode);
  };
  process.on("SIGINT", () => void shutdown());
  process.on("SIGTERM", () => void shutdown());
  for (const proc of platform.processes.values()) {
    void proc.exited.then((code) => {
      if (!stopping) {
        out(`${proc.spec.name} exited with code ${code}; stopping the platform`);
        void shutdown(1);
      }
    });
  }
  await bootstrapAdmin(env);
  const host = process.env.HOST ?? "127.0.0.1";
  out("");
  out("payin platform is running");
  out(`  API gateway   http://${host}:${env.API_PORT}   (health: /health, API: /api/v1)`);
  for (const name of ["identity", "merchants", "payins", "allocation"]) {
    out(`  ${name.padEnd(13)} grpc+connect://${host}:${env[`${name.toUpperCase()}_PORT`]}`);
  }
  out("  operator CLI  npm run -s payinctl -- --help");
  out("press Ctrl-C to stop");
}

/**
 * On a fresh data directory, creates the first platform_admin (BOOTSTRAP_ADMIN_EMAIL,
 * default admin@example.com) with TOTP enrolled, prints the credentials once and
 * keeps them in .data/bootstrap-admin.json (mode 0600; the local stack only).
 */
async function bootstrapAdmin(env: Record<string, string>): Promise<void> {
  const file = path.join(dataDir(), "bootstrap-admin.json");
  if (await exists(file)) return;
  const identity = createServiceClient(identityV1.IdentityService, {
    baseUrl: `http://127.0.0.1:${env.IDENTITY_PORT}`,
    serviceToken: env.SERVICE_TOKEN!,
  });
  try {
    const res = await identity.bootstrapAdmin({ email: process.env.BOOTSTRAP_ADMIN_EMAIL ?? "admin@example.com" });
    const view = bootstrapView(res);
    // Shown before it is written: should the write fail, the one chance to see
    // the password has not been lost with it.
    out("");
    out("first platform admin created (shown once; also kept in .data/bootstrap-admin.json):");
    out(JSON.stringify(view));
    await writeFile(file, `${JSON.stringify(view, null, 2)}\n`, { mode: 0o600 });
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

main().catch(async (error) => {
  process.stderr.write(`npm start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  // Leave nothing behind: the processes started so far, then PostgreSQL (which
  // would otherwise keep holding its data directory).
  await running.platform?.stopAll().catch(() => {});
  await running.embedded?.stop().catch(() => {});
  process.exit(1);
});
