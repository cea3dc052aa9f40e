import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type Router from "@koa/router";
import { strictRouter } from "@payin/http";

export const STATIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "static");

/** The style sheet and the one script, read once at start; revalidated by ETag. */
const ASSETS = [
  { route: "/hosted-checkout/app.css", file: "app.css", type: "text/css; charset=utf-8" },
  { route: "/hosted-checkout/status.js", file: "status.js", type: "text/javascript; charset=utf-8" },
] as const;

export function staticRoutes(): Router {
  const router = strictRouter();
  for (const asset of ASSETS) {
    const body = readFileSync(path.join(STATIC_DIR, asset.file));
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
    router.get(asset.route, (ctx) => {
      ctx.set("cache-control", "no-cache");
      ctx.set("etag", etag);
      ctx.type = asset.type;
      if (ctx.get("if-none-match") === etag) {
        ctx.status = 304;
        return;
      }
      ctx.body = body;
    });
  }
  return router;
}
