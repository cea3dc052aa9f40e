/**
 * The tests every gateway's error middleware owes (`errorMiddleware` here, the
 * checkout's page errors): a failed request is logged by the route it matched,
 * and a path no route matched by its length only, so no token in a path reaches
 * a log line. Called from a test file, which gives the middleware under test.
 */
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, type Logger } from "@payin/logging";
import { strictRouter } from "./router.js";

export function describeLoggedRoutes(title: string, errorMiddlewareFor: (logger: Logger) => Koa.Middleware): void {
  const TOKEN = "Tk9uZS1vZi10aGUtY2hlY2tvdXQtdG9rZW5zLTQzY2g";
  const lines: string[] = [];
  let server: ReturnType<Koa["listen"]>;
  let base = "";

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = new Koa();
    app.use(errorMiddlewareFor(createLogger("test", {}, sink)));
    // A failure before any route is matched (a store that is down, say).
    app.use(async (ctx, next) => {
      if (ctx.get("x-fail-early")) throw new Error("failed before routing");
      await next();
    });
    const router = strictRouter();
    router.get("/c/:token", () => {
      throw new Error("the page failed");
    });
    router.get("/c/:token/status", () => {
      throw new Error("the poll failed");
    });
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: false }));
    server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  describe(title, () => {
    it("names the matched route's template, never the path's token", async () => {
      lines.length = 0;
      expect((await fetch(`${base}/c/${TOKEN}/status`)).status).toBe(500);
      expect((await fetch(`${base}/c/${TOKEN}`)).status).toBe(500);
      expect(lines.map((l) => JSON.parse(l).route)).toEqual(["/c/:token/status", "/c/:token"]);
      for (const line of lines) expect(line).not.toContain(TOKEN);
    });

    it("names no part of a path no route matched, in any case", async () => {
      lines.length = 0;
      expect((await fetch(`${base}/C/${TOKEN}`)).status).toBe(404);
      for (const path of [`/C/${TOKEN}`, `/c/${TOKEN}/status`, `/${TOKEN}`]) {
        expect((await fetch(`${base}${path}`, { headers: { "x-fail-early": "1" } })).status).toBe(500);
      }
      expect(lines.map((l) => JSON.parse(l))).toEqual([
        expect.objectContaining({ route: "(unmatched)", pathLength: 3 + TOKEN.length, msg: "request failed" }),
        expect.objectContaining({ route: "(unmatched)", pathLength: 10 + TOKEN.length }),
        expect.objectContaining({ route: "(unmatched)", pathLength: 1 + TOKEN.length }),
      ]);
      for (const line of lines) expect(line).not.toContain(TOKEN);
    });
  });
}
