import http from "node:http";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "@payin/logging";
import { ErrorDetailSchema } from "@payin/proto";
import { Code, ConnectError } from "@payin/rpc";
import { ApiError } from "./errors.js";
import { errorMiddleware } from "./error-middleware.js";

const silent = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} } as unknown as Logger;

/** What each path throws. */
const THROWN: Record<string, () => unknown> = {
  "/identity": () =>
    new ConnectError("too many sign-in attempts; try again later", Code.ResourceExhausted, undefined, [
      { desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { reason: "RATE_LIMITED", domain: "identity", retryAfterSeconds: 873 }) },
    ]),
  "/unsaid": () =>
    new ConnectError("slow down", Code.ResourceExhausted, undefined, [
      { desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { reason: "RATE_LIMITED", domain: "payins" }) },
    ]),
  "/api-error": () => new ApiError("RATE_LIMITED", "slow down"),
  "/http-error": () => Object.assign(new Error("too many requests"), { status: 429, expose: true }),
};

let server: http.Server;
let base = "";

beforeAll(async () => {
  const app = new Koa();
  app.use(errorMiddleware(silent));
  app.use((ctx) => {
    throw THROWN[ctx.path]!();
  });
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("every 429", () => {
  it("carries the service's Retry-After, and a second when nothing said more", async () => {
    for (const [path, expected] of [["/identity", "873"], ["/unsaid", "1"], ["/api-error", "1"], ["/http-error", "1"]] as const) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(429);
      expect(res.headers.get("retry-after"), path).toBe(expected);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("RATE_LIMITED");
    }
  });
});
