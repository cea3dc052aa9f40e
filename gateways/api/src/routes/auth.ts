import Router from "@koa/router";
import type { AppDeps } from "../app.js";

/** /api/v1/auth/*: sign-in, MFA, sessions, password, TOTP enrolment (DESIGN §8). */
export function authRoutes(_deps: AppDeps): Router {
  return new Router({ prefix: "/api/v1/auth" });
}
