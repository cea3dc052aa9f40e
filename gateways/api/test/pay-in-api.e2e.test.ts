/**
 * The merchant pay-in API end to end: a real platform (database, every service,
 * the gateway as processes) driven over HTTP like a merchant's server would.
 * Covers health, create, validation, authentication and authorization, merchant
 * preconditions, read and list, and that no machine token reaches the logs.
 */
import http from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { merchantsV1 } from "@payin/proto";
import {
  ALLOCATION_REFERENCE,
  type ApiResponse,
  CREATE_KEYS,
  createBody,
  EVM_ADDRESS,
  EVM_RPC_PROVIDER_UUID,
  expectError,
  expectKeys,
  expectSecretsAbsentFromLogs,
  gatewayAnswer,
  headersOf,
  inFuture,
  intentsPath,
  ISO_UTC,
  LIST_ITEM_KEYS,
  newKey,
  randomXpub,
  READ_KEYS,
  setObserverCursors,
  TEST_MNEMONIC_ADDRESSES,
  type TestMerchant,
  testMnemonicXpub,
  unknownMachineToken,
  usePlatform,
  UUID,
} from "./support.js";

// payins keeps pay-in contexts for up to a minute here: the tests below then
// show that changes apply through the announcements, not by expiry.
const e2e = usePlatform({ env: { PAYIN_CONTEXT_CACHE_MS: "60000" } });
/** Two ordinary merchants, each with wallet and credential. */
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  [a, b] = await Promise.all([e2e.operator.merchant({ name: "Shop A" }), e2e.operator.merchant({ name: "Shop B" })]);
}, 180_000);

/**
 * A request with headers given as sent, a name twice included (fetch would join
 * them); its answer is checked against the OpenAPI document like the clients'.
 */
