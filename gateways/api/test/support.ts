/**
 * Helpers shared by the gateway's end-to-end tests: a real platform per test
 * file, merchants provisioned over the services' RPC APIs, and HTTP calls to the
 * API gateway with checks every response must pass.
 */
import { randomBytes } from "node:crypto";
import { open, type FileHandle } from "node:fs/promises";
import http from "node:http";
import { secp256k1 } from "@noble/curves/secp256k1";
import { keccak_256 } from "@noble/hashes/sha3";
import { HDKey } from "@scure/bip32";
import { Operator, startTestPlatform, totpSecretOf, type TestMerchant, type TestPlatform } from "@payin/testing";

export {
  accountXpub, ACCOUNT_PATH, EVM_RPC_PROVIDER_UUID, Operator, PAYIN_JURISDICTIONS, randomXpub, setObserverCursors, TEST_MNEMONIC, testMnemonicXpub, type TestMerchant,
} from "@payin/testing";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { answersSinceLastCheck, recordAnswer, undocumentedAnswers } from "./documented-answers.js";

/** What every end-to-end test file works with; filled in by `usePlatform`'s `beforeAll` hook. */
export interface E2e {
  platform: TestPlatform;
  /** The platform's log, read from the start of the file's tests. */
  log: PlatformLog;
  operator: Operator;
  api: Api;
}

/**
 * A real platform for the test file: started (with `env` on top of the test
 * defaults) before its tests, stopped after them. Register it before any other
 * `beforeAll` hook that uses it. After each test, and after the file, every
 * answer of the gateway must be one the OpenAPI document gives for its
 * operation (expectAnswersDocumented).
 */
export function usePlatform(options: { env?: Record<string, string> } = {}): E2e {
  const e2e = {} as E2e;
  expectAnswersDocumented();
  beforeAll(async () => {
    e2e.platform = await startTestPlatform(options);
    e2e.log = await PlatformLog.attach(e2e.platform);
    e2e.operator = new Operator(e2e.platform);
    e2e.api = new Api(e2e.platform.apiUrl);
  }, 180_000);
  afterAll(async () => {
    await e2e.platform?.stopAll();
    await e2e.log?.close();
  }, 60_000);
  return e2e;
}

/**
 * After each test (failing that test) and after the file's tests (for what its
 * hooks asked): every answer the gateway gave through gatewayAnswer (Api,
 * HumanApi and the tests' own requests) is one the OpenAPI document gives for
 * its operation — a documented status, content type, headers and a body valid
 * against the response schema (documented-answers.ts).
 */
export function expectAnswersDocumented(): void {
  const check = () => {
    expect(undocumentedAnswers(answersSinceLastCheck()), "answers of the gateway that its OpenAPI document does not give").toEqual([]);
  };
  afterEach(check);
  afterAll(check);
}

/** First two addresses of the test mnemonic (m/44'/60'/0'/0/0 and /1). */
export const TEST_MNEMONIC_ADDRESSES = ["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"];

export const CREATE_KEYS = ["address", "allocation_reference", "asset", "expected_amount", "expires_at", "intent_uuid", "rail", "status"];
export const READ_KEYS = [
  "address", "asset", "created_at", "expected_amount", "expires_at", "intent_uuid", "merchant_uuid", "rail", "reference", "status", "updated_at",
];
export const LIST_ITEM_KEYS = ["asset", "created_at", "expected_amount", "expires_at", "intent_uuid", "reference", "rail", "status"];

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
export const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
export const ALLOCATION_REFERENCE = /^m\/44'\/60'\/0'\/0\/(\d+)$/;
export const MACHINE_TOKEN = /^mpk_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/;

/** EIP-55 address of `xpub/0/index`, computed here independently of the platform. */
export function deriveAddress(xpub: string, index: number): string {
  const child = HDKey.fromExtendedKey(xpub).deriveChild(0).deriveChild(index);
  const uncompressed = secp256k1.ProjectivePoint.fromHex(child.publicKey!).toRawBytes(false);
  const hex = Buffer.from(keccak_256(uncompressed.subarray(1)).subarray(12)).toString("hex");
  const hash = Buffer.from(keccak_256(hex)).toString("hex");
  let out = "0x";
  for (let i = 0; i < hex.length; i++) out += parseInt(hash[i]!, 16) >= 8 ? hex[i]!.toUpperCase() : hex[i];
  return out;
}

/** A well-formed machine token that no credential has. */
export function unknownMachineToken(): string {
  return `mpk_${randomBytes(16).toString("hex")}${randomBytes(32).toString("base64url")}`;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON body (undefined when the body is empty or not JSON). */
  body: any;
  text: string;
}

export interface RequestOptions {
  token?: string;
  /** Serialized as JSON with Content-Type application/json. */
  json?: unknown;
  /** Sent as-is (set Content-Type yourself). */
  raw?: string;
  headers?: Record<string, string>;
  /** Milliseconds before the request is aborted. */
  timeoutMs?: number;
}

