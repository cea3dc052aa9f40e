import http from "node:http";
import net, { type AddressInfo } from "node:net";
import Koa from "koa";
import Router from "@koa/router";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@payin/logging";
import { ApiError } from "./errors.js";
import { bodyReader, MAX_BODY_BYTES, readJsonObject } from "./body.js";
import { errorMiddleware } from "./error-middleware.js";

/** A gateway-like server: the error middleware, a route reading a JSON object and one reading a small form's bytes. */
let server: http.Server;
let base: string;

const readSmallForm = bodyReader({
  types: ["application/x-www-form-urlencoded"],
  limit: 16,
  tooLarge: () => new ApiError("PAYLOAD_TOO_LARGE", "at most 16 bytes"),
});

beforeAll(async () => {
  const app = new Koa();
  app.use(errorMiddleware(createLogger("body-test", {}, { write: () => {} })));
  const router = new Router();
  router.post("/json", async (ctx) => {
    ctx.body = { received: await readJsonObject(ctx) };
  });
  router.post("/form", async (ctx) => {
    const bytes = await readSmallForm(ctx);
    ctx.body = { bytes: bytes === undefined ? null : bytes.toString("hex") };
  });
  app.use(router.routes());
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const JSON_TYPE = { "content-type": "application/json" };

async function post(path: string, body: string | Buffer | ReadableStream<Uint8Array> | undefined, headers: Record<string, string> = JSON_TYPE) {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers,
    body,
    duplex: "half",
    signal: AbortSignal.timeout(10_000),
  } as RequestInit);
  return { status: res.status, body: (await res.json()) as Answer };
}

/** What the test routes answer: the error body, the JSON read, or the bytes read (hex). */
interface Answer {
  error?: { code: string; message: string };
  received?: unknown;
  bytes?: string | null;
}

function expectRefusal(res: { status: number; body: Answer }, status: number, code: string): string {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error?.code).toBe(code);
  return res.body.error!.message;
}

