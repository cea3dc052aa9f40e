import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { Duplex } from "node:stream";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Logger } from "@payin/logging";
import { serviceTokenInterceptor } from "./auth.js";
import { REQUEST_ID_HEADER, requestIdFrom, runWithContext } from "./context.js";
import { HealthState } from "./health.js";

export interface RpcServerOptions {
  /** Process name for logs. */
  name: string;
  /** Fully qualified names of the services `routes` registers, for health checks. */
  services: readonly string[];
  /** Registers the service implementations. */
  routes: (router: ConnectRouter) => void;
  /** Shared secret every caller must present as `Bearer <token>`. */
  serviceToken: string;
  /** Interceptors that run inside authentication and request-id handling. */
  interceptors?: Interceptor[];
  host: string;
  port: number;
  logger: Logger;
  /** Upper bound on any call's deadline, and the deadline of calls that set none. */
  maxTimeoutMs?: number;
}

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

/**
 * Starts a Connect server that speaks gRPC, gRPC-Web and Connect on one port:
 * connections opening with the HTTP/2 preface go to a cleartext HTTP/2 server,
 * all others to an HTTP/1.1 server. Also serves grpc.health.v1.Health.
 */
export async function startRpcServer(options: RpcServerOptions): Promise<RunningRpcServer> {
  const health = new HealthState(options.services);
  const handler = connectNodeAdapter({
    routes: (router) => {
      options.routes(router);
      health.register(router);
    },
    interceptors: [requestIdInterceptor(), serviceTokenInterceptor(options.serviceToken), ...(options.interceptors ?? [])],
    maxTimeoutMs: options.maxTimeoutMs ?? 30_000,
  });
  const h1 = http.createServer({ keepAliveTimeout: 65_000 }, handler);
  const h2 = http2.createServer({}, handler);
  const sockets = new Set<net.Socket>();
  const front = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const isH2 = head.subarray(0, HTTP2_PREFACE.length).equals(HTTP2_PREFACE.subarray(0, Math.min(head.length, HTTP2_PREFACE.length)));
      if (isH2 && head.length < HTTP2_PREFACE.length) return; // need more bytes to decide
      socket.off("data", onData);
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
        h1.closeIdleConnections();
        setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, 2_000).unref();
      });
    },
  };
}
