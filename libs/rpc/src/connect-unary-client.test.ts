import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Interceptor, type UnaryRequest, type UnaryResponse } from "@connectrpc/connect";
import { createLogger } from "@payin/logging";
import { healthV1 } from "@payin/proto";
import { createServiceClient, createServiceTransport } from "./client.js";
import { connectUnaryTransport } from "./connect-unary-client.js";
import { runWithContext } from "./context.js";
import { startRpcServer, type RunningRpcServer } from "./server.js";

const TOKEN = "unary-client-test-token-0123456789abcdef";

/** A plain HTTP server playing a service that misbehaves in the way a test asks. */
async function rawServer(handle: (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => void) {
  const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; rawHeaders: string[]; body: Buffer }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method, url: req.url, headers: req.headers, rawHeaders: req.rawHeaders, body });
      handle(req, body, res);
    });
  });
  let connections = 0;
  server.on("connection", () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const healthOf = (baseUrl: string, serviceToken = TOKEN, timeoutMs?: number) =>
  createServiceClient(healthV1.Health, { baseUrl, serviceToken, timeoutMs });

describe("the services' unary Connect client, against a real service", () => {
  let server: RunningRpcServer;
  let url: string;
  beforeAll(async () => {
    server = await startRpcServer({
      name: "unary-client-test",
      services: [],
      routes: () => {},
      callers: new Map(),
      allow: new Map(),
      host: "127.0.0.1",
      port: 0,
      logger: createLogger("unary-client-test", { level: "silent" }),
    });
    url = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server.close();
  });

  it("calls a method and reads its answer, many times over kept-alive connections", async () => {
    const health = healthOf(url);
    const answers = await Promise.all(Array.from({ length: 200 }, () => health.check({ service: "" })));
    expect(answers.every((a) => a.status === healthV1.HealthCheckResponse_ServingStatus.SERVING)).toBe(true);
  });

  it("passes on the service's own error, code and message, read from its JSON body", async () => {
    const unknown = await healthOf(url).check({ service: "no.such.Service" }).then(() => undefined, (e: unknown) => e);
    expect(unknown).toBeInstanceOf(ConnectError);
    expect((unknown as ConnectError).code).toBe(Code.NotFound);
    expect((unknown as ConnectError).rawMessage).toContain("no.such.Service");
  });

  it("gives the answer's headers when asked for them", async () => {
    let contentType: string | null = null;
    await healthOf(url).check({ service: "" }, { onHeader: (h) => (contentType = h.get("content-type")) });
    expect(contentType).toBe("application/proto");
  });
});

describe("the services' unary Connect client, on the wire", () => {
  it("sends one POST in the Connect protocol: binary body with its length, deadline, token and the request id", async () => {
    const fake = await rawServer((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/proto" });
      res.end(Buffer.from([0x08, 0x01])); // status: SERVING
    });
    try {
      const answer = await runWithContext({ requestId: "req-123" }, () => healthOf(fake.url, TOKEN, 1_500).check({ service: "payin.x" }));
      expect(answer.status).toBe(healthV1.HealthCheckResponse_ServingStatus.SERVING);
      const [call] = fake.seen;
      expect(call?.method).toBe("POST");
      expect(call?.url).toBe("/grpc.health.v1.Health/Check");
      expect(call?.headers["content-type"]).toBe("application/proto");
      expect(call?.headers["connect-protocol-version"]).toBe("1");
      expect(call?.headers["connect-timeout-ms"]).toBe("1500");
      expect(call?.headers["authorization"]).toBe(`Bearer ${TOKEN}`);
      expect(call?.headers["x-request-id"]).toBe("req-123");
      expect(call?.headers["transfer-encoding"]).toBeUndefined();
      expect(Number(call?.headers["content-length"])).toBe(call?.body.length);
      expect(call?.body.toString("latin1")).toContain("payin.x");
    } finally {
      await fake.close();
    }
  });

  it("reads an error's code, message and details from its JSON body, and falls back to the HTTP status without one", async () => {
    const fake = await rawServer((_req, body, res) => {
      if (!body.toString("latin1").includes("bad-gateway")) {
        res.writeHead(409, { "content-type": "application/json" });
        res.end(JSON.stringify({ code: "failed_precondition", message: "merchant is suspended", details: [{ type: "payin.Reason", value: "AQID" }] }));
      } else {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end("bad gateway");
      }
    });
    try {
      const error = (await healthOf(fake.url).check({ service: "" }).catch((e: unknown) => e)) as ConnectError;
      expect(error.code).toBe(Code.FailedPrecondition);
      expect(error.rawMessage).toBe("merchant is suspended");
      expect(error.details).toHaveLength(1);
      expect(error.details[0]).toMatchObject({ type: "payin.Reason", value: new Uint8Array([1, 2, 3]) });
      const client = createClient(healthV1.Health, createServiceTransport({ baseUrl: fake.url, serviceToken: TOKEN }));
      const other = (await client.check({ service: "bad-gateway" }).catch((e: unknown) => e)) as ConnectError;
      expect(other.code).toBe(Code.Unavailable); // HTTP 502
    } finally {
      await fake.close();
    }
  });

  it("refuses a 200 answer that is not binary protobuf, or that is compressed, as connect-node does", async () => {
    const fake = await rawServer((_req, body, res) => {
      const asked = body.toString("latin1");
      if (asked.includes("html")) {
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<html></html>");
      } else if (asked.includes("json")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      } else {
        res.writeHead(200, { "content-type": "application/proto", "content-encoding": "gzip" });
        res.end(Buffer.from([0x08, 0x01]));
      }
    });
    try {
      const health = healthOf(fake.url);
      const html = (await health.check({ service: "html" }).catch((e: unknown) => e)) as ConnectError;
      expect(html.code).toBe(Code.Unknown);
      const json = (await health.check({ service: "json" }).catch((e: unknown) => e)) as ConnectError;
      expect(json.code).toBe(Code.Internal);
      const gzip = (await health.check({ service: "gzip" }).catch((e: unknown) => e)) as ConnectError;
      expect(gzip.code).toBe(Code.Internal);
      expect(gzip.rawMessage).toContain("encoding");
    } finally {
      await fake.close();
    }
  });

  it("keeps the protocol's headers and the service token whatever headers the caller passes", async () => {
    const fake = await rawServer((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/proto" });
      res.end(Buffer.from([0x08, 0x01]));
    });
    try {
      await healthOf(fake.url, TOKEN, 2_000).check(
        { service: "" },
        {
          headers: {
            authorization: "Bearer someone-else",
            "content-type": "application/json",
            "content-length": "1",
            "connect-timeout-ms": "99999",
            "x-extra": "kept",
          },
        },
      );
      const [call] = fake.seen;
      expect(call?.headers["authorization"]).toBe(`Bearer ${TOKEN}`);
      expect(call?.headers["content-type"]).toBe("application/proto");
      expect(call?.headers["connect-timeout-ms"]).toBe("2000");
      expect(Number(call?.headers["content-length"])).toBe(call?.body.length);
      expect(call?.headers["x-extra"]).toBe("kept");
    } finally {
      await fake.close();
    }
  });

  it("fails a call whose header Node refuses with Internal, sending nothing and leaving no timer behind", async () => {
    const fake = await rawServer(() => {});
    try {
      const error = (await healthOf(fake.url, TOKEN, 50)
        .check({ service: "" }, { headers: { "x-bad": "a\u0001b" } })
        .catch((e: unknown) => e)) as ConnectError;
      expect(error).toBeInstanceOf(ConnectError);
      expect(error.code).toBe(Code.Internal);
      // Past the call's deadline: a timer left armed would throw outside any handler here.
      await new Promise((resolve) => setTimeout(resolve, 120));
      expect(fake.connections()).toBe(0);
    } finally {
      await fake.close();
    }
  });

  it("passes `trailer-` headers of an answer as its trailers", async () => {
    const fake = await rawServer((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/proto", "trailer-x-count": "3", "x-head": "h" });
      res.end(Buffer.from([0x08, 0x01]));
    });
    try {
      let trailer: Headers | undefined;
      let header: Headers | undefined;
      await healthOf(fake.url).check({ service: "" }, { onHeader: (h) => (header = h), onTrailer: (t) => (trailer = t) });
      expect(trailer?.get("x-count")).toBe("3");
      expect(header?.get("x-head")).toBe("h");
      expect(header?.get("trailer-x-count")).toBeNull();
    } finally {
      await fake.close();
    }
  });

  it("sets no deadline for a call whose timeoutMs is zero, as connect does", async () => {
    const slow = await rawServer((_req, _body, res) => {
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/proto" });
        res.end(Buffer.from([0x08, 0x01]));
      }, 150);
    });
    try {
      const answer = await healthOf(slow.url, TOKEN, 50).check({ service: "" }, { timeoutMs: 0 });
      expect(answer.status).toBe(healthV1.HealthCheckResponse_ServingStatus.SERVING);
      expect(slow.seen[0]?.headers["connect-timeout-ms"]).toBeUndefined();
    } finally {
      await slow.close();
    }
  });

  it("fails with Unavailable when nothing listens, when the name does not resolve, and when the service drops the connection under the call", async () => {
    const closed = await rawServer(() => {});
    await closed.close();
    const refused = (await healthOf(closed.url).check({ service: "" }).catch((e: unknown) => e)) as ConnectError;
    expect(refused.code).toBe(Code.Unavailable);
    // A stopped container's service name, say.
    const unknownHost = (await healthOf("http://no-such-service.invalid:50053").check({ service: "" }).catch((e: unknown) => e)) as ConnectError;
    expect(unknownHost.code).toBe(Code.Unavailable);

    const dropping = await rawServer((req) => req.socket.destroy());
    try {
      const dropped = (await healthOf(dropping.url).check({ service: "" }).catch((e: unknown) => e)) as ConnectError;
      expect(dropped.code).toBe(Code.Unavailable);
    } finally {
      await dropping.close();
    }

    const halfAnswering = await rawServer((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/proto", "content-length": "100" });
      res.write(Buffer.from([0x08]));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    try {
      const cut = (await healthOf(halfAnswering.url).check({ service: "" }).catch((e: unknown) => e)) as ConnectError;
      expect(cut.code).toBe(Code.Unavailable);
    } finally {
      await halfAnswering.close();
    }
  });

  it("fails with DeadlineExceeded when the service does not answer in time, and abandons the connection", async () => {
    let closedByClient = false;
    const silent = await rawServer((req) => req.socket.on("close", () => (closedByClient = true)));
    try {
      const started = performance.now();
      const error = (await healthOf(silent.url, TOKEN, 150).check({ service: "" }).catch((e: unknown) => e)) as ConnectError;
      expect(error.code).toBe(Code.DeadlineExceeded);
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(closedByClient).toBe(true);
      const perCall = (await healthOf(silent.url, TOKEN, 5_000).check({ service: "" }, { timeoutMs: 100 }).catch((e: unknown) => e)) as ConnectError;
      expect(perCall.code).toBe(Code.DeadlineExceeded);
      expect(silent.seen.at(-1)?.headers["connect-timeout-ms"]).toBe("100");
    } finally {
      await silent.close();
    }
  });

  it("closes a pooled connection left idle, before the service's keep-alive would, and opens a new one for the next call", async () => {
    let closed = 0;
    const fake = await rawServer((req, _body, res) => {
      req.socket.once("close", () => (closed += 1));
      res.writeHead(200, { "content-type": "application/proto" });
      res.end(Buffer.from([0x08, 0x01]));
    });
    try {
      const health = createServiceClient(healthV1.Health, { baseUrl: fake.url, serviceToken: TOKEN, idleSocketMs: 100 });
      await health.check({ service: "" });
      await health.check({ service: "" });
      expect(fake.connections()).toBe(1); // kept alive between calls
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(closed).toBeGreaterThanOrEqual(1);
      await health.check({ service: "" });
      expect(fake.connections()).toBe(2);
    } finally {
      await fake.close();
    }
  });

  it("does not cut a call in progress longer than the idle limit", async () => {
    const slow = await rawServer((_req, _body, res) => {
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/proto" });
        res.end(Buffer.from([0x08, 0x01]));
      }, 300);
    });
    try {
      const health = createServiceClient(healthV1.Health, { baseUrl: slow.url, serviceToken: TOKEN, idleSocketMs: 100 });
      expect((await health.check({ service: "" })).status).toBe(healthV1.HealthCheckResponse_ServingStatus.SERVING);
    } finally {
      await slow.close();
    }
  });

  it("fails with Canceled when the caller's signal aborts, before or during the call", async () => {
    const silent = await rawServer(() => {});
    try {
      const health = healthOf(silent.url);
      const aborted = new AbortController();
      aborted.abort();
      const before = (await health.check({ service: "" }, { signal: aborted.signal }).catch((e: unknown) => e)) as ConnectError;
      expect(before.code).toBe(Code.Canceled);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(silent.connections()).toBe(0);
      const during = new AbortController();
      const call = health.check({ service: "" }, { signal: during.signal }).catch((e: unknown) => e);
      setTimeout(() => during.abort(), 30);
      expect(((await call) as ConnectError).code).toBe(Code.Canceled);
    } finally {
      await silent.close();
    }
  });
});

