import type { Context } from "koa";
import { ApiError, bodyReader, declaresBody, textProblem, utf8Text, validationError } from "@payin/http";

/** A form is small: a few short fields. */
export const MAX_FORM_BYTES = 16 * 1024;

const FORM_TYPE = "application/x-www-form-urlencoded";

const readFormBytes = bodyReader({ types: [FORM_TYPE], limit: MAX_FORM_BYTES, tooLarge: () => tooLarge() });

/**
 * Reads an `application/x-www-form-urlencoded` body (what an HTML form posts):
 * 415 for another type, 413 over 16 KiB, 400 when it is not UTF-8 or a value
 * cannot be stored as text. An empty or absent body is an empty form. A field
 * given twice is there twice (URLSearchParams); the routes read its first value.
 */
export async function readForm(ctx: Context): Promise<URLSearchParams> {
  const bytes = await readFormBytes(ctx);
  if (bytes === undefined) {
    // Not a form: refused unless there is nothing to read.
    if (declaresBody(ctx.req) && ctx.get("content-length") !== "0") {
      throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "The form must be sent as application/x-www-form-urlencoded.");
    }
    return new URLSearchParams();
  }
  const text = utf8Text(bytes);
  if (text === null) throw validationError("The form is not valid UTF-8 text.");
  const form = new URLSearchParams(text);
  for (const [name, value] of form) {
    const problem = textProblem(value) ?? textProblem(name);
    if (problem) throw validationError(`The field ${name.slice(0, 40)} ${problem}.`);
  }
  return form;
}

const tooLarge = () => new ApiError("PAYLOAD_TOO_LARGE", `The form may be at most ${MAX_FORM_BYTES} bytes.`);

/**
 * 403 when a state-changing request comes from another site: its `Origin`
 * (or, without one, `Sec-Fetch-Site`) must be this gateway's own. Browsers
 * send one of them on every form POST; a request with neither (curl, a
 * script) is not a browser's cross-site request and passes.
 */
export function requireSameOrigin(ctx: Context, publicUrl: string): void {
  const origin = ctx.get("origin");
  // Under `Referrer-Policy: no-referrer` a browser sends `Origin: null` even on
  // a form of this very page: that says nothing, and Sec-Fetch-Site decides.
  if (origin && origin !== "null") {
    if (origin !== new URL(publicUrl).origin && origin !== `${ctx.protocol}://${ctx.host}`) throw crossSite();
    return;
  }
  const site = ctx.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") throw crossSite();
}

const crossSite = () => new ApiError("FORBIDDEN", "This form can only be sent from the checkout's own pages.");
