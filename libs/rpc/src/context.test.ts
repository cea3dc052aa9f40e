import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "@payin/logging";
import { clientRequestIdFrom, newRequestId, requestLogFields, runWithContext, runWithoutContext } from "./context.js";

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

  it("logs a client's own request id beside the platform's, as client_request_id", () => {
    const { lines, logger } = capturingLogger();
    runWithContext({ requestId: "req_ours", clientRequestId: "theirs-1" }, () => logger.info("inside"));
    expect(lines[0]).toMatchObject({ requestId: "req_ours", client_request_id: "theirs-1" });
  });
});

describe("request ids", () => {
  it("mints a fresh platform id every time", () => {
    const a = newRequestId();
    expect(a).toMatch(/^req_[0-9a-f]{32}$/);
    expect(newRequestId()).not.toBe(a);
  });

  it("keeps a client's id only when it is short and of the allowed characters", () => {
    expect(clientRequestIdFrom("forged-id")).toBe("forged-id");
    expect(clientRequestIdFrom("a".repeat(128))).toBe("a".repeat(128));
    expect(clientRequestIdFrom("a".repeat(129))).toBeUndefined();
    expect(clientRequestIdFrom("has spaces")).toBeUndefined();
    expect(clientRequestIdFrom("\u202ehidden")).toBeUndefined();
    expect(clientRequestIdFrom("")).toBeUndefined();
    expect(clientRequestIdFrom(undefined)).toBeUndefined();
  });
});
