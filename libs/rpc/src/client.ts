import http from "node:http";
import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { REQUEST_ID_HEADER, currentContext } from "./context.js";
import { connectUnaryTransport, UNREACHABLE } from "./connect-unary-client.js";

export interface ServiceClientOptions {
  /** e.g. http://127.0.0.1:50053 */
  baseUrl: string;
  serviceToken: string;
  /** Deadline for calls that do not set their own. */
  timeoutMs?: number;
  /**
   * Wire protocol. "connect" (binary, HTTP/1.1 keep-alive) measured fastest here
   * for one call per request; "grpc" uses one HTTP/2 session.
   */
  protocol?: "connect" | "grpc";
  /** Upper bound on pooled connections to the service. */
  maxSockets?: number;
  /**
   * How long a pooled connection may sit idle before the client closes it
   * (default 30 s): well under the services' keep-alive of 65 s, so a call never
   * goes out on a connection the service is closing at that moment.
   */
  idleSocketMs?: number;
  /**
   * Run around every call (unary or streaming, either protocol) after the
   * service credential and the request id are set, the first outermost: for
   * metrics, tracing, retries.
   */
  interceptors?: Interceptor[];
}

/**
 * Sets the caller's service credential, `authorization: Bearer <token>`, on
 * every call, replacing any `authorization` header a caller passed.
 */
export function serviceCredentialInterceptor(serviceToken: string): Interceptor {
  const authorization = `Bearer ${serviceToken}`;
  return (next) => (req) => {
    req.header.set("authorization", authorization);
    return next(req);
  };
}

/** Sets `x-request-id` to the current request context's id (context.ts) on every call made inside one. */
export function requestIdInterceptor(): Interceptor {
  return (next) => (req) => {
    const requestId = currentContext()?.requestId;
    if (requestId) req.header.set(REQUEST_ID_HEADER, requestId);
    return next(req);
  };
}

/** The interceptors of every internal call: credential and request id first, then the caller's own. */
function serviceInterceptors(options: ServiceClientOptions): Interceptor[] {
  return [serviceCredentialInterceptor(options.serviceToken), requestIdInterceptor(), ...(options.interceptors ?? [])];
}

/**
 * connect-node reports a connection lost under a call as Internal, which callers
 * would pass on as a 500; like a refused connection (Unavailable) it means the
 * service is unavailable, so such calls fail with Unavailable (503, retry).
 * Errors the service itself answered are left as they are.
 */
function connectionLossIsUnavailable(transport: Transport): Transport {
  const recode = (error: unknown): never => {
    if (error instanceof ConnectError && error.code === Code.Internal) {
      for (let cause = error.cause; cause instanceof Error; cause = cause.cause === cause ? undefined : cause.cause) {
        const code = (cause as NodeJS.ErrnoException).code;
        if (code && UNREACHABLE.has(code)) throw new ConnectError(error.rawMessage, Code.Unavailable, error.metadata, undefined, error);
      }
    }
    throw error;
  };
  return {
    unary: (...args) => transport.unary(...args).catch(recode),
    stream: (...args) => transport.stream(...args).catch(recode),
  };
}

/** Creates a transport to one internal service with auth, request ids and deadlines. */
export function createServiceTransport(options: ServiceClientOptions): Transport {
  return connectionLossIsUnavailable(rawServiceTransport(options));
}

function rawServiceTransport(options: ServiceClientOptions): Transport {
  const common = {
    baseUrl: options.baseUrl,
    interceptors: serviceInterceptors(options),
    defaultTimeoutMs: options.timeoutMs ?? 5_000,
    useBinaryFormat: true,
    // Internal calls stay on the platform's own network, where gzip would only
    // cost CPU at both ends: a coalesced batch's answer passes 1 KiB, the size
    // from which the server compresses whatever the client accepts.
    acceptCompression: [],
  };
  if (options.protocol === "grpc") {
    return createGrpcTransport(common);
  }
  // The agent's `timeout` closes a connection idle in its pool; on one in use it only signals (the call has its own deadline).
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 128, timeout: options.idleSocketMs ?? 30_000 });
  const streaming = createConnectTransport({ ...common, httpVersion: "1.1", nodeOptions: { agent } });
  // Unary calls (every call the platform makes) go through the lighter client, with the same interceptors.
  return connectUnaryTransport({ baseUrl: options.baseUrl, defaultTimeoutMs: common.defaultTimeoutMs, agent, interceptors: common.interceptors }, streaming);
}

/** Creates a typed client for `service` (see createServiceTransport). */
export function createServiceClient<T extends DescService>(service: T, options: ServiceClientOptions): Client<T> {
  return createClient(service, createServiceTransport(options));
}
