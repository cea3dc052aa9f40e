import type { Context } from "koa";
import { ApiError, badRequest } from "./api-error.js";

export const MAX_BODY_BYTES = 64 * 1024;

const tooLarge = () => new ApiError(413, "PAYLOAD_TOO_LARGE", `request body must be at most ${MAX_BODY_BYTES} bytes`);

/**
 * Reads a JSON object body: 415 unless Content-Type is application/json, 413 over
 * 64 KiB (by header or by counting), 400 when it does not parse or is not an object.
 */
export async function readJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  const type = (ctx.get("content-type") || "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") {
    throw new ApiError(415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json");
  }
  const declared = Number(ctx.get("content-length") || "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Past the limit the rest is read and dropped, not left: leaving the loop
    // early destroys the request, and the keep-alive connection is then neither
    // read nor closed, so the client's next request on it hangs (and answering
    // with Connection: close while the client still uploads makes it see EPIPE
    // instead of the 413). The server's requestTimeout bounds the draining.
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) throw tooLarge();
  const text = Buffer.concat(chunks).toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("MALFORMED_JSON", "request body is not valid JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw badRequest("VALIDATION_ERROR", "request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}
