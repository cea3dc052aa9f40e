import type { Context } from "koa";
import { ApiError, validationError } from "./errors.js";
import { textProblem } from "./text.js";

export const MAX_BODY_BYTES = 64 * 1024;

const tooLarge = () => new ApiError("PAYLOAD_TOO_LARGE", `request body must be at most ${MAX_BODY_BYTES} bytes`);

const unsupported = (message: string) => new ApiError("UNSUPPORTED_MEDIA_TYPE", message);

/** Refuses a charset other than UTF-8 (JSON's only encoding, RFC 8259) and any content coding. */
function checkMediaType(ctx: Context): void {
  const [type, ...parameters] = (ctx.get("content-type") || "").split(";");
  if (type!.trim().toLowerCase() !== "application/json") throw unsupported("Content-Type must be application/json");
  for (const parameter of parameters) {
    const [name, value = ""] = parameter.split("=");
    if (name!.trim().toLowerCase() !== "charset") continue;
    const charset = value.trim().replace(/^"(.*)"$/, "$1").toLowerCase();
    if (charset !== "utf-8" && charset !== "utf8") throw unsupported("a JSON body must be UTF-8: send charset=utf-8 or no charset");
  }
  const coding = ctx.get("content-encoding").trim().toLowerCase();
  if (coding && coding !== "identity") throw unsupported("Content-Encoding is not supported: send the body uncompressed");
}

/**
 * 400 unless every string of the body, keys included, can be stored as text
 * (textProblem). Walks with its own stack: JSON.parse takes nesting deeper than
 * a recursive walk could follow.
 */
function checkText(value: unknown): void {
  const stack: { value: unknown; path: string }[] = [{ value, path: "" }];
  while (stack.length > 0) {
    const { value: item, path } = stack.pop()!;
    if (typeof item === "string") {
      const problem = textProblem(item);
      if (problem) throw validationError(`${shortened(path) || "the body"} ${problem}`);
    } else if (Array.isArray(item)) {
      item.forEach((element, i) => stack.push({ value: element, path: `${path}[${i}]` }));
    } else if (item !== null && typeof item === "object") {
      for (const [key, element] of Object.entries(item)) {
        const problem = textProblem(key);
        if (problem) throw validationError(`a field name ${problem}`);
        stack.push({ value: element, path: path ? `${path}.${key}` : key });
      }
    }
  }
}

/** A field path as a message shows it: at most 100 characters (nesting can make it long). */
function shortened(path: string): string {
  return path.length > 100 ? `${path.slice(0, 99)}…` : path;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Reads a JSON object body: 415 unless Content-Type is application/json (UTF-8,
 * no content coding), 413 over 64 KiB (by header or by counting), 400 when it is
 * not UTF-8, does not parse, is not an object, or holds a string that cannot be
 * stored as text.
 */
export async function readJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  checkMediaType(ctx);
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
  let text: string;
  try {
    text = utf8.decode(Buffer.concat(chunks));
  } catch {
    throw new ApiError("MALFORMED_JSON", "request body is not valid UTF-8");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("MALFORMED_JSON", "request body is not valid JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw validationError("request body must be a JSON object");
  }
  checkText(value);
  return value as Record<string, unknown>;
}
