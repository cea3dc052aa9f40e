import http2 from "node:http2";
import net from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerDigestsFor, deriveCredential, parseCallerDigests } from "@payin/config";
import { createLogger } from "@payin/logging";
import { healthV1, identityV1 } from "@payin/proto";
import { allowCallers, notAllowedMessage, UNAUTHENTICATED_MESSAGE } from "./auth.js";
import { createServiceClient } from "./client.js";
import { reasonOf } from "./errors.js";
import { DEFAULT_RPC_SERVER_LIMITS, startRpcServer, type RpcServerLimits } from "./server.js";

const MASTER = "server-test-master-secret-0123456789abcdef";
const Identity = identityV1.IdentityService;
const AUTHENTICATE = "/payin.identity.v1.IdentityService/Authenticate";

/** A stub identity service: api may authenticate tokens, payins nothing; observer has no digest. */
async function startStub(limits?: Partial<RpcServerLimits>) {
  const handled: string[] = [];
  const server = await startRpcServer({
    name: "server-test",
    services: [Identity.typeName],
    routes: (router) =>
      router.service(Identity, {
        authenticate: () => {
          handled.push("Authenticate");
          return create(identityV1.AuthenticateResponseSchema, {});
        },
        createMachineCredential: () => {
          handled.push("CreateMachineCredential");
          return create(identityV1.CreateMachineCredentialResponseSchema, { token: "minted" });
        },
      }),
    callers: parseCallerDigests(callerDigestsFor(MASTER, ["api", "payins", "payinctl"])),
    allow: allowCallers(Identity, { api: ["authenticate"], payins: [], payinctl: ["createMachineCredential"] }),
    host: "127.0.0.1",
    port: 0,
    logger: createLogger("server-test", { level: "silent" }),
    limits,
  });
  return { server, handled, url: `http://127.0.0.1:${server.port}` };
}

async function failure(promise: Promise<unknown>): Promise<ConnectError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectError);
  return error as ConnectError;
}

/** Opens a raw TCP connection and collects what the server sends until it closes. */
async function rawConnection(port: number) {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
  socket.on("error", () => {}); // a reset after the answer is expected
  const closed = new Promise<number>((resolve) => {
    const start = performance.now();
    socket.once("close", () => resolve(performance.now() - start));
  });
  return { socket, received: () => received, closed };
}