/** HTTP client for the API gateway. Every response must carry x-request-id. */
export class Api {
  constructor(readonly baseUrl: string) {}

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.raw;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    return gatewayAnswer(method, path, res.status, res.headers, await res.text());
  }

  /** POST /api/v1/merchants/{uuid}/pay-in-intents; `key` null sends no Idempotency-Key. */
  create(merchantUuid: string, token: string | undefined, body: unknown, key: string | null = newKey(), extra: Omit<RequestOptions, "token" | "json"> = {}) {
    const headers: Record<string, string> = { ...extra.headers };
    if (key !== null) headers["idempotency-key"] = key;
    return this.request("POST", intentsPath(merchantUuid), { ...extra, token, json: body, headers });
  }

  list(merchantUuid: string, token: string | undefined, query = "") {
    return this.request("GET", `${intentsPath(merchantUuid)}${query ? `?${query}` : ""}`, { token });
  }

  read(merchantUuid: string, token: string | undefined, intentUuid: string) {
    return this.request("GET", `${intentsPath(merchantUuid)}/${intentUuid}`, { token });
  }

  /** pagination.total of a merchant's list. */
  async total(merchant: TestMerchant, query = ""): Promise<number> {
    const res = await this.list(merchant.uuid, merchant.token, query);
    expect(res.status).toBe(200);
    return res.body.pagination.total as number;
  }
}

/**
 * An answer of the gateway as the tests see it, recorded for the check against
 * the OpenAPI document (expectAnswersDocumented), its x-request-id checked and
 * its JSON body parsed. The clients here give every answer through it; a test
 * that sends a request of its own (headers as sent, a streamed body) gives that
 * answer through it too, so no answer of an operation escapes the check.
 */
export function gatewayAnswer(method: string, path: string, status: number, headers: Headers, text: string): ApiResponse {
  const recorded: Record<string, string> = Object.fromEntries(headers);
  // Headers lists each Set-Cookie apart; the record joins them as it does any repeated header.
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) recorded["set-cookie"] = cookies.join(", ");
  recordAnswer(method, path, status, recorded, text);
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  expect(headers.get("x-request-id"), `x-request-id on ${method} ${path} (${status})`).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  return { status, headers, body: parsed, text };
}

/** Node's response headers as a Headers, every value of a repeated header kept. */
export function headersOf(incoming: http.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  }
  return headers;
}

export function intentsPath(merchantUuid: string): string {
  return `/api/v1/merchants/${merchantUuid}/pay-in-intents`;
}

export function newKey(): string {
  return `key-${randomBytes(12).toString("hex")}`;
}

/** An ISO 8601 UTC instant `ms` from now (millisecond precision, as stored). */
export function inFuture(ms = 3_600_000): string {
  return new Date(Date.now() + ms).toISOString();
}

/** A valid create body; `overrides` replace or (as undefined) remove fields. */
export function createBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = { asset: "usdt", amount: "10.50", jurisdiction: "DE", expires_at: inFuture(), ...overrides };
  for (const [k, v] of Object.entries(overrides)) if (v === undefined) delete body[k];
  return body;
}

/** Asserts the error envelope: exactly {error:{code,message,request_id}}, all non-empty strings. */
export function expectError(res: ApiResponse, status: number, code?: string | RegExp): { code: string; message: string; request_id: string } {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type") ?? "").toMatch(/^application\/json/);
  expect(Object.keys(res.body ?? {})).toEqual(["error"]);
  const error = res.body.error;
  expect(Object.keys(error).sort()).toEqual(["code", "message", "request_id"]);
  for (const field of ["code", "message", "request_id"]) {
    expect(typeof error[field], field).toBe("string");
    expect(error[field].length, field).toBeGreaterThan(0);
  }
  expect(error.code).toMatch(/^[A-Z][A-Z0-9_]*$/);
  expect(error.request_id).toBe(res.headers.get("x-request-id"));
  if (typeof code === "string") expect(error.code).toBe(code);
  else if (code) expect(error.code).toMatch(code);
  return error;
}

/** Asserts a body has exactly `keys`. */
export function expectKeys(value: object, keys: string[]): void {
  expect(Object.keys(value).sort()).toEqual([...keys].sort());
}

