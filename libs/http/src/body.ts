import type { IncomingMessage } from "node:http";
import type { Context } from "koa";
import { HttpMethodEnum, koaBody } from "koa-body";
import { duplicateKey } from "./duplicate-keys.js";
import { ApiError, validationError } from "./errors.js";
import { textProblem } from "./text.js";

export const MAX_BODY_BYTES = 64 * 1024;

/** What a body reader reads, and how it refuses a body over its limit. */
export interface BodyReaderOptions {
  /** The media types read (koa-body's `textTypes`); a body of another type is left unread. */
  types: readonly string[];
  /** The most bytes read. */
  limit: number;
  /** The error a body over the limit is refused with. */
  tooLarge: () => Error;
}

/**
 * A body reader: koa-body reads the bytes of a body of one of `types`, at most
 * `limit` of them, and the reader answers them as they came (undefined when
 * there is no body of those types). The gateways call it from the routes that
 * take a body, after authentication, so nothing else reads one.
 *
 * koa-body reads in its text mode with the `binary` encoding, one character per
 * byte, and the caller decodes strictly: its own UTF-8 decoding would turn bytes
 * that are not UTF-8 into U+FFFD silently, where the contract refuses them; and
 * the JSON reader needs the text before parsing (duplicateKey). The parsers are
 * the gateways' own (JSON.parse once; URLSearchParams for forms).
 */
export function bodyReader(options: BodyReaderOptions): (ctx: Context) => Promise<Buffer | undefined> {
  const read = koaBody({
    json: false,
    urlencoded: false,
    multipart: false,
    text: true,
    textTypes: [...options.types],
    textLimit: options.limit,
    encoding: "binary",
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    patchNode: false,
    patchKoa: true,
  });
  const done = () => Promise.resolve();
  return async (ctx) => {
    // Refused unread, as koa-body would: Node discards the body after the answer.
    if (Number(ctx.get("content-length") || "0") > options.limit) throw options.tooLarge();
    try {
      await read(ctx, done);
    } catch (error) {
      if ((error as { status?: unknown }).status !== 413) throw error;
      // Past the limit the rest is read and dropped, not left: koa-body leaves
      // the request paused half-read, and the keep-alive connection is then
      // neither read nor closed, so the client's next request on it hangs (and
      // answering with Connection: close while the client still uploads makes
      // it see EPIPE instead of the 413). The server's requestTimeout bounds the
      // draining.
      await drained(ctx.req);
      throw options.tooLarge();
    }
    const text: unknown = ctx.request.body;
    return typeof text === "string" ? Buffer.from(text, "binary") : undefined;
  };
}

/** Resolves once the rest of the request is read and dropped (or the request is gone). */
function drained(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    req.once("end", resolve);
    req.once("close", resolve);
    req.resume();
  });
}

/** True when the request says it carries a body (an empty one included). */
export function declaresBody(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] ?? "") !== "";
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** `bytes` as UTF-8 text, or null when they are not UTF-8. */
export function utf8Text(bytes: Buffer): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

const tooLarge = () => new ApiError("PAYLOAD_TOO_LARGE", `request body must be at most ${MAX_BODY_BYTES} bytes`);

const unsupported = (message: string) => new ApiError("UNSUPPORTED_MEDIA_TYPE", message);

const readJsonBytes = bodyReader({ types: ["application/json"], limit: MAX_BODY_BYTES, tooLarge });

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

/**
 * Reads a JSON object body: 415 unless Content-Type is application/json (UTF-8,
 * no content coding), 413 over 64 KiB (by header or by counting), 400
 * MALFORMED_JSON when it is not UTF-8, does not parse or gives a name twice in
 * one object (at any depth), 400 VALIDATION_ERROR when it is not an object or
 * holds a string that cannot be stored as text.
 */
export async function readJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  checkMediaType(ctx);
  const bytes = await readJsonBytes(ctx);
  // Left unread: koa-body could not make out the Content-Type (a parameter without a value, say).
  if (bytes === undefined && declaresBody(ctx.req)) throw unsupported("Content-Type must be application/json");
  const text = utf8Text(bytes ?? Buffer.alloc(0));
  if (text === null) throw new ApiError("MALFORMED_JSON", "request body is not valid UTF-8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("MALFORMED_JSON", "request body is not valid JSON");
  }
  const twice = duplicateKey(text);
  if (twice !== null) {
    throw new ApiError("MALFORMED_JSON", `request body gives the name ${JSON.stringify(shortened(twice))} twice in one object; send each name once`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw validationError("request body must be a JSON object");
  }
  checkText(value);
  return value as Record<string, unknown>;
}