/** Resolves once `text` has arrived, or rejects after `ms`. */
async function waitFor(read: () => string, text: string, ms = 5_000): Promise<void> {
  const until = performance.now() + ms;
  while (!read().includes(text)) {
    if (performance.now() > until) throw new Error(`did not receive ${JSON.stringify(text)}; got ${JSON.stringify(read())}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("each caller may call only the RPCs its service allows it", () => {
  let stub: Awaited<ReturnType<typeof startStub>>;
  const clientOf = (credential: string, protocol: "connect" | "grpc"): Client<typeof Identity> =>
    createServiceClient(Identity, { baseUrl: stub.url, serviceToken: credential, protocol });

  beforeAll(async () => {
    stub = await startStub();
  });
  afterAll(async () => {
    await stub.server.close();
  });

  for (const protocol of ["connect", "grpc"] as const) {
    describe(`over ${protocol}`, () => {
      it("lets a caller call what it is allowed", async () => {
        await clientOf(deriveCredential(MASTER, "api"), protocol).authenticate({ token: "t" });
        const minted = await clientOf(deriveCredential(MASTER, "payinctl"), protocol).createMachineCredential({ merchantUuid: "m" });
        expect(minted.token).toBe("minted");
      });

      it("refuses payins minting a machine credential, and the api calling outside its list: PermissionDenied, no reason", async () => {
        const before = stub.handled.length;
        const payins = await failure(clientOf(deriveCredential(MASTER, "payins"), protocol).createMachineCredential({ merchantUuid: "m" }));
        expect(payins.code).toBe(Code.PermissionDenied);
        expect(payins.rawMessage).toBe(notAllowedMessage("payins", "payin.identity.v1.IdentityService/CreateMachineCredential"));
        expect(reasonOf(payins)).toBeUndefined();
        const payinsAuth = await failure(clientOf(deriveCredential(MASTER, "payins"), protocol).authenticate({ token: "t" }));
        expect(payinsAuth.code).toBe(Code.PermissionDenied);
        const api = await failure(clientOf(deriveCredential(MASTER, "api"), protocol).createMachineCredential({ merchantUuid: "m" }));
        expect(api.code).toBe(Code.PermissionDenied);
        expect(api.rawMessage).toBe(notAllowedMessage("api", "payin.identity.v1.IdentityService/CreateMachineCredential"));
        // The API's own list does not include a method the service does not implement either.
        expect((await failure(clientOf(deriveCredential(MASTER, "api"), protocol).login({}))).code).toBe(Code.PermissionDenied);
        expect(stub.handled.length).toBe(before);
      });

      it("refuses an unknown caller, a wrong secret, the master secret itself and no credential: Unauthenticated", async () => {
        const before = stub.handled.length;
        const api = deriveCredential(MASTER, "api");
        const presented = [
          deriveCredential(MASTER, "observer"), // well formed, but no digest is configured for it
          deriveCredential("another-master-secret-0123456789abcdef", "api"),
          `${api.slice(0, -1)}${api.endsWith("A") ? "B" : "A"}`,
          `payins.${api.slice("api.".length)}`, // api's secret under another caller's name
          MASTER,
          "",
        ];
        for (const credential of presented) {
          const error = await failure(clientOf(credential, protocol).authenticate({ token: "t" }));
          expect(error.code, credential).toBe(Code.Unauthenticated);
          expect(error.rawMessage).toBe(UNAUTHENTICATED_MESSAGE);
        }
        expect(stub.handled.length).toBe(before);
      });

      it("answers health checks without any credential", async () => {
        const health = createServiceClient(healthV1.Health, { baseUrl: stub.url, serviceToken: "", protocol });
        expect((await health.check({ service: Identity.typeName })).status).toBe(healthV1.HealthCheckResponse_ServingStatus.SERVING);
      });
    });
  }

  it("refuses over the HTTP layer before the body: a 64 MiB body without a valid credential is answered 401 after a few bytes, and the connection closed", async () => {
    for (const authorization of ["", `authorization: Bearer ${deriveCredential(MASTER, "api")}x\r\n`]) {
      const conn = await rawConnection(stub.server.port);
      conn.socket.write(
        `POST ${AUTHENTICATE} HTTP/1.1\r\nhost: x\r\ncontent-type: application/proto\r\nconnect-protocol-version: 1\r\n` +
          `${authorization}content-length: ${64 * 1024 * 1024}\r\n\r\n`,
      );
      conn.socket.write(Buffer.alloc(1024)); // 1 KiB of the 64 MiB: the rest never comes
      await waitFor(conn.received, "}");
      expect(conn.received()).toMatch(/^HTTP\/1\.1 401 /);
      expect(conn.received()).toMatch(/\r\nconnection: close\r\n/i);
      expect(JSON.parse(conn.received().split("\r\n\r\n")[1]!)).toEqual({ code: "unauthenticated", message: UNAUTHENTICATED_MESSAGE });
      await conn.closed;
    }
  });

  it("refuses over HTTP/2 before the body: gRPC status 16 in a trailers-only answer, the stream reset while the client still sends", async () => {
    const session = http2.connect(stub.url);
    try {
      const stream = session.request({
        ":method": "POST",
        ":path": AUTHENTICATE,
        "content-type": "application/grpc",
        te: "trailers",
        "content-length": String(64 * 1024 * 1024),
      });
      stream.on("error", () => {});
      stream.write(Buffer.alloc(1024));
      const headers = await new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once("response", resolve));
      expect(headers[":status"]).toBe(200);
      expect(headers["grpc-status"]).toBe(String(Code.Unauthenticated));
      await new Promise<void>((resolve) => stream.once("close", () => resolve()));
      expect(stream.rstCode).toBe(http2.constants.NGHTTP2_NO_ERROR);
    } finally {
      session.destroy();
    }
  });

  it("refuses an authenticated body over 4 MiB: by its length before reading it, or at the limit while reading", async () => {
    expect(DEFAULT_RPC_SERVER_LIMITS.maxBodyBytes).toBe(4 * 1024 * 1024);
    const before = stub.handled.length;
    const big = "x".repeat(4 * 1024 * 1024 + 1);
    for (const protocol of ["connect", "grpc"] as const) {
      const error = await failure(clientOf(deriveCredential(MASTER, "api"), protocol).authenticate({ token: big }));
      expect(error.code, protocol).toBe(Code.ResourceExhausted);
    }
    // Declared too large: answered without waiting for the body, and the connection closed.
    const conn = await rawConnection(stub.server.port);
    conn.socket.write(
      `POST ${AUTHENTICATE} HTTP/1.1\r\nhost: x\r\ncontent-type: application/proto\r\nconnect-protocol-version: 1\r\n` +
        `authorization: Bearer ${deriveCredential(MASTER, "api")}\r\ncontent-length: ${64 * 1024 * 1024}\r\n\r\n`,
    );
    await waitFor(conn.received, "}");
    expect(conn.received()).toMatch(/^HTTP\/1\.1 429 /);
    expect(JSON.parse(conn.received().split("\r\n\r\n")[1]!).code).toBe("resource_exhausted");
    await conn.closed;
    expect(stub.handled.length).toBe(before);
    // A call within the limit still works.
    await clientOf(deriveCredential(MASTER, "api"), "connect").authenticate({ token: "x".repeat(1024 * 1024) });
  });
});

describe("connections that send nothing are closed; idle ones after a call are not", () => {
  const IDLE_MS = 200;
  // Closed at all, within this long: generous, so a stalled event loop on a
  // loaded machine cannot fail the tests; the default (5 s) would not be reached.
  const CLOSED_WITHIN_MS = 4_000;
  let stub: Awaited<ReturnType<typeof startStub>>;
  beforeAll(async () => {
    stub = await startStub({ connectionIdleMs: IDLE_MS });
  });
  afterAll(async () => {
    await stub.server.close();
  });

  it("closes a connection that sends nothing within the limit", async () => {
    const conn = await rawConnection(stub.server.port);
    const after = await conn.closed;
    // Not at once: it was given its time (timers never fire early; half of it allows for measuring from the client).
    expect(after).toBeGreaterThanOrEqual(IDLE_MS / 2);
    expect(after).toBeLessThan(CLOSED_WITHIN_MS);
  });

  it("closes an HTTP/1.1 connection whose request head never completes", async () => {
    const conn = await rawConnection(stub.server.port);
    conn.socket.write(`POST ${AUTHENTICATE} HTTP/1.1\r\nhost: x\r\n`);
    const after = await conn.closed;
    expect(after).toBeLessThan(CLOSED_WITHIN_MS);
  });

  it("closes an HTTP/2 connection that opens no stream", async () => {
    const session = http2.connect(stub.url);
    session.on("error", () => {});
    const start = performance.now();
    await new Promise<void>((resolve) => session.once("close", () => resolve()));
    expect(performance.now() - start).toBeLessThan(CLOSED_WITHIN_MS);
  });

  it("keeps an HTTP/1.1 keep-alive connection idle after a call well past the limit", async () => {
    const conn = await rawConnection(stub.server.port);
    const check = `POST /grpc.health.v1.Health/Check HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}`;
    conn.socket.write(check);
    await waitFor(conn.received, "SERVING");
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS * 4));
    expect(conn.socket.destroyed).toBe(false);
    conn.socket.write(check);
    await waitFor(() => conn.received().split("SERVING").length > 2 ? "twice" : "", "twice");
    conn.socket.destroy();
  });

  it("keeps an HTTP/2 connection idle after a call well past the limit", async () => {
    const session = http2.connect(stub.url);
    session.on("error", () => {});
    let closed = false;
    session.once("close", () => (closed = true));
    const check = () =>
      new Promise<string>((resolve, reject) => {
        const stream = session.request({ ":method": "POST", ":path": "/grpc.health.v1.Health/Check", "content-type": "application/json" });
        let body = "";
        stream.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
        stream.once("end", () => resolve(body));
        stream.once("error", reject);
        stream.end("{}");
      });
    try {
      expect(await check()).toContain("SERVING");
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS * 4));
      expect(closed).toBe(false);
      expect(await check()).toContain("SERVING");
    } finally {
      session.destroy();
    }
  });
});
