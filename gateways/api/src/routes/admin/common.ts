/** Shared pieces of the /api/v1/admin routes: strict body and path checks. */
import type { Context } from "koa";
import { onlyFields, readJsonObject, type Body } from "@payin/http";

/** A path parameter of the current route (the router always sets the declared ones). */
export function param(ctx: Context, name: string): string {
  return (ctx.params as Record<string, string | undefined>)[name] ?? "";
}

// ---------------------------------------------------------------------------
// Request bodies: unknown fields, missing fields and wrong types are 400.
// ---------------------------------------------------------------------------

/** Reads a JSON object body and refuses any field outside `allowed`. */
export async function readBody(ctx: Context, allowed: readonly string[]): Promise<Body> {
  const body = await readJsonObject(ctx);
  onlyFields(body, allowed);
  return body;
}

/**
 * For operations without a body: none, or an empty JSON object. Anything else is
 * refused so a client never believes a field it sent had an effect.
 */
export async function readNoBody(ctx: Context): Promise<void> {
  const length = ctx.get("content-length");
  const chunked = ctx.get("transfer-encoding");
  if ((length === "" || length === "0") && !chunked) return;
  await readBody(ctx, []);
}
