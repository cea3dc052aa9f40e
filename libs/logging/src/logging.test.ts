import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, errorCause, loggableError, oncePerCause, scrubText } from "./index.js";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, stream };
}

describe("logging", () => {
  it("redacts credential fields at any of the first levels", () => {
    const { lines, stream } = capture();
    const logger = createLogger("t", { level: "info" }, stream);
    logger.info(
      { token: "tok-1", body: { password: "hunter2hunter2", new_password: "pw-2" }, a: { b: { secret: "s3cr3t" } }, headers: { authorization: "Bearer zz" } },
      "x",
    );
    const out = lines.join("");
    expect(out).toContain('"service":"t"');
    for (const secret of ["tok-1", "hunter2hunter2", "pw-2", "s3cr3t", "Bearer zz"]) expect(out).not.toContain(secret);
    expect(out).toContain("[REDACTED]");
  });

  it("scrubs tokens from message strings", () => {
    const { lines, stream } = capture();
    createLogger("t", { level: "info" }, stream).info(`login with mpk_${"a".repeat(32)}${"B".repeat(43)}`);
    expect(lines.join("")).not.toContain("mpk_aaaa");
  });

  it("scrubs machine tokens and bearer values from free text", () => {
    const token = `mpk_${"a".repeat(32)}${"B".repeat(43)}`;
    expect(scrubText(`got ${token} and Bearer abc.def`)).toBe("got [REDACTED] and [REDACTED]");
  });

  it("keeps only the SQLSTATE, constraint and table of a database error", () => {
    const error = Object.assign(new Error("insert into connections (secret_reference) values ('vault:kv/x') - duplicate key"), {
      code: "23505",
      constraint: "connections_key",
      table: "connections",
    });
    const logged = loggableError(error);
    expect(logged).toEqual({ type: "Error", sqlState: "23505", constraint: "connections_key", table: "connections" });
    expect(JSON.stringify(logged)).not.toContain("vault:kv/x");
  });
});

describe("a fallback's cause", () => {
  it("keeps the code and the database's own message, never the statement, its values or a token", () => {
    const knexStyle = Object.assign(new Error("insert into keys (k) values ('tok-secret') - duplicate key value violates unique constraint \"keys_pkey\""), { code: "23505" });
    expect(errorCause(knexStyle)).toEqual({ code: "23505", message: 'duplicate key value violates unique constraint "keys_pkey"' });
    const echoed = Object.assign(new Error('invalid input syntax for type uuid: "mpk-not-a-uuid"'), { code: "22P02" });
    expect(errorCause(echoed)).toEqual({ code: "22P02", message: "invalid input syntax for type uuid: [value]" });
    expect(errorCause(new Error(`refused Bearer abc.def\nstack`))).toEqual({ message: "refused [REDACTED]" });
    expect(errorCause(42)).toEqual({ message: "thrown number" });
  });

  it("is logged once per cause and interval, with how often it recurred", () => {
    const { lines, stream } = capture();
    let now = 0;
    const report = oncePerCause(createLogger("t", { level: "info" }, stream), "batch fell back", {
      intervalMs: 1_000,
      now: () => now,
      expected: (cause) => cause.code === "23502",
    });
    const denied = Object.assign(new Error("permission denied for table keys"), { code: "42501" });
    for (let i = 0; i < 5; i++) report(denied, { rows: 2 });
    report(Object.assign(new Error("null value in column"), { code: "23502" }));
    now = 1_500;
    report(denied, { rows: 3 });
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged.map((l) => [l.level, l.msg, l.cause, l.rows, l.repeated])).toEqual([
      [40, "batch fell back", { code: "42501", message: "permission denied for table keys" }, 2, undefined],
      [30, "batch fell back", { code: "23502", message: "null value in column" }, undefined, undefined],
      [40, "batch fell back", { code: "42501", message: "permission denied for table keys" }, 3, 4],
    ]);
  });
});
