import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "@payin/logging";
import { requestLogFields, runWithContext, runWithoutContext } from "./context.js";

/** A logger like a service's, writing its JSON lines into an array. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: createLogger("test", { mixin: requestLogFields }, sink) };
}

describe("requestLogFields", () => {
  it("names the request on every line logged while serving it, and none outside one", async () => {
    const { lines, logger } = capturingLogger();
    await runWithContext({ requestId: "req_abc" }, async () => {
      logger.info("inside");
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.warn({ method: "X" }, "after an await");
      runWithoutContext(() => logger.info("shared work"));
    });
    logger.info("outside");
    expect(lines.map((l) => [l.msg, l.requestId])).toEqual([
      ["inside", "req_abc"],
      ["after an await", "req_abc"],
      ["shared work", undefined],
      ["outside", undefined],
    ]);
    expect(lines[1]).toMatchObject({ service: "test", method: "X" });
  });
});
