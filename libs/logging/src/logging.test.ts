import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, loggableError, scrubText } from "./index.js";

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
