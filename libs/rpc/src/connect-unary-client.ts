import http from "node:http";
import { create, fromBinary, isMessage, toBinary, type DescMessage, type DescMethodUnary, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport, type UnaryResponse } from "@connectrpc/connect";
import { codeFromHttpStatus, errorFromJsonBytes } from "@connectrpc/connect/protocol-connect";

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

/** Headers that frame the request: set by the client, never taken from a caller. */
const FRAMING_HEADERS = new Set(["content-length", "transfer-encoding", "host", "connection", "content-encoding"]);

/** Most bytes of an answer read before the call fails (a unary answer of ours is a few KiB). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export interface ConnectUnaryOptions {
  /** e.g. http://127.0.0.1:50053 */
  baseUrl: string;
  /** Sent on every call, e.g. `Bearer …`. */
  authorization: string;
  /** Deadline of a call that sets none. */
  defaultTimeoutMs: number;
  agent: http.Agent;
  /** Extra headers of the current call (the request id), read as the call starts. */
  callHeaders?: () => Record<string, string> | undefined;
}

/**
 * The unary half of a Connect-protocol client (binary, HTTP/1.1), for the
 * platform's own calls. connect-node's client sends a unary request in three
 * writes — the headers first (`flushHeaders`), then the body as a chunk, then
 * the chunked encoding's end — and builds Fetch `Headers`, abort signals and
 * async iterables around each call; measured here a call cost ~200–300 µs of
 * CPU on the client. This one sends headers and body in one write with a
 * content length and reads the answer into one buffer. What goes over the wire
 * is the Connect protocol as specified (https://connectrpc.com/docs/protocol):
 * `POST /<service>/<method>`, `application/proto`, `connect-timeout-ms`; errors
 * are read from their JSON body as connect-node reads them.
 *
 * A call fails with Unavailable when the service cannot be reached (refused,
 * unknown name) or drops the connection under it, DeadlineExceeded when its
 * deadline passes (the request is then abandoned), Canceled when its signal
 * aborts, and otherwise with the service's own error. As in connect, a call's
 * `timeoutMs` of zero or less sets no deadline. A caller's headers travel, but
 * never replace the protocol's, the content length or the service token.
 * Streaming calls go to `streaming`.
 */
export function connectUnaryTransport(options: ConnectUnaryOptions, streaming: Transport): Transport {
  const base = new URL(options.baseUrl);
  if (base.protocol !== "http:") throw new Error(`connectUnaryTransport speaks plain HTTP, not ${base.protocol}`);
  const prefix = base.pathname.replace(/\/+$/, "");
  return {
    unary: (method, signal, timeoutMs, header, input) => unaryCall(options, base, prefix, method, signal, timeoutMs, header, input),
    stream: (...args) => streaming.stream(...args),
  };
}

function unaryCall<I extends DescMessage, O extends DescMessage>(
  options: ConnectUnaryOptions,
  base: URL,
  prefix: string,
  method: DescMethodUnary<I, O>,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  header: ConstructorParameters<typeof Headers>[0] | undefined,
  input: MessageInitShape<I>,
): Promise<UnaryResponse<I, O>> {
  return new Promise<UnaryResponse<I, O>>((resolve, reject) => {
    if (signal?.aborted) {
      reject(ConnectError.from(signal.reason, Code.Canceled));
      return;
    }
    let body: Uint8Array;
    try {
      const message = isMessage(input, method.input) ? input : create(method.input, input);
      body = toBinary(method.input, message);
    } catch (error) {
      reject(ConnectError.from(error, Code.Internal));
      return;
    }
    // As in connect: a call's own timeoutMs wins, and one of zero or less means no deadline.
    const deadlineMs = timeoutMs ?? options.defaultTimeoutMs;
    const hasDeadline = deadlineMs > 0;
    // The caller's headers first; the protocol's and the service token cannot be overridden.
    const headers: Record<string, string> = {};
    if (header) {
      new Headers(header).forEach((value, key) => {
        if (!FRAMING_HEADERS.has(key)) headers[key] = value;
      });
    }
    Object.assign(headers, options.callHeaders?.(), {
      "content-type": "application/proto",
      "connect-protocol-version": "1",
      "content-length": String(body.byteLength),
      authorization: options.authorization,
    });
    if (hasDeadline) headers["connect-timeout-ms"] = String(Math.ceil(deadlineMs));

    let request: http.ClientRequest;
    try {
      request = http.request({
        agent: options.agent,
        hostname: base.hostname.replace(/^\[(.*)\]$/, "$1"), // an IPv6 literal without its brackets
        port: base.port,
        path: `${prefix}/${method.parent.typeName}/${method.name}`,
        method: "POST",
        headers,
      });
    } catch (error) {
      // e.g. a header value Node refuses: nothing was sent.
      reject(ConnectError.from(error, Code.Internal));
      return;
    }

    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (error: ConnectError | undefined, response?: UnaryResponse<I, O>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (error) {
        request.destroy();
        reject(error);
      } else {
        resolve(response!);
      }
    };
    const onAbort = () => finish(ConnectError.from(signal!.reason, Code.Canceled));
    if (hasDeadline) timer = setTimeout(() => finish(new ConnectError("the operation timed out", Code.DeadlineExceeded)), deadlineMs);
    signal?.addEventListener("abort", onAbort);

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
            message = fromBinary(method.output, bytes);
          } catch (error) {
            finish(ConnectError.from(error, Code.Internal));
            return;
          }
          finish(undefined, answer(method, res, message));
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
