import http from "node:http";
import { create, fromBinary, isMessage, toBinary, type DescMessage, type DescMethodUnary, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  type ContextValues,
  type Interceptor,
  type StreamResponse,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import { codeFromHttpStatus, errorFromJsonBytes } from "@connectrpc/connect/protocol-connect";
import { CallHeaders } from "./call-headers.js";

/**
 * Node's codes for a service that cannot be reached or dropped the connection
 * under a call (EPIPE: a request written to a connection it had just closed):
 * such a call fails with Unavailable (503, retry), not Internal.
 */
export const UNREACHABLE: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ECONNABORTED",
  "ENETDOWN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "ENOTFOUND",
  "EADDRNOTAVAIL",
  "ERR_STREAM_PREMATURE_CLOSE",
]);

/** Headers that frame the request: set by the client, never taken from a caller or an interceptor. */
const FRAMING_HEADERS = new Set(["content-length", "transfer-encoding", "host", "connection", "content-encoding"]);

/** Most bytes of an answer read before the call fails (a unary answer of ours is a few KiB). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

const CONTENT_TYPE = "application/proto";
const PROTOCOL_VERSION = "1";

export interface ConnectUnaryOptions {
  /** e.g. http://127.0.0.1:50053 */
  baseUrl: string;
  /** Deadline of a call that sets none. */
  defaultTimeoutMs: number;
  agent: http.Agent;
  /**
   * Run around every unary call as in connect-es: the first is the outermost.
   * They see and may change the request's headers (the caller's, then
   * `content-type`, `connect-protocol-version` and `connect-timeout-ms`), see
   * its message, the answer (headers, trailers, message) or the ConnectError,
   * and may call `next` again to retry.
   */
  interceptors?: Interceptor[];
}

/**
 * The unary half of a Connect-protocol client (binary, HTTP/1.1), for the
 * platform's own calls. connect-node's client sends a unary request in three
 * writes — the headers first (`flushHeaders`), then the body as a chunk, then
 * the chunked encoding's end — and builds abort signals it listens to and
 * aborts, and async iterables around each call; measured here a call cost
 * ~200–300 µs of CPU on the client. This one sends headers and body in one
 * write with a content length and reads the answer into one buffer. What goes
 * over the wire is the Connect protocol as its specification has it
 * (connect-node's own client speaks the same): `POST /<service>/<method>`,
 * `application/proto`, `connect-timeout-ms`; errors are read from their JSON
 * body as connect-node reads them.
 *
 * Interceptors run as in connect-es's transports: each call builds a
 * `UnaryRequest` and passes it through them to the request on the wire. Its
 * `header`, the caller's headers and the protocol's, is a `CallHeaders`: the
 * Fetch `Headers` interface without undici's cost per call. Its `signal` is
 * made only when an interceptor reads it (~6 µs on Node 20). The
 * call's deadline (and the caller's signal) span the whole call, retries
 * included. `req.signal` aborts, with the call's ConnectError as reason, when
 * the deadline passes or the caller's signal aborts; unlike connect's it is not
 * also aborted when the call ends (aborting a signal costs ~10 µs on Node 20).
 * An interceptor may pass `next` a request with a signal of its own (a
 * per-attempt limit, say); that one aborts its attempt too.
 *
 * A call fails with Unavailable when the service cannot be reached (refused,
 * unknown name) or drops the connection under it, DeadlineExceeded when its
 * deadline passes (the request is then abandoned), Canceled when its signal
 * aborts, and otherwise with the service's own error. As in connect, a call's
 * `timeoutMs` of zero or less sets no deadline. A caller's headers travel, but
 * never replace the protocol's (`content-type`, `connect-protocol-version`,
 * `connect-timeout-ms`) or the framing ones (`content-length`, …); an
 * interceptor may change `connect-timeout-ms`, not the others. The service
 * credential and the request id are set by interceptors (see client.ts).
 * Streaming calls go to `streaming`.
 */
