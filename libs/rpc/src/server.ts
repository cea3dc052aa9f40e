import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { Duplex } from "node:stream";
import { Code, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Logger } from "@payin/logging";
import { CallerAuthenticator, callerInterceptor, checkCaller, type CallerDigests, type CallerPolicy } from "./auth.js";
import { REQUEST_ID_HEADER, requestIdFrom, runWithContext } from "./context.js";
import { HealthState } from "./health.js";

export interface RpcServerOptions {
  /** Process name for logs. */
  name: string;
  /** Fully qualified names of the services `routes` registers, for health checks. */
  services: readonly string[];
  /** Registers the service implementations. */
  routes: (router: ConnectRouter) => void;
  /** The digest of each recognised caller's credential (SERVICE_CALLER_DIGESTS). */
  callers: CallerDigests;
  /** Which RPCs each caller may call (grpc.health.v1.Health is open to all, probes included). */
  allow: CallerPolicy;
  /** Interceptors that run inside authentication and request-id handling. */
  interceptors?: Interceptor[];
  host: string;
  port: number;
  logger: Logger;
  /** Upper bound on any call's deadline, and the deadline of calls that set none. */
  maxTimeoutMs?: number;
  /** Connection and request-size limits; the defaults suit production. */
  limits?: Partial<RpcServerLimits>;
}

export interface RpcServerLimits {
  /** Largest request body accepted (default 4 MiB); a larger one is refused with ResourceExhausted. */
  maxBodyBytes: number;
  /**
   * How long a new connection may stay silent (default 5 s): one that sends
   * nothing is closed. An HTTP/1.1 request head must also arrive complete
   * within this time of its start, and an HTTP/2 connection must open its
   * first stream within it. A connection idle after a call is not affected
   * (HTTP/1.1 keep-alive lasts 65 s; clients close theirs after 30 s).
   */
  connectionIdleMs: number;
}

export const DEFAULT_RPC_SERVER_LIMITS: RpcServerLimits = {
  maxBodyBytes: 4 * 1024 * 1024,
  connectionIdleMs: 5_000,
};

export interface RunningRpcServer {
  readonly port: number;
  readonly health: HealthState;
  /** Stops accepting calls, lets in-flight calls finish, then resolves. */
  close(): Promise<void>;
}

/** Carries the caller's x-request-id (or a fresh one) through the handler. */
function requestIdInterceptor(): Interceptor {
  return (next) => (req) =>
    runWithContext({ requestId: requestIdFrom(req.header.get(REQUEST_ID_HEADER)) }, () => next(req));
}

/** A duplex over `socket` whose readable side starts with `head`. */
function replayingDuplex(socket: net.Socket, head: Buffer): Duplex {
  const duplex = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk, _encoding, callback) {
      socket.write(chunk, callback);
    },
    final(callback) {
      socket.end(callback);
    },
    destroy(error, callback) {
      socket.destroy(error ?? undefined);
      callback(error);
    },
  });
  duplex.push(head);
  socket.on("data", (chunk: Buffer) => {
    if (!duplex.push(chunk)) socket.pause();
  });
  socket.on("end", () => duplex.push(null));
  socket.on("close", () => duplex.destroy());
  return duplex;
}

const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0");

type Request = http.IncomingMessage | http2.Http2ServerRequest;
type Response = http.ServerResponse | http2.Http2ServerResponse;

/** Connect's names and HTTP statuses of the codes refused before a handler runs. */
const REFUSALS: Partial<Record<Code, { name: string; status: number }>> = {
  [Code.Unauthenticated]: { name: "unauthenticated", status: 401 },
  [Code.PermissionDenied]: { name: "permission_denied", status: 403 },
  [Code.ResourceExhausted]: { name: "resource_exhausted", status: 429 },
};

/**
 * Answers a call with an error in its protocol without reading its body:
 * gRPC and gRPC-Web get a trailers-only answer (HTTP 200, grpc-status), Connect
 * a JSON error with the code's HTTP status. The unread body is then dropped:
 * HTTP/1.1 closes the connection after the answer (reading the rest to keep it
 * would be reading the body after all), HTTP/2 resets the stream with
 * NO_ERROR once the answer is complete (RFC 9113 §8.1).
 */
function refuse(req: Request, res: Response, code: Code, message: string): void {
  const refusal = REFUSALS[code]!;
  const contentType = req.headers["content-type"] ?? "";
  const h2 = req.httpVersionMajor === 2;
  const headers: Record<string, string> = {};
  let status: number;
  let body = "";
  if (/^application\/grpc(-web)?([+;]|$)/.test(contentType)) {
    status = 200;
    headers["content-type"] = contentType.startsWith("application/grpc-web") ? "application/grpc-web+proto" : "application/grpc";
    headers["grpc-status"] = String(code);
    headers["grpc-message"] = encodeURIComponent(message);
  } else {
    status = refusal.status;
    body = JSON.stringify({ code: refusal.name, message });
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(body));
  }
  if (h2) {
    // On the stream itself: a trailers-only answer must be one HEADERS frame
    // ending the stream, which gRPC clients read as the call's status.
    const stream = (req as http2.Http2ServerRequest).stream;
    const reset = () => {
      if (!req.complete && !stream.destroyed) stream.close(http2.constants.NGHTTP2_NO_ERROR);
    };
    stream.once("finish", reset);
    stream.respond({ ":status": status, ...headers }, { endStream: body === "" });
    if (body !== "") stream.end(body);
    return;
  }
  headers.connection = "close";
  (res as http.ServerResponse).writeHead(status, headers);
  res.end(body);
}