function rawRequest(method: string, path: string, headers: Record<string, string | string[]>, body?: Buffer): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${e2e.platform.apiUrl}${path}`, { method }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        try {
          resolve(gatewayAnswer(method, path, res.statusCode ?? 0, headersOf(res.headers), Buffer.concat(chunks).toString("utf8")));
        } catch (error) {
          reject(error as Error);
        }
      });
    });
    req.on("error", reject);
    for (const [name, value] of Object.entries(headers)) req.setHeader(name, value);
    req.end(body);
  });
}

describe("GET /health", () => {
  it("answers {status: ok, request_id} without authentication", async () => {
    const res = await e2e.api.request("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expectKeys(res.body, ["request_id", "status"]);
    expect(res.body.status).toBe("ok");
    expect(typeof res.body.request_id).toBe("string");
    expect(res.body.request_id).toBe(res.headers.get("x-request-id"));
  });

  it("answers its own request id, never a caller-supplied x-request-id, in the header and the body", async () => {
    const id = "e2e-health-0123456789";
    const res = await e2e.api.request("GET", "/health", { headers: { "x-request-id": id } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.body.request_id).toBe(res.headers.get("x-request-id"));
  });

  it("uses its own request id in error bodies too", async () => {
    const id = "e2e-error-req-42";
    const res = await e2e.api.request("GET", intentsPath(a.uuid), { headers: { "x-request-id": id } });
    expect(expectError(res, 401).request_id).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it("replaces an unusable x-request-id with a fresh one", async () => {
    const res = await e2e.api.request("GET", "/health", { headers: { "x-request-id": "has spaces and ünïcode" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).not.toBe("has spaces and ünïcode");
    expect(res.body.request_id).toBe(res.headers.get("x-request-id"));
  });

  it("exposes no internal topology", async () => {
    const res = await e2e.api.request("GET", "/health");
    expect(res.text).not.toMatch(/127\.0\.0\.1|localhost|payins|identity|merchants|allocation|postgres/i);
  });

  it("answers unknown routes and methods with the error body", async () => {
    expectError(await e2e.api.request("GET", "/api/v1/nothing-here"), 404);
    const wrongMethod = await e2e.api.request("DELETE", intentsPath(a.uuid), { token: a.token });
    expectError(wrongMethod, 405, "METHOD_NOT_ALLOWED");
    expect(wrongMethod.headers.get("allow")?.split(/,\s*/).sort()).toEqual(["GET", "HEAD", "POST"]);
    const readOnly = await e2e.api.request("PUT", `${intentsPath(a.uuid)}/${crypto.randomUUID()}`, { token: a.token });
    expectError(readOnly, 405, "METHOD_NOT_ALLOWED");
    expect(readOnly.headers.get("allow")?.split(/,\s*/).sort()).toEqual(["GET", "HEAD"]);
  });

  it("answers a path with a trailing slash or in another case as no route (404), creating nothing; path parameters take any case", async () => {
    const before = await e2e.api.total(a);
    const notFound = async (method: string, path: string, json?: Record<string, unknown>) => {
      const res = await e2e.api.request(method, path, { token: a.token, json, headers: json ? { "idempotency-key": newKey() } : {} });
      expect(expectError(res, 404, "NOT_FOUND").message, `${method} ${path}`).toBe("no such route");
    };
    await notFound("POST", `${intentsPath(a.uuid)}/`, createBody());
    await notFound("POST", intentsPath(a.uuid).toUpperCase(), createBody());
    await notFound("GET", `${intentsPath(a.uuid)}/`);
    await notFound("GET", intentsPath(a.uuid).replace("/api/", "/API/"));
    await notFound("GET", intentsPath(a.uuid).replace("/pay-in-intents", "/Pay-In-Intents"));
    await notFound("GET", `${intentsPath(a.uuid)}/${crypto.randomUUID()}/`);
    await notFound("GET", `${intentsPath(a.uuid)}/${crypto.randomUUID()}/Transfers`);
    await notFound("GET", "/health/");
    await notFound("GET", "/HEALTH");
    await notFound("GET", "/api/v1/openapi.json/");
    await notFound("GET", "/api/v1/OpenAPI.json");
    await notFound("POST", "/api/v1/auth/login/", { email: "a@example.com", password: "p".repeat(12), transport: "bearer" });
    await notFound("GET", "/api/v1/auth/Session");
    await notFound("GET", "/api/v1/admin/merchants/");
    expect(await e2e.api.total(a)).toBe(before);
    // A uuid in the path is a parameter: any case reaches the route.
    expect((await e2e.api.request("GET", intentsPath(a.uuid.toUpperCase()), { token: a.token })).status).toBe(200);
    expect((await e2e.api.request("GET", "/api/v1/openapi.json")).status).toBe(200);
  });
});

describe("create pay-in intent", () => {
  it("answers 201 with exactly the create fields, routing usdt to bep20", async () => {
    const expiresAt = inFuture(2 * 3_600_000);
    const res = await e2e.api.create(a.uuid, a.token, createBody({ asset: "usdt", amount: "10.50", expires_at: expiresAt, reference: "order-1" }));
    expect(res.status, res.text).toBe(201);
    expectKeys(res.body, CREATE_KEYS);
    expect(res.body).not.toHaveProperty("reference");
    expect(res.body).not.toHaveProperty("merchant_uuid");
    expect(res.body.intent_uuid).toMatch(UUID);
    expect(res.body.status).toBe("created");
    expect(res.body.asset).toBe("usdt");
    expect(res.body.rail).toBe("bep20");
    expect(res.body.expected_amount).toBe("10.5");
    expect(res.body.address).toMatch(EVM_ADDRESS);
    expect(res.body.allocation_reference).toMatch(ALLOCATION_REFERENCE);
    expect(res.body.expires_at).toBe(expiresAt);
    // Location names the intent; reading it answers the full representation.
    expect(res.headers.get("location")).toBe(`${intentsPath(a.uuid)}/${res.body.intent_uuid}`);
    const read = await e2e.api.request("GET", res.headers.get("location")!, { token: a.token });
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({ intent_uuid: res.body.intent_uuid, reference: "order-1" });
  });

  it("routes usdc to erc20", async () => {
    const res = await e2e.api.create(a.uuid, a.token, createBody({ asset: "usdc", amount: "25" }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.asset).toBe("usdc");
    expect(res.body.rail).toBe("erc20");
  });

  it.each([
    ["010.500", "10.5"],
    ["5.000", "5"],
    ["0.0010", "0.001"],
    ["1000000000", "1000000000"],
    ["007", "7"],
  ])("returns amount %s as the canonical %s (also on read)", async (amount, canonical) => {
    const res = await e2e.api.create(a.uuid, a.token, createBody({ amount }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.expected_amount).toBe(canonical);
    const read = await e2e.api.read(a.uuid, a.token, res.body.intent_uuid);
    expect(read.body.expected_amount).toBe(canonical);
  });

  it("gives a test-mnemonic wallet its first addresses in order", async () => {
    const fresh = await e2e.operator.merchant({ name: "Mnemonic Shop", xpub: testMnemonicXpub() });
    const first = await e2e.api.create(fresh.uuid, fresh.token, createBody({ asset: "usdt" }));
    const second = await e2e.api.create(fresh.uuid, fresh.token, createBody({ asset: "usdc" }));
    expect(first.status, first.text).toBe(201);
    expect(second.status, second.text).toBe(201);
    expect(first.body.address).toBe(TEST_MNEMONIC_ADDRESSES[0]);
    expect(first.body.allocation_reference).toBe("m/44'/60'/0'/0/0");
    expect(second.body.address).toBe(TEST_MNEMONIC_ADDRESSES[1]);
    expect(second.body.allocation_reference).toBe("m/44'/60'/0'/0/1");
  });

  it("accepts a reference of 255 characters and stores it intact", async () => {
    const reference = `${"r".repeat(251)}ü😀ab`;
    expect([...reference].length).toBe(255);
    const res = await e2e.api.create(a.uuid, a.token, createBody({ reference }));
    expect(res.status, res.text).toBe(201);
    const read = await e2e.api.read(a.uuid, a.token, res.body.intent_uuid);
    expect(read.body.reference).toBe(reference);
  });

  it("accepts an Idempotency-Key of 64 characters", async () => {
    const res = await e2e.api.create(a.uuid, a.token, createBody(), "k".repeat(64));
    expect(res.status, res.text).toBe(201);
  });

  it("takes expires_at in UTC only: Z or +00:00, never another offset", async () => {
    const year = new Date().getUTCFullYear() + 1;
    const utc = await e2e.api.create(a.uuid, a.token, createBody({ expires_at: `${year}-06-01T12:00:00.5+00:00` }));
    expect(utc.status, utc.text).toBe(201);
    expect(utc.body.expires_at).toBe(`${year}-06-01T12:00:00.500Z`);
    for (const offset of ["+02:00", "-05:00", "-00:00"]) {
      const res = await e2e.api.create(a.uuid, a.token, createBody({ expires_at: `${year}-06-01T12:00:00${offset}` }));
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.body.error.message).toContain("UTC");
    }
  });
});

describe("create pay-in intent: dates", () => {
  it("accepts February 29th of a leap year and the last second of a day", async () => {
    for (const expiresAt of ["2096-02-29T23:59:59Z", "2099-12-31T23:59:59.999Z"]) {
      const res = await e2e.api.create(a.uuid, a.token, createBody({ expires_at: expiresAt }));
      expect(res.status, res.text).toBe(201);
      expect(Date.parse(res.body.expires_at)).toBe(Date.parse(expiresAt));
    }
  });
});

describe("create pay-in intent: 400", () => {
  let totalBefore: number;
  beforeAll(async () => {
    totalBefore = await e2e.api.total(a);
  });

  const bodyCases: [string, Record<string, unknown>, RegExp][] = [
    ["an unknown field", { colour: "blue" }, /colour/],
    ["rail (routing chooses it)", { rail: "bep20" }, /rail/],
    ["merchant_reference (the field is reference)", { merchant_reference: "x" }, /merchant_reference/],
    ["missing asset", { asset: undefined }, /asset/],
    ["missing amount", { amount: undefined }, /amount/],
    ["missing jurisdiction", { jurisdiction: undefined }, /jurisdiction/],
    ["missing expires_at", { expires_at: undefined }, /expires_at/],
    ["amount as a number", { amount: 10.5 }, /amount/],
    ["asset as a number", { asset: 1 }, /asset/],
    ["jurisdiction as an array", { jurisdiction: ["DE"] }, /jurisdiction/],
    ["expires_at as a number", { expires_at: Date.now() + 3_600_000 }, /expires_at/],
    ["reference as a number", { reference: 12 }, /reference/],
    ["asset null", { asset: null }, /asset/],
    ["an unknown asset", { asset: "btc" }, /asset/],
    ["an upper-case asset", { asset: "USDT" }, /asset/],
    ['amount "0"', { amount: "0" }, /amount/],
    ['amount "0.0000001" (below the smallest unit)', { amount: "0.0000001" }, /amount/],
    ['amount "-1"', { amount: "-1" }, /amount/],
    ['amount "1e3"', { amount: "1e3" }, /amount/],
    ['amount "1,5"', { amount: "1,5" }, /amount/],
    ['amount "1.1234567"', { amount: "1.1234567" }, /amount/],
    ['amount "1000000000.1"', { amount: "1000000000.1" }, /amount/],
    ['amount ""', { amount: "" }, /amount/],
    ['amount " 1"', { amount: " 1" }, /amount/],
    ['amount "1."', { amount: "1." }, /amount/],
    ['jurisdiction "us"', { jurisdiction: "us" }, /jurisdiction/],
    ['jurisdiction "USA"', { jurisdiction: "USA" }, /jurisdiction/],
    ['jurisdiction "U1"', { jurisdiction: "U1" }, /jurisdiction/],
    ['jurisdiction "XX" (not assigned)', { jurisdiction: "XX" }, /jurisdiction/],
    ["expires_at in the past", { expires_at: new Date(Date.now() - 60_000).toISOString() }, /expires_at/],
    ["expires_at not a date-time", { expires_at: "tomorrow" }, /expires_at/],
    ["expires_at as a date only", { expires_at: "2099-01-01" }, /expires_at/],
    ["expires_at without a time zone", { expires_at: "2099-01-01T00:00:00" }, /expires_at/],
    ["expires_at on an impossible day", { expires_at: "2099-02-30T00:00:00Z" }, /expires_at/],
    ["expires_at on April 31st", { expires_at: "2099-04-31T12:00:00Z" }, /expires_at/],
    ["expires_at at hour 24", { expires_at: "2099-01-01T24:00:00Z" }, /expires_at/],
    ["a reference of 256 characters", { reference: "x".repeat(256) }, /reference/],
  ];

  it.each(bodyCases)("refuses %s", async (_name, overrides, mentions) => {
    const res = await e2e.api.create(a.uuid, a.token, createBody(overrides));
    const error = expectError(res, 400, "VALIDATION_ERROR");
    expect(error.message).toMatch(mentions);
  });

  it.each([
    ["a JSON array", "[]"],
    ["JSON null", "null"],
    ["a JSON string", '"asset"'],
  ])("refuses a body that is %s", async (_name, raw) => {
    const res = await e2e.api.request("POST", intentsPath(a.uuid), {
      token: a.token,
      raw,
      headers: { "content-type": "application/json", "idempotency-key": newKey() },
    });
    expectError(res, 400, "VALIDATION_ERROR");
  });

  it.each([
    ["missing", null],
    ["empty", ""],
    ["65 characters long", "k".repeat(65)],
  ])("refuses an Idempotency-Key that is %s", async (_name, key) => {
    const res = await e2e.api.create(a.uuid, a.token, createBody(), key);
    const error = expectError(res, 400, "IDEMPOTENCY_KEY_INVALID");
    expect(error.message).toMatch(/Idempotency-Key/);
  });

  it("refuses malformed JSON with 400", async () => {
    const res = await e2e.api.request("POST", intentsPath(a.uuid), {
      token: a.token,
      raw: '{"asset": "usdt", "amount": ',
      headers: { "content-type": "application/json", "idempotency-key": newKey() },
    });
    expectError(res, 400, "MALFORMED_JSON");
  });

  it.each([
    ["at the top", (body: string) => body.replace(/}$/, ',"asset":"usdc"}')],
    ["in a nested object", (body: string) => body.replace(/}$/, ',"extra":{"a":1,"a":2}}')],
    ["spelt with an escape", (body: string) => body.replace(/}$/, ',"\\u0061sset":"usdc"}')],
  ])("refuses a body that gives a name twice (%s) with 400 MALFORMED_JSON, where JSON.parse would keep the last", async (_where, twice) => {
    const raw = twice(JSON.stringify(createBody({ asset: "usdt" })));
    const res = await e2e.api.request("POST", intentsPath(a.uuid), {
      token: a.token,
      raw,
      headers: { "content-type": "application/json", "idempotency-key": newKey() },
    });
    expect(expectError(res, 400, "MALFORMED_JSON").message).toMatch(/twice/);
  });

  it("refuses Content-Type text/plain with 415", async () => {
    const res = await e2e.api.request("POST", intentsPath(a.uuid), {
      token: a.token,
      raw: JSON.stringify(createBody()),
      headers: { "content-type": "text/plain", "idempotency-key": newKey() },
    });
    expectError(res, 415);
  });

  it("refuses a body over 64 KiB with 413", async () => {
    const res = await e2e.api.create(a.uuid, a.token, createBody({ reference: "x".repeat(64 * 1024 + 1) }));
    expectError(res, 413, "PAYLOAD_TOO_LARGE");
  });

  it("refuses a chunked body over 64 KiB (no Content-Length) with 413, and the next request still answers", async () => {
    // Sent repeatedly: a connection left half-read after a 413 made a later
    // request on it hang, but only some of the time.
    for (let round = 0; round < 10; round++) {
      const chunk = new TextEncoder().encode("x".repeat(16 * 1024));
      let pulls = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (pulls === 0) controller.enqueue(new TextEncoder().encode('{"asset":"usdt","reference":"'));
          if (pulls >= 8) controller.close();
          else controller.enqueue(chunk);
          pulls++;
        },
      });
      const res = await fetch(`${e2e.platform.apiUrl}${intentsPath(a.uuid)}`, {
        method: "POST",
        headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json", "idempotency-key": newKey() },
        body: stream,
        duplex: "half",
        signal: AbortSignal.timeout(10_000),
      } as RequestInit);
      expectError(gatewayAnswer("POST", intentsPath(a.uuid), res.status, res.headers, await res.text()), 413, "PAYLOAD_TOO_LARGE");
      const next = await e2e.api.request("GET", intentsPath(a.uuid), { token: a.token, timeoutMs: 5_000 });
      expect(next.status).toBe(200);
    }
  });

  it("refuses an unknown query parameter on create", async () => {
    const res = await e2e.api.request("POST", `${intentsPath(a.uuid)}?debug=1`, {
      token: a.token,
      json: createBody(),
      headers: { "idempotency-key": newKey() },
    });
    expect(expectError(res, 400).message).toMatch(/debug/);
  });

  it.each([
    ["U+0000 in reference", '"a\\u0000b"', /U\+0000/],
    ["a lone surrogate in reference", '"a\\ud800"', /lone surrogate/],
  ])("refuses %s with 400 (text PostgreSQL could not store, or would store changed)", async (_name, json, message) => {
    const raw = JSON.stringify(createBody()).replace(/}$/, `,"reference":${json}}`);
    const res = await e2e.api.request("POST", intentsPath(a.uuid), {
      token: a.token,
      raw,
      headers: { "content-type": "application/json", "idempotency-key": newKey() },
    });
    expect(expectError(res, 400, "VALIDATION_ERROR").message).toMatch(message);
  });

  it("refuses a body that is not UTF-8 with 400 MALFORMED_JSON", async () => {
    const body = Buffer.concat([Buffer.from(JSON.stringify(createBody()).replace(/}$/, ',"reference":"caf')), Buffer.from([0xe9]), Buffer.from('"}')]);
    const res = await rawRequest("POST", intentsPath(a.uuid), {
      authorization: `Bearer ${a.token}`, "content-type": "application/json", "idempotency-key": newKey(),
    }, body);
    expect(expectError(res, 400, "MALFORMED_JSON").message).toMatch(/UTF-8/);
  });

  it.each([
    ["charset=iso-8859-1", { "content-type": "application/json; charset=iso-8859-1" }],
    ["charset=utf-16", { "content-type": "application/json; charset=utf-16" }],
    ["Content-Encoding gzip", { "content-type": "application/json", "content-encoding": "gzip" }],
    ["Content-Encoding br", { "content-type": "application/json", "content-encoding": "br" }],
  ])("refuses %s with 415", async (_name, headers) => {
    const res = await e2e.api.request("POST", intentsPath(a.uuid), {
      token: a.token,
      raw: JSON.stringify(createBody()),
      headers: { ...headers, "idempotency-key": newKey() },
    });
    expectError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("accepts charset=utf-8 in any case, quoted or not", async () => {
    for (const type of ["application/json; charset=utf-8", 'application/json; charset="UTF-8"', "application/json;charset=UTF8"]) {
      const res = await e2e.api.request("POST", intentsPath(a.uuid), {
        token: a.token,
        raw: JSON.stringify(createBody()),
        headers: { "content-type": type, "idempotency-key": newKey() },
      });
      expect(res.status, `${type}: ${res.text}`).toBe(201);
      totalBefore += 1;
    }
  });

  it("refuses an Idempotency-Key header sent twice (Node would join the two into one key)", async () => {
    const res = await rawRequest("POST", intentsPath(a.uuid), {
      authorization: `Bearer ${a.token}`, "content-type": "application/json", "idempotency-key": [newKey(), newKey()],
    }, Buffer.from(JSON.stringify(createBody())));
    expect(expectError(res, 400, "IDEMPOTENCY_KEY_INVALID").message).toMatch(/once/);
  });

  it("created nothing for any refused request", async () => {
    expect(await e2e.api.total(a)).toBe(totalBefore);
  });

  it("took no address for any refused request: the next create gets the next index", async () => {
    const res = await e2e.api.create(a.uuid, a.token, createBody());
    expect(res.status).toBe(201);
    expect(Number(ALLOCATION_REFERENCE.exec(res.body.allocation_reference)![1])).toBe(totalBefore);
    totalBefore += 1;
  });
});

describe("create pay-in intent: the rail's minimum", () => {
  let shop: TestMerchant;
  beforeAll(async () => {
    shop = await e2e.operator.merchant({ name: "Small Change" });
  }, 120_000);

  it("refuses an amount below the rail's dust threshold (0.001 by default) with 400 naming the minimum, and stores nothing", async () => {
    const key = newKey();
    for (const [asset, amount, token] of [
      ["usdt", "0.0001", "USDT on BEP20"],
      ["usdt", "0.000999", "USDT on BEP20"],
      ["usdc", "0.0005", "USDC on ERC20"],
    ]) {
      const res = await e2e.api.create(shop.uuid, shop.token, createBody({ asset, amount }), key);
      const error = expectError(res, 400, "VALIDATION_ERROR");
      expect(error.message).toBe(`amount must be at least 0.001 ${token} (smaller transfers are dust and never count)`);
    }
    const list = await e2e.api.list(shop.uuid, shop.token);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    expect(list.body.pagination.total).toBe(0);
    // The key was not kept for the refused payload, and no address was taken:
    // the same key with a payable amount makes the merchant's first intent.
    const ok = await e2e.api.create(shop.uuid, shop.token, createBody({ asset: "usdt", amount: "0.001" }), key);
    expect(ok.status, ok.text).toBe(201);
    expect(ok.headers.get("idempotent-replayed")).toBeNull();
    expect(ok.body.expected_amount).toBe("0.001");
    expect(ok.body.allocation_reference).toBe("m/44'/60'/0'/0/0");
  });

  it("accepts the minimum on either rail", async () => {
    for (const asset of ["usdt", "usdc"]) {
      const res = await e2e.api.create(shop.uuid, shop.token, createBody({ asset, amount: "0.001000" }));
      expect(res.status, res.text).toBe(201);
      expect(res.body.expected_amount).toBe("0.001");
    }
    expect(await e2e.api.total(shop)).toBe(3);
  });
});

describe("idempotency", () => {
  it("replays the same key and payload: 201, the same intent, nothing new", async () => {
    const key = newKey();
    const body = createBody({ reference: "replay-me" });
    const first = await e2e.api.create(a.uuid, a.token, body, key);
    expect(first.status, first.text).toBe(201);
    const total = await e2e.api.total(a);
    const again = await e2e.api.create(a.uuid, a.token, body, key);
    expect(again.status, again.text).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    expect(again.body.intent_uuid).toBe(first.body.intent_uuid);
    expect(again.body.address).toBe(first.body.address);
    expect(await e2e.api.total(a)).toBe(total);
  });

  it("refuses the same key with a different payload: 400 IDEMPOTENCY_KEY_REUSED", async () => {
    const key = newKey();
    const first = await e2e.api.create(a.uuid, a.token, createBody({ amount: "11" }), key);
    expect(first.status, first.text).toBe(201);
    const total = await e2e.api.total(a);
    const res = await e2e.api.create(a.uuid, a.token, createBody({ amount: "12" }), key);
    const error = expectError(res, 400, "IDEMPOTENCY_KEY_REUSED");
    expect(error.message).toMatch(/idempotency.key/i);
    expect(error.message).toMatch(/idempotency key was reused with a different payload/i);
    expect(error.message).toMatch(/different payload/i);
    expect(await e2e.api.total(a)).toBe(total);
  });

  it("keeps keys per merchant: another merchant's same key makes its own intent", async () => {
    const key = newKey();
    const body = createBody();
    const fromA = await e2e.api.create(a.uuid, a.token, body, key);
    const fromB = await e2e.api.create(b.uuid, b.token, body, key);
    expect(fromA.status).toBe(201);
    expect(fromB.status).toBe(201);
    expect(fromB.body.intent_uuid).not.toBe(fromA.body.intent_uuid);
    expect(fromB.body.address).not.toBe(fromA.body.address);
  });
});

describe("authentication (401)", () => {
  const cases: [string, Record<string, string>][] = [
    ["no Authorization header", {}],
    ["a garbage bearer token", { authorization: "Bearer garbage" }],
    ["a non-bearer scheme", { authorization: "Basic dXNlcjpwYXNz" }],
    ["an empty bearer", { authorization: "Bearer " }],
  ];

  it.each(cases)("refuses %s on create, list and read", async (_name, headers) => {
    const create = await e2e.api.request("POST", intentsPath(a.uuid), { json: createBody(), headers: { ...headers, "idempotency-key": newKey() } });
    expectError(create, 401);
    expectError(await e2e.api.request("GET", intentsPath(a.uuid), { headers }), 401);
    expectError(await e2e.api.request("GET", `${intentsPath(a.uuid)}/${crypto.randomUUID()}`, { headers }), 401);
  });

  it("refuses a well-formed machine token that no credential has", async () => {
    const token = unknownMachineToken();
    e2e.operator.tokens.push(token);
    expectError(await e2e.api.create(a.uuid, token, createBody()), 401, "AUTH_INVALID_CREDENTIALS");
    expectError(await e2e.api.list(a.uuid, token), 401, "AUTH_INVALID_CREDENTIALS");
    expectError(await e2e.api.read(a.uuid, token, crypto.randomUUID()), 401, "AUTH_INVALID_CREDENTIALS");
  });

  it("names the Bearer scheme in WWW-Authenticate on every 401", async () => {
    for (const headers of [{}, { authorization: "Bearer garbage" }] as Record<string, string>[]) {
      const res = await e2e.api.request("GET", intentsPath(a.uuid), { headers });
      expectError(res, 401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
    }
  });

  it("refuses two Authorization headers with 400 AUTH_AMBIGUOUS, even when the first is valid", async () => {
    const res = await rawRequest("GET", intentsPath(a.uuid), { authorization: [`Bearer ${a.token}`, `Bearer ${b.token}`] });
    expectError(res, 400, "AUTH_AMBIGUOUS");
  });

  it("answers 401 before looking at the body", async () => {
    const res = await e2e.api.create(a.uuid, undefined, { nonsense: true }, null);
    expectError(res, 401);
  });
});

describe("authorization (403)", () => {
  /** Another merchant, a merchant that does not exist, a malformed uuid. */
  const others = () => [b.uuid, crypto.randomUUID(), "not-a-uuid"];

  it("refuses create, list and read on any merchant path but the credential's own", async () => {
    for (const uuid of others()) {
      expectError(await e2e.api.create(uuid, a.token, createBody()), 403, "FORBIDDEN");
      expectError(await e2e.api.list(uuid, a.token), 403, "FORBIDDEN");
      expectError(await e2e.api.read(uuid, a.token, crypto.randomUUID()), 403, "FORBIDDEN");
    }
  });

  it("answers 403 before validating the body, the key or the query", async () => {
    const before = await e2e.api.total(b);
    expectError(await e2e.api.create(b.uuid, a.token, { rail: "bep20", amount: 5 }), 403, "FORBIDDEN");
    expectError(await e2e.api.create(b.uuid, a.token, createBody(), null), 403, "FORBIDDEN");
    expectError(await e2e.api.create("not-a-uuid", a.token, { bad: true }, "k".repeat(65)), 403, "FORBIDDEN");
    expectError(await e2e.api.list(b.uuid, a.token, "limit=0&bogus=1"), 403, "FORBIDDEN");
    const wrongType = await e2e.api.request("POST", intentsPath(b.uuid), {
      token: a.token,
      raw: "not json",
      headers: { "content-type": "text/plain", "idempotency-key": newKey() },
    });
    expectError(wrongType, 403, "FORBIDDEN");
    expect(await e2e.api.total(b)).toBe(before);
  });

  it("refuses a merchant's credential on the path of the intent's merchant", async () => {
    const created = await e2e.api.create(a.uuid, a.token, createBody());
    expect(created.status).toBe(201);
    expectError(await e2e.api.read(a.uuid, b.token, created.body.intent_uuid), 403);
  });
});

describe("merchant preconditions (409)", () => {
  it("refuses to create for a deactivated merchant, but still replays earlier creates", async () => {
    const shop = await e2e.operator.merchant({ name: "Soon Inactive" });
    const key = newKey();
    const body = createBody();
    const first = await e2e.api.create(shop.uuid, shop.token, body, key);
    expect(first.status, first.text).toBe(201);
    await e2e.operator.transition(shop.uuid, merchantsV1.MerchantTransition.DEACTIVATE);
    // Authentication is cached for up to 4 s; merchant status is not.
    const res = await e2e.api.create(shop.uuid, shop.token, createBody());
    const error = expectError(res, 409, "MERCHANT_NOT_ACTIVE");
    expect(error.message).toMatch(/inactive|not active/i);
    const replay = await e2e.api.create(shop.uuid, shop.token, body, key);
    expect(replay.status).toBe(201);
    expect(replay.body.intent_uuid).toBe(first.body.intent_uuid);
    expect(await e2e.api.total(shop)).toBe(1);
  });

  it("refuses to create for a merchant that was never activated", async () => {
    const shop = await e2e.operator.merchant({ name: "Never Active", activate: false });
    expectError(await e2e.api.create(shop.uuid, shop.token, createBody()), 409, "MERCHANT_NOT_ACTIVE");
    expect(await e2e.api.total(shop)).toBe(0);
  });

  it("refuses with 403 where a rule denies crypto.payin, or the merchant's payin policy does not allow it", async () => {
    await e2e.operator.merchants.createRule({ capability: "crypto.payin", jurisdiction: "NL", effect: "deny" });
    const shop = await e2e.operator.merchant({ name: "Rules" });
    const denied = expectError(await e2e.api.create(shop.uuid, shop.token, createBody({ jurisdiction: "NL" })), 403, "PAYIN_NOT_ALLOWED");
    expect(denied.message).toMatch(/rule/);
    expectError(await e2e.api.create(shop.uuid, shop.token, createBody({ jurisdiction: "PL" })), 403, "PAYIN_NOT_ALLOWED");
    await e2e.operator.merchants.createPolicy({ merchantUuid: shop.uuid, scope: "payin", effect: "deny" });
    expectError(await e2e.api.create(shop.uuid, shop.token, createBody({ jurisdiction: "DE" })), 403, "PAYIN_NOT_ALLOWED");
    await e2e.operator.merchants.createPolicy({ merchantUuid: shop.uuid, scope: "payin", effect: "allow" });
    expect((await e2e.api.create(shop.uuid, shop.token, createBody({ jurisdiction: "DE" }))).status).toBe(201);
    expect(await e2e.api.total(shop)).toBe(1);
  });

  it("applies a change to the merchant from the very next create, though payins keeps merchants' pay-in contexts", async () => {
    const { MerchantTransition } = merchantsV1;
    const shop = await e2e.operator.merchant({ name: "Changing" });
    const create = (jurisdiction = "DE") => e2e.api.create(shop.uuid, shop.token, createBody({ jurisdiction }));
    // Each change is made straight at the merchants service (the shortest path
    // from its commit to the next create), and the create follows its answer.
    // (Announcements usually arrive well before such a create; that a create
    // never overtakes one is proven at the listener, in the merchants tests.)
    for (let round = 0; round < 10; round++) {
      expect((await create()).status).toBe(201);
      await e2e.operator.transition(shop.uuid, MerchantTransition.SUSPEND);
      expectError(await create(), 409, "MERCHANT_NOT_ACTIVE");
      await e2e.operator.transition(shop.uuid, MerchantTransition.ACTIVATE);
    }
    for (let round = 0; round < 5; round++) {
      expect((await create()).status).toBe(201);
      await e2e.operator.merchants.createPolicy({ merchantUuid: shop.uuid, scope: "payin", effect: "deny" });
      expectError(await create(), 403, "PAYIN_NOT_ALLOWED");
      await e2e.operator.merchants.createPolicy({ merchantUuid: shop.uuid, scope: "payin", effect: "allow" });
    }
    // A rule concerns every merchant: a jurisdiction no other test here uses (the merchant's provider bound there too).
    await e2e.operator.merchants.createRule({ capability: "crypto.payin", jurisdiction: "SE", effect: "allow" });
    await e2e.operator.connectProvider(shop.uuid, ["SE"]);
    for (let round = 0; round < 5; round++) {
      expect((await create("SE")).status).toBe(201);
      await e2e.operator.merchants.createRule({ capability: "crypto.payin", jurisdiction: "SE", effect: "deny" });
      expectError(await create("SE"), 403, "PAYIN_NOT_ALLOWED");
      await e2e.operator.merchants.createRule({ capability: "crypto.payin", jurisdiction: "SE", effect: "allow" });
    }
    expect((await create("SE")).status).toBe(201);
    expect(await e2e.api.total(shop)).toBe(21);
  });

  it("answers a merchant's creates from payins' memory while merchants is down (within the cache's lifetime), and not another's", async () => {
    const shop = await e2e.operator.merchant({ name: "Kept" });
    const other = await e2e.operator.merchant({ name: "Not kept" });
    const create = () => e2e.api.create(shop.uuid, shop.token, createBody());
    expect((await create()).status).toBe(201);
    await e2e.platform.stop("merchants");
    try {
      // Kept (for up to a minute here): no call to merchants, whose feed is down
      // with it, so answers are used no longer than the cache's lifetime.
      for (let i = 0; i < 3; i++) expect((await create()).status).toBe(201);
      // Nothing kept for this one: payins asks merchants, which is down.
      expectError(await e2e.api.create(other.uuid, other.token, createBody()), 503);
    } finally {
      await e2e.platform.start("merchants");
    }
    expect((await create()).status).toBe(201);
    expect(await e2e.api.total(shop)).toBe(5);
  });

  it("refuses to create for an active merchant without a wallet", async () => {
    const shop = await e2e.operator.merchant({ name: "No Wallet", xpub: null });
    const res = await e2e.api.create(shop.uuid, shop.token, createBody());
    const error = expectError(res, 409, "WALLET_NOT_READY");
    expect(error.message).not.toMatch(/sql|select|insert|stack|127\.0\.0\.1/i);
    expect(await e2e.api.total(shop)).toBe(0);
    // The key was not consumed by the failure: once a wallet exists, it works.
    const key = newKey();
    expectError(await e2e.api.create(shop.uuid, shop.token, createBody(), key), 409);
    await e2e.operator.allocation.setWallet({ merchantUuid: shop.uuid, xpub: randomXpub() });
    const ok = await e2e.api.create(shop.uuid, shop.token, createBody(), key);
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.allocation_reference).toBe("m/44'/60'/0'/0/0");
  });

  it("refuses with 409 PAYIN_NOT_READY, naming provider_not_ready, a merchant that readiness reports provider_not_ready for want of a connected provider", async () => {
    const shop = await e2e.operator.merchant({ name: "No Provider", provider: false });
    const readiness = async () =>
      (await e2e.operator.allocation.getReadiness({ merchantUuid: shop.uuid })).pairs.map((p) => [p.asset, p.rail, p.reasons]);
    // Readiness: everything is configured but the provider (this platform's observer watches no chain either).
    expect(await readiness()).toEqual([
      ["usdt", "bep20", ["provider_not_ready"]],
      ["usdc", "erc20", ["provider_not_ready"]],
    ]);
    const usdt = expectError(await e2e.api.create(shop.uuid, shop.token, createBody({ asset: "usdt" })), 409, "PAYIN_NOT_READY");
    expect(usdt.message).toBe("the merchant is not ready for usdt on bep20 in DE: provider_not_ready");
    const usdc = expectError(await e2e.api.create(shop.uuid, shop.token, createBody({ asset: "usdc" })), 409, "PAYIN_NOT_READY");
    expect(usdc.message).toBe("the merchant is not ready for usdc on erc20 in DE: provider_not_ready");
    // A binding alone is not enough; a connection to another provider neither.
    await e2e.operator.merchants.ensureProviderBinding({ merchantUuid: shop.uuid, providerUuid: EVM_RPC_PROVIDER_UUID, capability: "crypto.payin", jurisdiction: "FR" });
    const { provider: other } = await e2e.operator.merchants.createProvider({ name: `other-${newKey()}` });
    await e2e.operator.merchants.ensureProviderConnection({ merchantUuid: shop.uuid, providerUuid: other!.providerUuid });
    const key = newKey();
    expectError(await e2e.api.create(shop.uuid, shop.token, createBody(), key), 409, "PAYIN_NOT_READY");
    expect(await e2e.api.total(shop)).toBe(0);
    // Connected to the provider bound for FR: a binding's jurisdiction is where its provider serves the merchant's
    // pay-ins, so a pay-in sold in DE (the body's jurisdiction) is still refused, one in FR accepted. The very next
    // create sees each change (payins keeps contexts here, and drops them on the announcement).
    await e2e.operator.merchants.ensureProviderConnection({ merchantUuid: shop.uuid, providerUuid: EVM_RPC_PROVIDER_UUID });
    const de = expectError(await e2e.api.create(shop.uuid, shop.token, createBody(), key), 409, "PAYIN_NOT_READY");
    expect(de.message).toBe("the merchant is not ready for usdt on bep20 in DE: provider_not_ready");
    expect(await e2e.api.total(shop)).toBe(0);
    // With the key the refusals left free and the wallet's first address (a refusal takes none).
    const fr = await e2e.api.create(shop.uuid, shop.token, createBody({ jurisdiction: "FR" }), key);
    expect(fr.status, fr.text).toBe(201);
    expect(fr.body.allocation_reference).toBe("m/44'/60'/0'/0/0");
    // Bound for DE as well: accepted there too.
    await e2e.operator.merchants.ensureProviderBinding({ merchantUuid: shop.uuid, providerUuid: EVM_RPC_PROVIDER_UUID, capability: "crypto.payin", jurisdiction: "DE" });
    const ok = await e2e.api.create(shop.uuid, shop.token, createBody(), newKey());
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.allocation_reference).toBe("m/44'/60'/0'/0/1");
    // Readiness still says provider_not_ready: no rail is observed here. A lagging observer is transient and
    // refuses no create over the API (the observer catches up from its cursor); it only makes the pair not
    // Ready (for the hosted checkout).
    expect(await readiness()).toEqual([
      ["usdt", "bep20", ["provider_not_ready"]],
      ["usdc", "erc20", ["provider_not_ready"]],
    ]);
    await setObserverCursors(e2e.platform, { bep20: new Date(), erc20: new Date() });
    expect(await readiness()).toEqual([
      ["usdt", "bep20", []],
      ["usdc", "erc20", []],
    ]);
    await setObserverCursors(e2e.platform, { bep20: null, erc20: null });
  });

  it("answers readiness in a jurisdiction with exactly what a create there is refused for: its rule and its provider binding count", async () => {
    // Rails observed just now, so readiness has nothing transient to add to the configuration a create decides on.
    await setObserverCursors(e2e.platform, { bep20: new Date(), erc20: new Date() });
    try {
      // Rules allow DE and FR; none allows US or PL. The merchant's provider is bound for FR and US only.
      const shop = await e2e.operator.merchant({ name: "Jurisdictions", provider: false });
      await e2e.operator.connectProvider(shop.uuid, ["FR", "US"]);
      const cases: [string, string[], number, string | null, string | RegExp][] = [
        ["FR", [], 201, null, ""],
        ["DE", ["provider_not_ready"], 409, "PAYIN_NOT_READY", "the merchant is not ready for usdt on bep20 in DE: provider_not_ready"],
        ["US", ["payin_not_allowed"], 403, "PAYIN_NOT_ALLOWED", "no platform rule allows crypto.payin in US"],
        ["PL", ["payin_not_allowed", "provider_not_ready"], 403, "PAYIN_NOT_ALLOWED", "no platform rule allows crypto.payin in PL"],
      ];
      let created = 0;
      for (const [jurisdiction, reasons, status, code, message] of cases) {
        const readiness = await e2e.operator.allocation.getReadiness({ merchantUuid: shop.uuid, jurisdiction });
        expect(readiness.pairs.map((p) => [p.asset, p.rail, p.ready, p.reasons]), jurisdiction).toEqual([
          ["usdt", "bep20", reasons.length === 0, reasons],
          ["usdc", "erc20", reasons.length === 0, reasons],
        ]);
        const res = await e2e.api.create(shop.uuid, shop.token, createBody({ jurisdiction }));
        if (code === null) {
          expect(res.status, res.text).toBe(status);
          created++;
        } else {
          expect(expectError(res, status, code).message, jurisdiction).toBe(message);
        }
      }
      expect(await e2e.api.total(shop)).toBe(created);
      // Merchant-wide (no jurisdiction): no rule counts, and a provider bound somewhere is enough.
      expect((await e2e.operator.allocation.getReadiness({ merchantUuid: shop.uuid })).pairs.map((p) => p.reasons)).toEqual([[], []]);
    } finally {
      await setObserverCursors(e2e.platform, { bep20: null, erc20: null });
    }
  });
});

describe("read pay-in intent", () => {
  it("takes path UUIDs in any letter case and the Bearer scheme in any case", async () => {
    const created = await e2e.api.create(a.uuid, a.token, createBody());
    expect(created.status).toBe(201);
    const upper = await e2e.api.read(a.uuid.toUpperCase(), a.token, created.body.intent_uuid.toUpperCase());
    expect(upper.status, upper.text).toBe(200);
    expect(upper.body.intent_uuid).toBe(created.body.intent_uuid);
    expect(upper.body.merchant_uuid).toBe(a.uuid);
    expect((await e2e.api.list(a.uuid.toUpperCase(), a.token)).status).toBe(200);
    const lowerScheme = await e2e.api.request("GET", `${intentsPath(a.uuid)}/${created.body.intent_uuid}`, { headers: { authorization: `bearer ${a.token}` } });
    expect(lowerScheme.status, lowerScheme.text).toBe(200);
    // Another merchant's path is still refused, whatever its case.
    expectError(await e2e.api.read(b.uuid.toUpperCase(), a.token, created.body.intent_uuid), 403);
  });

  it("answers 200 with exactly the read fields", async () => {
    const expiresAt = inFuture(90 * 60_000);
    const created = await e2e.api.create(a.uuid, a.token, createBody({ asset: "usdc", amount: "99.990", expires_at: expiresAt, reference: "inv-77" }));
    expect(created.status).toBe(201);
    const res = await e2e.api.read(a.uuid, a.token, created.body.intent_uuid);
    expect(res.status, res.text).toBe(200);
    expectKeys(res.body, READ_KEYS);
    expect(res.body).toMatchObject({
      intent_uuid: created.body.intent_uuid,
      merchant_uuid: a.uuid,
      status: "created",
      asset: "usdc",
      rail: "erc20",
      expected_amount: "99.99",
      address: created.body.address,
      reference: "inv-77",
      expires_at: expiresAt,
    });
    expect(res.body.created_at).toMatch(ISO_UTC);
    expect(res.body.updated_at).toMatch(ISO_UTC);
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(res.body.created_at));
    expect(Math.abs(Date.parse(res.body.created_at) - Date.now())).toBeLessThan(60_000);
  });

  it("answers reference null when none was given", async () => {
    const created = await e2e.api.create(a.uuid, a.token, createBody());
    const res = await e2e.api.read(a.uuid, a.token, created.body.intent_uuid);
    expect(res.status).toBe(200);
    expect(res.body.reference).toBeNull();
  });

  it("answers 404 for a missing intent", async () => {
    expectError(await e2e.api.read(a.uuid, a.token, crypto.randomUUID()), 404);
  });

  it("answers 404 for another merchant's intent read on one's own path", async () => {
    const ofA = await e2e.api.create(a.uuid, a.token, createBody());
    expect(ofA.status).toBe(201);
    const res = await e2e.api.read(b.uuid, b.token, ofA.body.intent_uuid);
    const error = expectError(res, 404);
    const missing = expectError(await e2e.api.read(b.uuid, b.token, crypto.randomUUID()), 404);
    // Indistinguishable from a missing one.
    expect(error.code).toBe(missing.code);
    expect(error.message).toBe(missing.message);
  });

  it.each(["not-a-uuid", "12345", "ZZZZZZZZ-0000-7000-8000-000000000000"])("answers 404 for the malformed intent uuid %s", async (intent) => {
    expectError(await e2e.api.read(a.uuid, a.token, intent), 404);
  });

  it("refuses query parameters on read", async () => {
    const created = await e2e.api.create(a.uuid, a.token, createBody());
    const res = await e2e.api.request("GET", `${intentsPath(a.uuid)}/${created.body.intent_uuid}?expand=all`, { token: a.token });
    expectError(res, 400);
  });
});

describe("list pay-in intents", () => {
  let shop: TestMerchant;
  /** Intent uuids in creation order: 15 usdt, then 10 usdc, interleaved. */
  const created: { uuid: string; asset: string }[] = [];

  beforeAll(async () => {
    shop = await e2e.operator.merchant({ name: "List Shop" });
    for (let i = 0; i < 25; i++) {
      const asset = i % 5 < 3 ? "usdt" : "usdc";
      const res = await e2e.api.create(shop.uuid, shop.token, createBody({ asset, amount: `${i + 1}.25`, reference: `ref-${i}` }));
      expect(res.status, res.text).toBe(201);
      created.push({ uuid: res.body.intent_uuid, asset });
    }
  }, 120_000);

  it("answers the envelope with the default limit of 20, newest first", async () => {
    const res = await e2e.api.list(shop.uuid, shop.token);
    expect(res.status, res.text).toBe(200);
    expectKeys(res.body, ["data", "pagination"]);
    expect(res.body.pagination).toEqual({ total: 25, limit: 20, offset: 0 });
    for (const n of Object.values(res.body.pagination)) expect(Number.isInteger(n)).toBe(true);
    expect(res.body.data).toHaveLength(20);
    const newestFirst = created.map((c) => c.uuid).reverse();
    expect(res.body.data.map((i: { intent_uuid: string }) => i.intent_uuid)).toEqual(newestFirst.slice(0, 20));
  });

  it("answers items with exactly the list fields", async () => {
    const res = await e2e.api.list(shop.uuid, shop.token, "limit=1");
    expect(res.body.data).toHaveLength(1);
    const item = res.body.data[0];
    expectKeys(item, LIST_ITEM_KEYS);
    expect(item).toMatchObject({ intent_uuid: created.at(-1)!.uuid, status: "created", asset: "usdc", rail: "erc20", expected_amount: "25.25", reference: "ref-24" });
    expect(item.created_at).toMatch(ISO_UTC);
    expect(item.expires_at).toMatch(ISO_UTC);
  });

  it("pages with limit and offset", async () => {
    const res = await e2e.api.list(shop.uuid, shop.token, "limit=10&offset=20");
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ total: 25, limit: 10, offset: 20 });
    expect(res.body.data.map((i: { intent_uuid: string }) => i.intent_uuid)).toEqual(created.slice(0, 5).map((c) => c.uuid).reverse());
    const all = await e2e.api.list(shop.uuid, shop.token, "limit=100");
    expect(all.body.data).toHaveLength(25);
    expect(all.body.pagination.limit).toBe(100);
  });

  it("answers an empty page with the right total past the end", async () => {
    const res = await e2e.api.list(shop.uuid, shop.token, "offset=1000");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], pagination: { total: 25, limit: 20, offset: 1000 } });
    // Any whole number ≥ 0: past the services' 32-bit offsets too, and with leading zeros.
    for (const [query, offset] of [["offset=4294967296", 4294967296], ["offset=9007199254740991", 9007199254740991], ["offset=000000000000002", 2]] as const) {
      const far = await e2e.api.list(shop.uuid, shop.token, `${query}&limit=100`);
      expect(far.status).toBe(200);
      expect(far.body.pagination).toEqual({ total: 25, limit: 100, offset });
      expect(far.body.data).toHaveLength(offset === 2 ? 23 : 0);
    }
  });

  it("filters by status", async () => {
    const createdOnes = await e2e.api.list(shop.uuid, shop.token, "status=created&limit=100");
    expect(createdOnes.body.pagination.total).toBe(25);
    expect(createdOnes.body.data.every((i: { status: string }) => i.status === "created")).toBe(true);
    for (const status of ["paid", "awaiting_payment"]) {
      const res = await e2e.api.list(shop.uuid, shop.token, `status=${status}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: [], pagination: { total: 0, limit: 20, offset: 0 } });
    }
  });

  it("filters by asset", async () => {
    const usdc = await e2e.api.list(shop.uuid, shop.token, "asset=usdc&limit=100");
    expect(usdc.status).toBe(200);
    expect(usdc.body.pagination.total).toBe(10);
    expect(usdc.body.data.map((i: { intent_uuid: string }) => i.intent_uuid)).toEqual(
      created.filter((c) => c.asset === "usdc").map((c) => c.uuid).reverse(),
    );
    const usdt = await e2e.api.list(shop.uuid, shop.token, "asset=usdt&status=created&limit=5");
    expect(usdt.body.pagination).toEqual({ total: 15, limit: 5, offset: 0 });
    expect(usdt.body.data.every((i: { asset: string; rail: string }) => i.asset === "usdt" && i.rail === "bep20")).toBe(true);
  });

  it.each([
    ["limit=0", /limit/],
    ["limit=101", /limit/],
    ["limit=abc", /limit/],
    ["limit=1.5", /limit/],
    ["limit=", /limit/],
    ["offset=-1", /offset/],
    ["offset=x", /offset/],
    ["offset=1e3", /offset/],
    ["offset=9007199254740992", /offset/],
    ["status=expired", /status/],
    ["status=CREATED", /status/],
    ["asset=btc", /asset/],
    ["asset=USDT", /asset/],
    ["sort=asc", /sort/],
    ["limit=5&limit=6", /limit/],
  ])("refuses %s with 400", async (query, mentions) => {
    const res = await e2e.api.list(shop.uuid, shop.token, query);
    expect(expectError(res, 400, "VALIDATION_ERROR").message).toMatch(mentions);
  });

  it("lists nothing of other merchants", async () => {
    const fresh = await e2e.operator.merchant({ name: "Empty Shop" });
    const res = await e2e.api.list(fresh.uuid, fresh.token);
    expect(res.body).toEqual({ data: [], pagination: { total: 0, limit: 20, offset: 0 } });
  });
});

describe("secrets", () => {
  it("never writes a machine token to the platform's logs", async () => {
    expect(e2e.operator.tokens.length).toBeGreaterThanOrEqual(5);
    await expectSecretsAbsentFromLogs(e2e.log, [...e2e.operator.tokens, e2e.platform.serviceToken]);
  });
});