describe("readJsonObject", () => {
  it("reads a JSON object, with or without charset=utf-8", async () => {
    for (const type of ["application/json", "application/json; charset=utf-8", 'application/json; charset="UTF-8"', "APPLICATION/JSON;charset=UTF8"]) {
      const res = await post("/json", '{"asset":"usdt","nested":{"a":[1,{"b":"ü"}]}}', { "content-type": type });
      expect(res.status, type).toBe(200);
      expect(res.body.received).toEqual({ asset: "usdt", nested: { a: [1, { b: "ü" }] } });
    }
  });

  it("keeps U+FFFD that was sent as UTF-8 (only bytes that are not UTF-8 are refused)", async () => {
    const res = await post("/json", Buffer.from('{"a":"\uFFFD"}', "utf8"));
    expect(res.status).toBe(200);
    expect(res.body.received).toEqual({ a: "\uFFFD" });
  });

  it("reads a body of exactly 64 KiB", async () => {
    const body = `{"a":"${"x".repeat(MAX_BODY_BYTES - 8)}"}`;
    expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES);
    expect((await post("/json", body)).status).toBe(200);
  });

  it.each([
    ["text/plain", { "content-type": "text/plain" }],
    ["no Content-Type", {}],
    ["application/json-patch+json", { "content-type": "application/json-patch+json" }],
    ["charset=iso-8859-1", { "content-type": "application/json; charset=iso-8859-1" }],
    ["Content-Encoding gzip", { ...JSON_TYPE, "content-encoding": "gzip" }],
  ])("refuses %s with 415", async (_what, headers) => {
    expectRefusal(await post("/json", '{"a":1}', headers), 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("refuses a body over 64 KiB with 413, by Content-Length", async () => {
    const message = expectRefusal(await post("/json", `{"a":"${"x".repeat(MAX_BODY_BYTES)}"}`), 413, "PAYLOAD_TOO_LARGE");
    expect(message).toBe("request body must be at most 65536 bytes");
  });

  it("refuses a chunked body over 64 KiB with 413, and the connection still answers the next request", async () => {
    for (let round = 0; round < 5; round++) {
      let pulls = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (pulls >= 8) controller.close();
          else controller.enqueue(new TextEncoder().encode(pulls === 0 ? '{"a":"' : "x".repeat(16 * 1024)));
          pulls++;
        },
      });
      expectRefusal(await post("/json", stream), 413, "PAYLOAD_TOO_LARGE");
      expect((await post("/json", '{"a":1}')).status).toBe(200);
    }
  });

  it("reads and drops the rest of a chunked body over the limit, so the next request on the connection is answered", async () => {
    // Both requests written at once on one connection: a body left half-read
    // after the 413 would keep the second one from ever being read.
    const chunk = "x".repeat(16 * 1024);
    const chunked = [`${(6).toString(16)}\r\n{"a":"\r\n`, ...Array.from({ length: 8 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`), "0\r\n\r\n"].join("");
    const first = `POST /json HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunked}`;
    const second = 'POST /json HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{"a":1}';
    const text = await new Promise<string>((resolve, reject) => {
      const socket = net.connect((server.address() as AddressInfo).port, "127.0.0.1");
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`the second request was not answered: ${Buffer.concat(chunks).toString().slice(0, 200)}`));
      }, 5_000);
      socket.on("data", (data: Buffer) => chunks.push(data));
      socket.on("error", reject);
      socket.on("close", () => {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks).toString());
      });
      socket.write(first + second);
    });
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
    expect(statuses, text.replace(/x{100,}/g, "x…")).toEqual(["413", "200"]);
  });

  it.each([
    ["bytes that are not UTF-8", Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]), /UTF-8/],
    ["a truncated object", '{"a": ', /not valid JSON/],
    ["an empty body", "", /not valid JSON/],
    ["a byte order mark", "\uFEFF{}", /not valid JSON/],
    ["a name twice", '{"asset":"usdt","asset":"usdc"}', /"asset" twice/],
    ["a name twice in a nested object", '{"a":{"b":1,"b":2}}', /"b" twice/],
    ["a name twice in an object in an array", '{"a":[{"b":1},{"c":1,"c":2}]}', /"c" twice/],
    ["a name twice, once escaped", '{"a\\u0062":1,"ab":2}', /"ab" twice/],
  ])("refuses %s with 400 MALFORMED_JSON", async (_what, body, message) => {
    expect(expectRefusal(await post("/json", body), 400, "MALFORMED_JSON")).toMatch(message);
  });

  it.each([
    ["an array", "[]", /must be a JSON object/],
    ["a string", '"a"', /must be a JSON object/],
    ["U+0000 in a value", '{"a":"x\\u0000"}', /U\+0000/],
    ["a lone surrogate in a name", '{"\\ud800":1}', /lone surrogate/],
  ])("refuses %s with 400 VALIDATION_ERROR", async (_what, body, message) => {
    expect(expectRefusal(await post("/json", body), 400, "VALIDATION_ERROR")).toMatch(message);
  });

  it("accepts the same name in different objects", async () => {
    const res = await post("/json", '{"a":{"x":1},"b":{"x":2},"c":[{"x":3},{"x":4}]}');
    expect(res.status).toBe(200);
  });
});

describe("bodyReader", () => {
  const FORM = { "content-type": "application/x-www-form-urlencoded" };

  it("answers the bytes as they came, of its types only", async () => {
    expect((await post("/form", Buffer.from([0x61, 0x3d, 0xff, 0xfe]), FORM)).body.bytes).toBe("613dfffe");
    expect((await post("/form", "a=1", { "content-type": "application/x-www-form-urlencoded; charset=UTF-8" })).body.bytes).toBe("613d31");
    expect((await post("/form", "", FORM)).body.bytes).toBe("");
    expect((await post("/form", "a=1", { "content-type": "text/plain" })).body.bytes).toBeNull();
    expect((await post("/form", undefined, {})).body.bytes).toBeNull();
  });

  it("refuses more than its limit with its own error, by Content-Length or by counting", async () => {
    expect(expectRefusal(await post("/form", "a=".padEnd(17, "x"), FORM), 413, "PAYLOAD_TOO_LARGE")).toBe("at most 16 bytes");
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("a=".padEnd(40, "x")));
        controller.close();
      },
    });
    expect(expectRefusal(await post("/form", stream, FORM), 413, "PAYLOAD_TOO_LARGE")).toBe("at most 16 bytes");
    expect((await post("/form", "a=".padEnd(16, "x"), FORM)).status).toBe(200);
  });
});