/** How many times a request carried the header `name` (Node folds some repeated headers into one). */
const timesSent = (rawHeaders: string[], name: string) => rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === name).length;

describe("the services' unary Connect client's interceptors", () => {
  it("run on every call, failing ones too: see the request, add a header the service sees, see the answer or the error, and retry", async () => {
    let flakyCalls = 0;
    const fake = await rawServer((_req, body, res) => {
      const asked = body.toString("latin1");
      if (asked.includes("missing")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ code: "not_found", message: "no such thing" }));
      } else if (asked.includes("flaky") && ++flakyCalls === 1) {
        res.writeHead(503, { "content-type": "application/json" });
        res.end(JSON.stringify({ code: "unavailable", message: "try again" }));
      } else {
        res.writeHead(200, { "content-type": "application/proto", "x-answered": "yes", "trailer-x-count": "1" });
        res.end(Buffer.from([0x08, 0x01]));
      }
    });
    const seen: { name: string; service: string; authorization: string | null; requestId: string | null; timeout: string | null }[] = [];
    const answers: { answered: string | null; count: string | null; status: unknown }[] = [];
    const errors: ConnectError[] = [];
    const observe: Interceptor = (next) => async (req) => {
      expect(req.stream).toBe(false);
      expect(req.requestMethod).toBe("POST");
      expect(req.url).toBe(`${fake.url}/grpc.health.v1.Health/Check`);
      expect(req.service.typeName).toBe("grpc.health.v1.Health");
      expect(req.signal.aborted).toBe(false);
      expect(req.contextValues).toBeDefined();
      const message = (req as UnaryRequest<typeof healthV1.HealthCheckRequestSchema>).message;
      seen.push({
        name: req.method.name,
        service: message.service,
        authorization: req.header.get("authorization"),
        requestId: req.header.get("x-request-id"),
        timeout: req.header.get("connect-timeout-ms"),
      });
      req.header.set("x-traced", "yes");
      try {
        const res = (await next(req)) as UnaryResponse<typeof healthV1.HealthCheckRequestSchema, typeof healthV1.HealthCheckResponseSchema>;
        answers.push({ answered: res.header.get("x-answered"), count: res.trailer.get("x-count"), status: res.message.status });
        return res;
      } catch (error) {
        expect(error).toBeInstanceOf(ConnectError);
        errors.push(error as ConnectError);
        throw error;
      }
    };
    const retryOnce: Interceptor = (next) => async (req) => {
      try {
        return await next(req);
      } catch (error) {
        if (ConnectError.from(error).code !== Code.Unavailable) throw error;
        return await next(req);
      }
    };
    try {
      const health = createServiceClient(healthV1.Health, { baseUrl: fake.url, serviceToken: TOKEN, timeoutMs: 3_000, interceptors: [observe, retryOnce] });
      await runWithContext({ requestId: "req-intercepted" }, async () => {
        await health.check({ service: "first" });
        // The caller's own credential and request id give way to the service's, and are not sent twice.
        await health.check({ service: "second" }, { headers: { authorization: "Bearer someone-else", "x-request-id": "forged" } });
        const missing = (await health.check({ service: "missing" }).catch((e: unknown) => e)) as ConnectError;
        expect(missing.code).toBe(Code.NotFound);
        expect((await health.check({ service: "flaky" })).status).toBe(healthV1.HealthCheckResponse_ServingStatus.SERVING);
      });

      expect(seen.map((s) => s.service)).toEqual(["first", "second", "missing", "flaky"]);
      for (const call of seen) {
        expect(call).toMatchObject({ name: "Check", authorization: `Bearer ${TOKEN}`, requestId: "req-intercepted", timeout: "3000" });
      }
      expect(answers).toEqual([
        { answered: "yes", count: "1", status: healthV1.HealthCheckResponse_ServingStatus.SERVING },
        { answered: "yes", count: "1", status: healthV1.HealthCheckResponse_ServingStatus.SERVING },
        { answered: "yes", count: "1", status: healthV1.HealthCheckResponse_ServingStatus.SERVING },
      ]);
      expect(errors.map((e) => e.code)).toEqual([Code.NotFound]);

      // Five requests on the wire: the flaky call was sent again by the retrying interceptor.
      expect(fake.seen).toHaveLength(5);
      expect(fake.seen.filter((r) => r.body.toString("latin1").includes("flaky"))).toHaveLength(2);
      for (const request of fake.seen) {
        expect(request.headers["x-traced"]).toBe("yes");
        expect(timesSent(request.rawHeaders, "authorization")).toBe(1);
        expect(request.headers["authorization"]).toBe(`Bearer ${TOKEN}`);
        expect(timesSent(request.rawHeaders, "x-request-id")).toBe(1);
        expect(request.headers["x-request-id"]).toBe("req-intercepted");
        expect(timesSent(request.rawHeaders, "content-length")).toBe(1);
        expect(Number(request.headers["content-length"])).toBe(request.body.length);
      }
    } finally {
      await fake.close();
    }
  });

  it("cannot change the framing or the wire format, and may change the message", async () => {
    const fake = await rawServer((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/proto" });
      res.end(Buffer.from([0x08, 0x01]));
    });
    const rewrite: Interceptor = (next) => (req) => {
      req.header.set("content-type", "application/json");
      req.header.set("content-length", "1");
      req.header.set("transfer-encoding", "chunked");
      return req.stream ? next(req) : next({ ...req, message: create(healthV1.HealthCheckRequestSchema, { service: "rewritten" }) });
    };
    try {
      await createServiceClient(healthV1.Health, { baseUrl: fake.url, serviceToken: TOKEN, interceptors: [rewrite] }).check({ service: "" });
      const [call] = fake.seen;
      expect(call?.headers["content-type"]).toBe("application/proto");
      expect(call?.headers["transfer-encoding"]).toBeUndefined();
      expect(Number(call?.headers["content-length"])).toBe(call?.body.length);
      expect(call?.body.toString("latin1")).toContain("rewritten");
    } finally {
      await fake.close();
    }
  });

  it("see the call's signal abort with DeadlineExceeded when its deadline, spanning retries, passes; a signal of their own ends their attempt", async () => {
    const silent = await rawServer(() => {});
    try {
      let reason: unknown;
      let attempts = 0;
      const retryForever: Interceptor = (next) => async (req) => {
        req.signal.addEventListener("abort", () => (reason = req.signal.reason));
        for (;;) {
          attempts += 1;
          const attempt = AbortSignal.any([req.signal, AbortSignal.timeout(40)]);
          try {
            return await next({ ...req, signal: attempt });
          } catch (error) {
            if (ConnectError.from(error).code === Code.DeadlineExceeded) throw error;
          }
        }
      };
      const transport = connectUnaryTransport(
        { baseUrl: silent.url, defaultTimeoutMs: 200, agent: new http.Agent({ keepAlive: true }), interceptors: [retryForever] },
        createServiceTransport({ baseUrl: silent.url, serviceToken: TOKEN }),
      );
      const started = performance.now();
      const error = (await createClient(healthV1.Health, transport).check({ service: "" }).catch((e: unknown) => e)) as ConnectError;
      expect(error.code).toBe(Code.DeadlineExceeded);
      expect(performance.now() - started).toBeGreaterThanOrEqual(190);
      expect(reason).toBeInstanceOf(ConnectError);
      expect((reason as ConnectError).code).toBe(Code.DeadlineExceeded);
      expect(attempts).toBeGreaterThanOrEqual(2);
      // Every attempt but perhaps one cut by the deadline as it left went out.
      expect(silent.seen.length).toBeGreaterThanOrEqual(attempts - 1);
    } finally {
      await silent.close();
    }
  });
});