export function connectUnaryTransport(options: ConnectUnaryOptions, streaming: Transport): Transport {
  const target = targetOf(options.baseUrl);
  return {
    unary: (method, signal, timeoutMs, header, input, contextValues) => unaryCall(options, target, method, signal, timeoutMs, header, input, contextValues),
    stream: (...args) => streaming.stream(...args),
  };
}

/** Where a request goes: the parts of its URL Node's `http.request` takes. */
interface Target {
  /** The base URL without a trailing slash, as connect's createMethodUrl makes a method's URL of it. */
  base: string;
  hostname: string;
  port: string;
  /** The base URL's path, without its trailing slash. */
  prefix: string;
}

function targetOf(url: string): Target {
  const parsed = httpUrl(url);
  return {
    base: url.replace(/\/?$/, ""),
    hostname: parsed.hostname.replace(/^\[(.*)\]$/, "$1"), // an IPv6 literal without its brackets
    port: parsed.port,
    prefix: parsed.pathname.replace(/\/+$/, ""),
  };
}

/** Where a request whose URL an interceptor changed goes. */
function requestTarget(url: string): Target & { path: string } {
  const parsed = httpUrl(url);
  return { ...targetOf(url), path: parsed.pathname + parsed.search };
}

function httpUrl(url: string): URL {
  const parsed = new URL(url);
  if (parsed.protocol !== "http:") throw new Error(`connectUnaryTransport speaks plain HTTP, not ${parsed.protocol}`);
  return parsed;
}

/**
 * What spans one call, over all the requests its interceptors send: the
 * deadline, the caller's signal, and the signal the interceptors see. Requests
 * in flight are told of an abort by a plain callback: listening on an
 * AbortSignal costs ~9 µs per call on Node 20.
 */
class CallScope {
  /** The signal interceptors see, made when one first asks for it: making an AbortSignal costs ~6 µs on Node 20. */
  private controller: AbortController | undefined;
  /** Why the call was aborted (deadline or caller), once it was. */
  reason: ConnectError | undefined;
  private readonly inFlight = new Set<(reason: ConnectError) => void>();
  private timer: NodeJS.Timeout | undefined;
  private readonly onCallerAbort: (() => void) | undefined;

  constructor(
    deadlineMs: number,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    if (deadlineMs > 0) {
      this.timer = setTimeout(() => this.abort(new ConnectError("the operation timed out", Code.DeadlineExceeded)), deadlineMs);
    }
    if (callerSignal) {
      const onCallerAbort = () => this.abort(ConnectError.from(callerSignal.reason, Code.Canceled));
      if (callerSignal.aborted) onCallerAbort();
      else callerSignal.addEventListener("abort", onCallerAbort);
      this.onCallerAbort = onCallerAbort;
    }
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Whether `signal` is this call's own signal (without making it). */
  owns(signal: AbortSignal): boolean {
    return this.controller !== undefined && this.controller.signal === signal;
  }

  abort(reason: ConnectError): void {
    if (this.reason) return;
    this.reason = reason;
    this.end();
    for (const stop of this.inFlight) stop(reason);
    this.controller?.abort(reason);
  }

  /** Calls `stop` if the call is aborted before the returned function is called. */
  watch(stop: (reason: ConnectError) => void): () => void {
    this.inFlight.add(stop);
    return () => this.inFlight.delete(stop);
  }

  succeeded<T>(response: T): T {
    this.end();
    return response;
  }

  failed(error: unknown): never {
    this.end();
    // As connect's runUnaryCall: a passed deadline wins over what the interceptors made of it.
    throw this.reason?.code === Code.DeadlineExceeded ? this.reason : ConnectError.from(error);
  }

  end(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.onCallerAbort) this.callerSignal?.removeEventListener("abort", this.onCallerAbort);
  }
}