/** Runs `jobs` with at most `concurrency` in flight, keeping result order. */
export async function pool<T>(jobs: (() => Promise<T>)[], concurrency: number): Promise<T[]> {
  const results = new Array<T>(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  return results;
}

/**
 * What the platform's processes write: the log file, read through a handle
 * opened at once (the run's log directory is shared, and a test run started
 * meanwhile, by anyone, empties it; an open handle still reads the file), and a
 * copy of every process's output taken in this process as it is written.
 */
export class PlatformLog {
  private captured = "";
  private readonly hooked = new WeakSet<object>();

  private constructor(
    private readonly platform: TestPlatform,
    private readonly file: FileHandle | null,
  ) {
    this.hook();
  }

  static async attach(platform: TestPlatform): Promise<PlatformLog> {
    const file = await open(platform.logFile, "r").catch(() => null);
    return new PlatformLog(platform, file);
  }

  /** Starts copying the output of processes not seen yet (call after a restart). */
  hook(): void {
    for (const proc of this.platform.processes.values()) {
      for (const stream of [proc.child.stdout, proc.child.stderr]) {
        if (!stream || this.hooked.has(stream)) continue;
        this.hooked.add(stream);
        stream.on("data", (chunk: Buffer) => {
          this.captured += chunk.toString("utf8");
        });
      }
    }
  }

  /** Everything the file and the copy hold. */
  async text(): Promise<{ file: string | null; captured: string }> {
    if (!this.file) return { file: null, captured: this.captured };
    const { size } = await this.file.stat();
    const buffer = Buffer.alloc(size);
    await this.file.read(buffer, 0, size, 0);
    return { file: buffer.toString("utf8"), captured: this.captured };
  }

  /** Messages of the error lines written so far (for failure messages). */
  errors(limit = 5): string[] {
    const out: string[] = [];
    for (const line of this.captured.split("\n")) {
      if (!line.includes('"level":50') && !line.includes('"level":60')) continue;
      try {
        const entry = JSON.parse(line) as { service?: string; msg?: string; err?: { message?: string } };
        out.push(`${entry.service}: ${entry.msg}${entry.err?.message ? ` (${entry.err.message})` : ""}`);
      } catch {
        out.push(line.slice(0, 300));
      }
      if (out.length >= limit) break;
    }
    return out;
  }

  async close(): Promise<void> {
    await this.file?.close();
  }
}

/**
 * Asserts no secret appears in the platform's log (file and copy). Gives the
 * writers a moment to flush first, and checks the file is the platform's.
 */
export async function expectSecretsAbsentFromLogs(log: PlatformLog, secrets: string[]): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const { file, captured } = await log.text();
  if (file !== null) expect(file).toContain("api gateway listening");
  expect(secrets.length).toBeGreaterThan(0);
  for (const [source, text] of [["log file", file ?? ""], ["process output", captured]] as const) {
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(20);
      expect(text.includes(secret), `a secret (${secret.slice(0, 8)}…) is in the platform's ${source}`).toBe(false);
    }
  }
}

/* ---------- Human sign-in: bootstrap, and an HTTP client with cookies ---------- */

export interface HumanResponse extends ApiResponse {
  /** Every Set-Cookie header of the response, as sent. */
  setCookies: string[];
}

export interface HumanRequestOptions {
  /** Sent as Authorization: Bearer. */
  token?: string;
  /** Sent as the session cookie __Host-payin_session. */
  cookie?: string;
  /** Sent as X-CSRF-Token. */
  csrf?: string;
  /** Serialized as JSON with Content-Type application/json. */
  json?: unknown;
  headers?: Record<string, string>;
}

/**
 * HTTP client for the gateway's human routes, on node:http so it can connect
 * from a chosen loopback address (sign-in throttling counts per client IP, so
 * each group of tests can use its own) and read every Set-Cookie header.
 */
export class HumanApi {
  constructor(
    readonly baseUrl: string,
    readonly localAddress = "127.0.0.1",
  ) {}

  request(method: string, path: string, options: HumanRequestOptions = {}): Promise<HumanResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (options.cookie !== undefined) headers.cookie = `__Host-payin_session=${options.cookie}`;
    if (options.csrf !== undefined) headers["x-csrf-token"] = options.csrf;
    let body: string | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["content-type"] ??= "application/json";
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    const url = new URL(path, this.baseUrl);
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method, headers, localAddress: this.localAddress, agent: false, timeout: 30_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", reject);
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            try {
              const answer = gatewayAnswer(method, path, res.statusCode ?? 0, headersOf(res.headers), text);
              resolve({ ...answer, setCookies: res.headers["set-cookie"] ?? [] });
            } catch (error) {
              reject(error as Error);
            }
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on("error", reject);
      req.end(body);
    });
  }

  login(email: string, password: string, transport: "cookie" | "bearer" = "bearer") {
    return this.request("POST", "/api/v1/auth/login", { json: { email, password, transport } });
  }

  completeMfa(challengeToken: string, code: string) {
    return this.request("POST", "/api/v1/auth/mfa", { json: { mfa_challenge_token: challengeToken, code } });
  }
}

/** The first platform_admin, as payinctl bootstraps it (over the identity RPC). */
export interface BootstrappedAdmin {
  uuid: string;
  email: string;
  password: string;
  totpUri: string;
  /** Base32 TOTP secret from the URI. */
  totpSecret: string;
}

export async function bootstrapAdmin(operator: Operator, email = "admin@example.com"): Promise<BootstrappedAdmin> {
  const res = await operator.identity.bootstrapAdmin({ email });
  return { uuid: res.identity!.uuid, email, password: res.password, totpUri: res.totpUri, totpSecret: totpSecretOf(res.totpUri) };
}
