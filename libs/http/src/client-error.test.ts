import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { Duplex } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { clientErrorHandler } from "./client-error.js";

const REQUEST_ID = /^req_[0-9a-f]{32}$/;

interface RawResponse {
  statusLine: string;
  headers: Record<string, string>;
  body: string;
}

/** Starts a plain server with the handler; `options` are http.createServer's. */
async function serve(options: http.ServerOptions = {}): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(options, (_req, res) => {
    res.setHeader("content-type", "text/plain");
    res.end("ok");
  });
  server.on("clientError", clientErrorHandler());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/**
 * Sends `bytes` as they are and reads until the server closes the connection;
 * fails if it does not within `timeoutMs`.
 */
function exchange(port: number, bytes: string | Buffer, timeoutMs = 5_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("the server did not close the connection"));
    }, timeoutMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("utf8");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) {
        reject(new Error(`no complete response head in ${JSON.stringify(text)}`));
        return;
      }
      const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ statusLine: statusLine!, headers, body: text.slice(end + 4) });
    });
    socket.write(bytes);
  });
}

/** The answer is the gateway's error envelope with a fresh request id, and closes the connection. */
function expectErrorAnswer(res: RawResponse, statusLine: string, code: string): { code: string; message: string; request_id: string } {
  expect(res.statusLine).toBe(statusLine);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(res.headers.connection).toBe("close");
  expect(res.headers["x-request-id"]).toMatch(REQUEST_ID);
  // The headers every gateway answer carries.
  expect(res.headers["x-content-type-options"]).toBe("nosniff");
  expect(res.headers["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
  expect(res.headers["referrer-policy"]).toBe("no-referrer");
  expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.body));
  const body = JSON.parse(res.body);
  expect(Object.keys(body)).toEqual(["error"]);
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "request_id"]);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.error.request_id).toBe(res.headers["x-request-id"]);
  return body.error;
}

describe("clientErrorHandler on a server", () => {
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    ({ server, port } = await serve());
  });

  afterAll(async () => {
    await close(server);
  });

  it("answers Content-Length: abc with 400 and the error body", async () => {
    const res = await exchange(port, "POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}");
    expectErrorAnswer(res, "HTTP/1.1 400 Bad Request", "BAD_REQUEST");
  });

  it("answers a garbage request line with 400 and the error body", async () => {
    const res = await exchange(port, "this is not http at all\r\n\r\n");
    expectErrorAnswer(res, "HTTP/1.1 400 Bad Request", "BAD_REQUEST");
  });

  it("answers headers over the limit with 431", async () => {
    const res = await exchange(port, `GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expectErrorAnswer(res, "HTTP/1.1 431 Request Header Fields Too Large", "BAD_REQUEST");
  });

  it("gives every refused request its own id and leaves well-formed requests alone", async () => {
    const [one, two] = await Promise.all([exchange(port, "NOPE\r\n\r\n"), exchange(port, "NOPE\r\n\r\n")]);
    expect(one.headers["x-request-id"]).not.toBe(two.headers["x-request-id"]);
    const ok = await exchange(port, "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    expect(ok.statusLine).toBe("HTTP/1.1 200 OK");
    expect(ok.body).toBe("ok");
  });

  it("writes nothing into a response already under way: a malformed request pipelined after a good one only closes", async () => {
    const res = await exchange(port, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\nNOPE\r\n\r\n");
    expect(res.statusLine).toBe("HTTP/1.1 200 OK");
    expect(res.body).toBe("ok");
  });
});

describe("clientErrorHandler on a slow request", () => {
  it("answers a request whose head is not received within the timeout with 408", async () => {
    const { server, port } = await serve({ requestTimeout: 300, headersTimeout: 300, connectionsCheckingInterval: 50 });
    try {
      const res = await exchange(port, "GET / HTTP/1.1\r\nHost: localhost\r\n", 5_000);
      expectErrorAnswer(res, "HTTP/1.1 408 Request Timeout", "BAD_REQUEST");
    } finally {
      await close(server);
    }
  });
});

describe("clientErrorHandler on a socket it may not write to", () => {
  /** A socket stand-in that records writes. */
  function fakeSocket(state: { writable: boolean; httpMessage?: { headersSent: boolean } }) {
    const written: unknown[] = [];
    const socket = new Duplex({
      read() {},
      write(chunk, _encoding, callback) {
        written.push(chunk);
        callback();
      },
    });
    if (!state.writable) socket.end();
    Object.assign(socket, { _httpMessage: state.httpMessage ?? null });
    const destroy = vi.spyOn(socket, "destroy");
    return { socket, written, destroy };
  }

  const parseError = Object.assign(new Error("Parse Error: Invalid header value char"), { code: "HPE_INVALID_HEADER_TOKEN" });

  it("destroys a socket that is no longer writable without writing", async () => {
    const { socket, written, destroy } = fakeSocket({ writable: false });
    clientErrorHandler()(parseError, socket);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual([]);
    expect(destroy).toHaveBeenCalled();
  });

  it("destroys the socket on ECONNRESET without writing", () => {
    const { socket, written, destroy } = fakeSocket({ writable: true });
    clientErrorHandler()(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }), socket);
    expect(written).toEqual([]);
    expect(destroy).toHaveBeenCalled();
  });

  it("does not write into a response that has already begun", () => {
    const { socket, written, destroy } = fakeSocket({ writable: true, httpMessage: { headersSent: true } });
    clientErrorHandler()(parseError, socket);
    expect(written).toEqual([]);
    expect(destroy).toHaveBeenCalled();
  });

  it("writes the answer, then destroys the socket, when it may", async () => {
    const { socket, written, destroy } = fakeSocket({ writable: true });
    clientErrorHandler()(parseError, socket);
    await new Promise((resolve) => setImmediate(resolve));
    expect(String(written.join(""))).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(destroy).toHaveBeenCalled();
  });
});
