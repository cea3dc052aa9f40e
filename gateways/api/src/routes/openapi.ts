import type Router from "@koa/router";
import { strictRouter } from "@payin/http";
import { openApiDocument } from "../openapi/document.js";

/** GET /api/v1/openapi.json: the OpenAPI 3.1 description of this gateway. */
export function openApiRoutes(): Router {
  const router = strictRouter();
  const body = openApiDocument();
  router.get("/api/v1/openapi.json", (ctx) => {
    ctx.set("cache-control", "public, max-age=300");
    ctx.body = body;
  });
  return router;
}