function unaryCall<I extends DescMessage, O extends DescMessage>(
  options: ConnectUnaryOptions,
  target: Target,
  method: DescMethodUnary<I, O>,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  header: ConstructorParameters<typeof Headers>[0] | undefined,
  input: MessageInitShape<I>,
  contextValues: ContextValues | undefined,
): Promise<UnaryResponse<I, O>> {
  // As in connect: a call's own timeoutMs wins, and one of zero or less means no deadline.
  const deadlineMs = timeoutMs ?? options.defaultTimeoutMs;
  let message: MessageShape<I>;
  let headers: Headers;
  try {
    message = isMessage(input, method.input) ? input : create(method.input, input);
    // As connect's requestHeader: the caller's headers, then the protocol's over them.
    headers = new CallHeaders(header);
    headers.set("content-type", CONTENT_TYPE);
    headers.set("connect-protocol-version", PROTOCOL_VERSION);
    if (deadlineMs > 0) headers.set("connect-timeout-ms", String(Math.ceil(deadlineMs)));
    else headers.delete("connect-timeout-ms");
  } catch (error) {
    return Promise.reject(ConnectError.from(error, Code.Internal));
  }
  const scope = new CallScope(deadlineMs, signal);
  const req: UnaryRequest<I, O> = {
    stream: false,
    service: method.parent,
    method,
    requestMethod: "POST",
    url: `${target.base}/${method.parent.typeName}/${method.name}`,
    header: headers,
    contextValues: contextValues ?? createContextValues(),
    message,
    get signal() {
      return scope.signal;
    },
  };
  // (Closures made per call are passed inline: tsx names a closure bound to a variable, at a cost per call.)
  let result: Promise<UnaryResponse | StreamResponse>;
  try {
    const call = applyInterceptors((sent) => post(options, target, scope, req, sent as UnaryRequest<I, O>), options.interceptors);
    result = call(req);
  } catch (error) {
    result = Promise.reject(error);
  }
  return result.then(
    (response) => scope.succeeded(response as UnaryResponse<I, O>),
    (error: unknown) => scope.failed(error),
  );
}

/** connect's `applyInterceptors` (not exported by @connectrpc/connect): the first interceptor is the outermost. */
function applyInterceptors(next: UnaryFn, interceptors: Interceptor[] | undefined): UnaryFn {
  if (!interceptors) return next;
  for (let i = interceptors.length - 1; i >= 0; i--) next = interceptors[i]!(next);
  return next;
}

type UnaryFn = Parameters<Interceptor>[0];

