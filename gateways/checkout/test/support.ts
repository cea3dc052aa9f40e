/**
 * Helpers shared by the checkout gateway's tests: a real platform (on local
 * chains when asked), merchants and their people provisioned as an operator
 * does, and a small cookie-keeping HTTP client that reads pages as a browser
 * without JavaScript would.
 */
import { randomBytes } from "node:crypto";
import type { Client } from "@connectrpc/connect";
import { startLocalChains, type LocalChains } from "@payin/local-chains";
import { payinsV1 } from "@payin/proto";
import { createServiceClient } from "@payin/rpc";
import { awaitFreshTotpStep, Operator, startTestPlatform, totpCodeAt, totpSecretOf, type TestMerchant, type TestPlatform } from "@payin/testing";
import { afterAll, beforeAll, expect } from "vitest";

export interface CheckoutE2e {
  platform: TestPlatform;
  /** The local chains the observer watches; undefined unless asked for. */
  chains: LocalChains | undefined;
  operator: Operator;
  /** payins over RPC with the test credential (to count what exists). */
  payins: Client<typeof payinsV1.PayinsService>;
  /** The checkout gateway's base URL. */
  checkoutUrl: string;
  /** A signed-in platform admin's session token (bearer, MFA done): what identity wants of who creates people. */
  adminToken: string;
  adminTotpSecret: string;
}

/**
 * A real platform for the test file, started before its tests and stopped after
 * them; with `chains`, on two local anvil chains that its observer watches.
 */
export function useCheckoutPlatform(options: { chains?: boolean; env?: Record<string, string> } = {}): CheckoutE2e {
  const e2e = {} as CheckoutE2e;
  beforeAll(async () => {
    e2e.chains = options.chains ? await startLocalChains({ blockTimeS: 1 }) : undefined;
    e2e.platform = await startTestPlatform({ env: { ...(e2e.chains?.env ?? {}), ...options.env } });
    e2e.operator = new Operator(e2e.platform);
    e2e.payins = createServiceClient(payinsV1.PayinsService, { baseUrl: e2e.platform.serviceUrls.payins!, serviceToken: e2e.platform.serviceToken, timeoutMs: 15_000 });
    e2e.checkoutUrl = e2e.platform.checkoutUrl;
    const admin = await e2e.operator.identity.bootstrapAdmin({ email: "admin@example.com" });
    e2e.adminTotpSecret = totpSecretOf(admin.totpUri);
    const login = await e2e.operator.identity.login({ email: "admin@example.com", password: admin.password, transport: "bearer", clientIp: "127.0.0.1" });
    if (login.result.case !== "mfaChallengeToken") throw new Error("the bootstrap admin must be asked for MFA");
    await awaitFreshTotpStep();
    const done = await e2e.operator.identity.completeMfa({ mfaChallengeToken: login.result.value, code: totpCodeAt(e2e.adminTotpSecret), clientIp: "127.0.0.1" });
    e2e.adminToken = done.authenticated!.sessionToken;
  }, 240_000);
  afterAll(async () => {
    await e2e.platform?.stopAll();
    await e2e.chains?.stop();
  }, 60_000);
  return e2e;
}

/** A person who signs in to the merchant area. */
export interface MerchantPerson {
  uuid: string;
  email: string;
  password: string;
  /** Base32 TOTP secret when MFA is enrolled. */
  totpSecret: string | null;
}

/**
 * Creates a person with `roles` (merchant_admin by default), a member of each
 * of `merchantUuids`; with `mfa`, TOTP enrolled (every sign-in then asks for a code).
 */
export async function merchantPerson(
  e2e: CheckoutE2e,
  merchantUuids: string[],
  options: { roles?: string[]; mfa?: boolean } = {},
): Promise<MerchantPerson> {
  const email = `m-${randomBytes(5).toString("hex")}@example.com`;
  const password = `pw-${randomBytes(12).toString("base64url")}`;
  const { identity } = await e2e.operator.identity.createIdentity({
    caller: { sessionToken: e2e.adminToken },
    email,
    password,
    roles: options.roles ?? ["merchant_admin"],
  });
  for (const merchantUuid of merchantUuids) await e2e.operator.merchants.ensureMember({ merchantUuid, identityUuid: identity!.uuid });
  let totpSecret: string | null = null;
  if (options.mfa) {
    const login = await e2e.operator.identity.login({ email, password, transport: "bearer", clientIp: "127.0.0.1" });
    if (login.result.case !== "authenticated") throw new Error("a person without MFA signs in at once");
    const caller = { sessionToken: login.result.value.sessionToken };
    const enrolment = await e2e.operator.identity.enrollTotp({ caller, currentPassword: password, clientIp: "127.0.0.1" });
    totpSecret = totpSecretOf(enrolment.otpauthUri);
    await awaitFreshTotpStep();
    await e2e.operator.identity.confirmTotp({ caller, code: totpCodeAt(totpSecret) });
  }
  return { uuid: identity!.uuid, email, password, totpSecret };
}

/** A merchant as the operator makes it (ready by default; see Operator.merchant), named for the payer. */
export function readyMerchant(e2e: CheckoutE2e, name = "Checkout Test Shop", options: Parameters<Operator["merchant"]>[0] = {}): Promise<TestMerchant> {
  return e2e.operator.merchant({ name, credential: false, ...options });
}

/** A page or JSON answer as the client saw it. */
export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON when the answer is JSON. */
  json: any;
  /** Where a redirect points (absolute path), or null. */
  location: string | null;
}

/**
 * An HTTP client that keeps cookies as a browser does (by name; `__Host-`
 * cookies are Secure, which this client ignores, as browsers do for
 * localhost) and never follows redirects, so tests see each step.
 */
export class PageClient {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    /** Headers every request carries (e.g. an Origin, or X-Forwarded-For). */
    readonly defaultHeaders: Record<string, string> = {},
  ) {}

  async request(method: string, path: string, options: { form?: Record<string, string>; headers?: Record<string, string>; body?: string } = {}): Promise<PageResponse> {
    const headers: Record<string, string> = { ...this.defaultHeaders, ...options.headers };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    let body = options.body;
    if (options.form) {
      body = new URLSearchParams(options.form).toString();
      headers["content-type"] ??= "application/x-www-form-urlencoded";
    }
    const res = await fetch(new URL(path, this.baseUrl), { method, headers, body, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    const isJson = (res.headers.get("content-type") ?? "").startsWith("application/json");
    const location = res.headers.get("location");
    return { status: res.status, headers: res.headers, text, json: isJson && text ? JSON.parse(text) : undefined, location };
  }

  get(path: string, headers: Record<string, string> = {}) {
    return this.request("GET", path, { headers });
  }

  post(path: string, form: Record<string, string> = {}, headers: Record<string, string> = {}) {
    return this.request("POST", path, { form, headers });
  }
}

/** The value of a form's hidden CSRF field in a page. */
export function csrfTokenIn(html: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html);
  if (!match) throw new Error("the page has no form with a CSRF token");
  return match[1]!;
}

/** The security headers every answer of the checkout gateway carries. */
export function expectSecurityHeaders(res: PageResponse): void {
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain("unsafe-inline");
  expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
}
