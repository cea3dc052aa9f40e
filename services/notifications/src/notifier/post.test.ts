import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postWebhook, RESPONSE_EXCERPT_BYTES } from "./post.js";

// A real HTTP server on 127.0.0.1; the URLs name hosts that do not exist, so
// a request arriving at all proves the connection went to the pinned address.
let server: http.Server;
let port: number;
const seen: { host?: string; body: string; path?: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({ host: req.headers.host, body: Buffer.concat(chunks).toString(), path: req.url });
      if (req.url === "/big") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("x".repeat(10 * RESPONSE_EXCERPT_BYTES));
      } else if (req.url === "/redirect") {
        res.writeHead(302, { location: `http://127.0.0.1:${port}/landed` });
        res.end("moved");
      } else if (req.url === "/slow-body") {
        res.writeHead(200);
        res.write("start ");
        // The rest never comes.
      } else if (req.url === "/nul") {
        res.end("a\u0000b");
      } else {
        res.writeHead(201, { "retry-after": "7" });
        res.end("created");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const post = (path: string, timeoutMs = 5_000) =>
  postWebhook(new URL(`http://receiver.invalid:${port}${path}`), { addresses: ["127.0.0.1"], headers: { "webhook-id": "msg_1" }, body: '{"a":1}', timeoutMs });

describe("postWebhook", () => {
  it("connects to the pinned address only, naming the URL's host, and answers status, headers and body", async () => {
    const result = await post("/ok");
    expect(result).toMatchObject({ statusCode: 201, excerpt: "created" });
    expect(result.headers?.["retry-after"]).toBe("7");
    expect(result.error).toBeUndefined();
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(seen.at(-1)).toEqual({ host: `receiver.invalid:${port}`, body: '{"a":1}', path: "/ok" });
  });

  it("keeps the first 1 KiB of a long answer", async () => {
    const result = await post("/big");
    expect(result.statusCode).toBe(200);
    expect(result.excerpt).toBe("x".repeat(RESPONSE_EXCERPT_BYTES));
  });

  it("never follows a redirect: the 3xx is the answer", async () => {
    const before = seen.length;
    const result = await post("/redirect");
    expect(result).toMatchObject({ statusCode: 302, excerpt: "moved" });
    expect(seen.slice(before).map((s) => s.path)).toEqual(["/redirect"]);
  });

  it("takes a status that came in time as the answer when the body does not end in time", async () => {
    const result = await post("/slow-body", 500);
    expect(result).toMatchObject({ statusCode: 200, excerpt: "start ", error: "the answer's body did not end within 500 ms" });
  });

  it("drops NUL characters from the excerpt (the log keeps text)", async () => {
    expect((await post("/nul")).excerpt).toBe("ab");
  });

  it("answers an error, never throws, when nothing listens", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const freePort = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await postWebhook(new URL(`http://receiver.invalid:${freePort}/`), { addresses: ["127.0.0.1"], headers: {}, body: "{}", timeoutMs: 5_000 });
    expect(result.statusCode).toBeUndefined();
    expect(result.error).toContain("ECONNREFUSED");
  });
});