/**
 * The request handler in front of Connect's: a call is authenticated and
 * authorised from its path and headers alone, and a body declared too large is
 * refused, before anything reads the body.
 */
function gate(
  handler: (req: Request, res: Response) => void,
  authenticator: CallerAuthenticator,
  policy: CallerPolicy,
  maxBodyBytes: number,
): (req: Request, res: Response) => void {
  return (req, res) => {
    const path = (req.url ?? "").split("?")[0]!;
    const check = checkCaller(authenticator, policy, path.slice(1), req.headers.authorization);
    if (!check.ok) {
      refuse(req, res, check.code, check.message);
      return;
    }
    const length = Number(req.headers["content-length"] ?? 0);
    if (length > maxBodyBytes) {
      refuse(req, res, Code.ResourceExhausted, `request body larger than ${maxBodyBytes} bytes`);
      return;
    }
    if (req.httpVersionMajor !== 2) {
      // A body without a length that Connect stopped reading at the limit would
      // otherwise be read to its end to keep the connection: close it instead.
      res.once("finish", () => {
        if (!req.complete) req.socket.destroy();
      });
    }
    handler(req, res);
  };
}

/**
 * Starts a Connect server that speaks gRPC, gRPC-Web and Connect on one port:
 * connections opening with the HTTP/2 preface go to a cleartext HTTP/2 server,
 * all others to an HTTP/1.1 server. Also serves grpc.health.v1.Health.
 */
export async function startRpcServer(options: RpcServerOptions): Promise<RunningRpcServer> {
  const health = new HealthState(options.services);
  const limits = { ...DEFAULT_RPC_SERVER_LIMITS, ...options.limits };
  const maxTimeoutMs = options.maxTimeoutMs ?? 30_000;
  const authenticator = new CallerAuthenticator(options.callers);
  const connectHandler = connectNodeAdapter({
    routes: (router) => {
      options.routes(router);
      health.register(router);
    },
    interceptors: [requestIdInterceptor(), callerInterceptor(authenticator, options.allow), ...(options.interceptors ?? [])],
    maxTimeoutMs,
    readMaxBytes: limits.maxBodyBytes,
  });
  const handler = gate(connectHandler, authenticator, options.allow, limits.maxBodyBytes);
  const h1 = http.createServer(
    {
      keepAliveTimeout: 65_000,
      // A request head must complete within the idle limit, a whole request
      // within the longest deadline; checked this often.
      headersTimeout: limits.connectionIdleMs,
      requestTimeout: Math.max(maxTimeoutMs, limits.connectionIdleMs),
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(limits.connectionIdleMs / 4))),
    },
    handler,
  );
  // h1 is handed connections rather than listening itself; Node starts tracking
  // connections (the head and request timeouts above, closeIdleConnections) on
  // 'listening', so it is told it is.
  h1.emit("listening");
  const h2 = http2.createServer({}, handler);
  // An HTTP/2 connection that opens no stream in time is closed; an idle one after its calls is not.
  h2.on("session", (session) => {
    const timer = setTimeout(() => session.destroy(), limits.connectionIdleMs);
    timer.unref();
    session.once("stream", () => clearTimeout(timer));
    session.once("close", () => clearTimeout(timer));
  });
  const sockets = new Set<net.Socket>();
  const front = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    // A connection that sends nothing is closed.
    socket.setTimeout(limits.connectionIdleMs, () => socket.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const isH2 = head.subarray(0, HTTP2_PREFACE.length).equals(HTTP2_PREFACE.subarray(0, Math.min(head.length, HTTP2_PREFACE.length)));
      if (isH2 && head.length < HTTP2_PREFACE.length) return; // need more bytes to decide
      socket.off("data", onData);
      socket.setTimeout(0);
      if (isH2) {
        // Node's HTTP/2 reads from the native handle and would miss bytes already
        // read, so it gets a JS duplex that replays them, then relays the socket.
        h2.emit("connection", replayingDuplex(socket, head));
      } else {
        socket.pause();
        socket.unshift(head);
        h1.emit("connection", socket);
        socket.resume();
      }
    };
    socket.on("data", onData);
    socket.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    front.once("error", reject);
    front.listen(options.port, options.host, () => resolve());
  });
  const address = front.address() as net.AddressInfo;
  options.logger.info({ port: address.port }, `${options.name} listening`);
  return {
    port: address.port,
    health,
    close: async () => {
      health.setServing(false);
      await new Promise<void>((resolve) => {
        front.close(() => resolve());
        // Closes h1's idle connections and stops its connection checks.
        h1.close(() => {});
        setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, 2_000).unref();
      });
    },
  };
}
