/** Shared pieces of the /api/v1/admin routes: strict body checks. */
import type { Context } from "koa";
import { onlyFields, readJsonObject, type Body } from "@payin/http";

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