/** Sends one request of a call: what the innermost interceptor's `next` does. */
function post<I extends DescMessage, O extends DescMessage>(
  options: ConnectUnaryOptions,
  baseTarget: Target,
  scope: CallScope,
  original: UnaryRequest<I, O>,
  req: UnaryRequest<I, O>,
): Promise<UnaryResponse<I, O>> {
  return new Promise<UnaryResponse<I, O>>((resolve, reject) => {
    // An interceptor may have passed on a copy of the request with a signal of its own.
    const ownSignal = req === original || scope.owns(req.signal) ? undefined : req.signal;
    const aborted = scope.reason ?? (ownSignal?.aborted ? ConnectError.from(ownSignal.reason, Code.Canceled) : undefined);
    if (aborted) {
      reject(aborted);
      return;
    }
    let body: Uint8Array;
    let target: Target & { path: string };
    try {
      body = toBinary(req.method.input, req.message);
      target =
        req.url === original.url
          ? { ...baseTarget, path: `${baseTarget.prefix}/${req.method.parent.typeName}/${req.method.name}` }
          : requestTarget(req.url); // an interceptor sent the call elsewhere
    } catch (error) {
      reject(ConnectError.from(error, Code.Internal));
      return;
    }
    // The request's headers (the caller's, the protocol's, the interceptors'), then the framing's over them.
    const headers: Record<string, string> = {};
    req.header.forEach((value, key) => {
      if (!FRAMING_HEADERS.has(key)) headers[key] = value;
    });
    headers["content-type"] = CONTENT_TYPE;
    headers["connect-protocol-version"] = PROTOCOL_VERSION;
    headers["content-length"] = String(body.byteLength);

    let request: http.ClientRequest;
    try {
      request = http.request({ agent: options.agent, hostname: target.hostname, port: target.port, path: target.path, method: "POST", headers });
    } catch (error) {
      // e.g. a header value Node refuses: nothing was sent.
      reject(ConnectError.from(error, Code.Internal));
      return;
    }

    let settled = false;
    const finish = (error: ConnectError | undefined, response?: UnaryResponse<I, O>) => {
      if (settled) return;
      settled = true;
      unwatch();
      if (onOwnAbort) ownSignal?.removeEventListener("abort", onOwnAbort);
      if (error) {
        request.destroy();
        reject(error);
      } else {
        resolve(response!);
      }
    };
    const unwatch = scope.watch((reason) => finish(reason));
    let onOwnAbort: (() => void) | undefined;
    if (ownSignal) {
      onOwnAbort = () => finish(ConnectError.from(ownSignal.reason, Code.Canceled));
      ownSignal.addEventListener("abort", onOwnAbort);
    }

    request.on("error", (error: NodeJS.ErrnoException) => {
      const code = error.code && UNREACHABLE.has(error.code) ? Code.Unavailable : Code.Internal;
      finish(new ConnectError(error.message, code, undefined, undefined, error));
    });
    request.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) finish(new ConnectError(`answer larger than ${MAX_ANSWER_BYTES} bytes`, Code.ResourceExhausted));
        else chunks.push(chunk);
      });
      res.on("error", (error: NodeJS.ErrnoException) => {
        finish(new ConnectError(error.message, Code.Unavailable, undefined, undefined, error));
      });
      res.on("aborted", () => finish(new ConnectError("the service closed the connection during its answer", Code.Unavailable)));
      res.on("end", () => {
        if (settled) return;
        const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        const status = res.statusCode ?? 0;
        const contentType = res.headers["content-type"] ?? "";
        const encoding = res.headers["content-encoding"];
        if (encoding !== undefined && encoding.toLowerCase() !== "identity") {
          // None was asked for; a body compressed on the way would be misread.
          finish(new ConnectError(`unsupported response encoding "${encoding}"`, Code.Internal));
          return;
        }
        if (status === 200 && /^application\/proto(;|$)/.test(contentType)) {
          let message;
          try {
            message = fromBinary(req.method.output, bytes);
          } catch (error) {
            finish(ConnectError.from(error, Code.Internal));
            return;
          }
          finish(undefined, answer(req.method, res, message));
          return;
        }
        finish(errorOf(status, contentType, bytes, res));
      });
    });
    request.end(body);
  });
}

/** The answer, with its headers and trailers (`trailer-…` headers in Connect unary) built only if asked for. */
function answer<I extends DescMessage, O extends DescMessage>(
  method: DescMethodUnary<I, O>,
  res: http.IncomingMessage,
  message: UnaryResponse<I, O>["message"],
): UnaryResponse<I, O> {
  let split: { header: Headers; trailer: Headers } | undefined;
  const parts = () => (split ??= splitTrailers(res));
  return {
    stream: false,
    service: method.parent,
    method,
    message,
    get header() {
      return parts().header;
    },
    get trailer() {
      return parts().trailer;
    },
  };
}

function splitTrailers(res: http.IncomingMessage): { header: Headers; trailer: Headers } {
  const header = new Headers();
  const trailer = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i]!.toLowerCase();
    const value = res.rawHeaders[i + 1]!;
    if (name.startsWith("trailer-")) trailer.append(name.slice("trailer-".length), value);
    else header.append(name, value);
  }
  return { header, trailer };
}

/** A failed call's error, from its JSON body when it has one (as connect-node reads it). */
function errorOf(status: number, contentType: string, bytes: Uint8Array, res: http.IncomingMessage): ConnectError {
  const connectType = /^application\/(connect\+)?(proto|json)(;|$)/.test(contentType);
  if (status === 200) {
    // As connect-node: not a Connect content type at all is Unknown, the wrong one Internal.
    return new ConnectError(`unsupported content type ${contentType || "(none)"}`, connectType ? Code.Internal : Code.Unknown);
  }
  const { header, trailer } = splitTrailers(res);
  trailer.forEach((value, key) => header.append(key, value));
  const fallback = new ConnectError(`HTTP ${status}`, codeFromHttpStatus(status), header);
  if (!/^application\/json(;|$)/.test(contentType)) return fallback;
  try {
    return errorFromJsonBytes(bytes, header, fallback);
  } catch {
    return fallback;
  }
}
