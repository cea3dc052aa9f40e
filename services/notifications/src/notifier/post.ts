import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { ResponseHeaders } from "../domain/retry-schedule.js";

/** How much of a receiver's answer is kept for the delivery log. */
export const RESPONSE_EXCERPT_BYTES = 1_024;

export interface PostResult {
  /** The answer's status, when one came within the timeout. */
  statusCode?: number;
  headers?: ResponseHeaders;
  /** The first RESPONSE_EXCERPT_BYTES of the answer's body, as text. */
  excerpt: string;
  /** Why there was no answer (timeout, refused connection, TLS failure, …). */
  error?: string;
  durationMs: number;
  /** The exchange was cut by `signal`: no judgement on the receiver. */
  aborted?: boolean;
}

export interface PostOptions {
  /** The only addresses the connection may go to (checked by checkWebhookUrl); the URL's host still names the server (Host, SNI). */
  addresses: readonly string[];
  headers: Record<string, string>;
  body: string;
  /** The whole exchange, connection to the excerpt read. */
  timeoutMs: number;
  /** The limit errors name (default timeoutMs): the caller's whole budget, of which timeoutMs is what is left. */
  limitMs?: number;
  /** Aborts the exchange (the notifier is stopping): the result is then `aborted`, not an answer. */
  signal?: AbortSignal;
  /** Keep-alive agents (one each for http and https). */
  agents?: { http: http.Agent; https: https.Agent };
}

/** A `lookup` answering only the checked addresses, whatever the name: the connection cannot go elsewhere. */
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, entries);
    else callback(null, entries[0]!.address, entries[0]!.family);
  }) as unknown as LookupFunction;
}

function describeError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * POSTs one delivery and reads the start of the answer: never follows a
 * redirect, connects only to `addresses`, and gives up after `timeoutMs` for
 * the whole exchange. Never throws: a failure is `error`. The answer's body
 * past the excerpt is not read (the connection is then closed).
 */
export function postWebhook(url: URL, options: PostOptions): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const client = url.protocol === "https:" ? https : http;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const body = Buffer.from(options.body, "utf8");
    const request = client.request(url, {
      method: "POST",
      headers: { ...options.headers, "content-length": String(body.length), "user-agent": "payin-webhooks/1" },
      lookup: pinnedLookup(options.addresses),
      agent: options.agents ? (url.protocol === "https:" ? options.agents.https : options.agents.http) : undefined,
    });
    const limit = options.limitMs ?? options.timeoutMs;
    let cutShort: ((why: string) => void) | undefined;
    const timer = setTimeout(() => {
      // An answer whose status came in time is that status, its body read so far the excerpt.
      if (cutShort) cutShort(`the answer's body did not end within ${limit} ms`);
      else request.destroy(Object.assign(new Error(`no answer within ${limit} ms`), { code: "ETIMEDOUT" }));
    }, options.timeoutMs);
    const onAbort = () => {
      finish({ error: "the notifier stopped during the attempt", excerpt: "", aborted: true });
      request.destroy();
    };
    if (options.signal?.aborted) queueMicrotask(onAbort);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    request.on("close", () => options.signal?.removeEventListener("abort", onAbort));
    request.on("error", (error) => finish({ error: describeError(error), excerpt: "" }));
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (error?: string) => {
        const excerpt = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString("utf8").replaceAll("\u0000", "");
        finish({ statusCode: response.statusCode, headers: response.headers, excerpt, ...(error ? { error } : {}) });
      };
      cutShort = (why) => {
        done(why);
        response.destroy();
      };
      response.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_EXCERPT_BYTES) {
          done();
          response.destroy();
        }
      });
      response.on("end", () => done());
      // The status came; a body cut short (or too slow) still leaves the status as the answer.
      response.on("error", () => done());
      response.on("close", () => done());
    });
    request.end(body);
  });
}
