import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { callerDigestsFor, deriveCredential, parseCallerDigests } from "@payin/config";
import { identityV1 } from "@payin/proto";
import { actAsCaller, ALL_METHODS, allowCallers, CallerAuthenticator, callerInterceptor, callerNameOf, mergeCallerPolicies } from "./auth.js";

const MASTER = "auth-test-master-secret-0123456789abcdef";
const Identity = identityV1.IdentityService;
const digests = parseCallerDigests(callerDigestsFor(MASTER, ["api", "payins"]));

describe("CallerAuthenticator", () => {
  const authenticator = new CallerAuthenticator(digests);

  it("names the caller of a recognised credential, and no one otherwise", () => {
    expect(authenticator.authenticate(`Bearer ${deriveCredential(MASTER, "api")}`)).toBe("api");
    expect(authenticator.authenticate(`Bearer ${deriveCredential(MASTER, "payins")}`)).toBe("payins");
    for (const header of [
      undefined,
      "",
      deriveCredential(MASTER, "api"), // no scheme
      `Basic ${deriveCredential(MASTER, "api")}`,
      `Bearer ${deriveCredential(MASTER, "observer")}`,
      `Bearer ${MASTER}`,
      `Bearer api.${deriveCredential(MASTER, "payins").slice("payins.".length)}`,
    ]) {
      expect(authenticator.authenticate(header), String(header)).toBeUndefined();
    }
  });
});

describe("allowCallers", () => {
  it("lists each caller's procedures by their full names; ALL_METHODS lists every one", () => {
    const policy = allowCallers(Identity, { api: ["authenticate"], payins: [], test: ALL_METHODS });
    expect([...policy.get("api")!]).toEqual(["payin.identity.v1.IdentityService/Authenticate"]);
    expect(policy.get("payins")!.size).toBe(0);
    expect(policy.get("test")!.size).toBe(Identity.methods.length);
    expect(policy.get("observer")).toBeUndefined();
  });

  it("refuses a method the service does not have", () => {
    expect(() => allowCallers(Identity, { api: ["noSuchMethod" as "authenticate"] })).toThrow(/has no method noSuchMethod/);
  });

  it("merges policies", () => {
    const merged = mergeCallerPolicies(allowCallers(Identity, { api: ["authenticate"] }), allowCallers(Identity, { api: ["login"] }));
    expect(merged.get("api")!.size).toBe(2);
  });
});

describe("callerInterceptor", () => {
  // The same rule for calls that reach the handlers without the server's HTTP check.
  const transport = createRouterTransport(
    (router) => router.service(Identity, { authenticate: () => create(identityV1.AuthenticateResponseSchema, {}) }),
    { router: { interceptors: [callerInterceptor(new CallerAuthenticator(digests), allowCallers(Identity, { api: ["authenticate"] }))] } },
  );
  const client = createClient(Identity, transport);
  const as = (caller: string) => ({ headers: { authorization: `Bearer ${deriveCredential(MASTER, caller)}` } });
  /** The call's code: 0 when it succeeds. */
  const codeOf = (promise: Promise<unknown>) => promise.then(() => 0, (e: unknown) => (e as ConnectError).code as number);

  it("allows a listed call, refuses an unlisted one and an unrecognised caller", async () => {
    expect(await codeOf(client.authenticate({}, as("api")))).toBe(0);
    expect(await codeOf(client.authenticate({}, as("payins")))).toBe(Code.PermissionDenied);
    expect(await codeOf(client.authenticate({}, as("observer")))).toBe(Code.Unauthenticated);
    expect(await codeOf(client.authenticate({}))).toBe(Code.Unauthenticated);
  });
});

describe("callerNameOf", () => {
  /** A client whose Authenticate answers, as the principal's permissions, the caller the handler was told. */
  const clientWith = (interceptors: Parameters<typeof createRouterTransport>[1]) =>
    createClient(
      Identity,
      createRouterTransport(
        (router) =>
          router.service(Identity, {
            authenticate: (_req, ctx) =>
              create(identityV1.AuthenticateResponseSchema, { principal: { permissions: [callerNameOf(ctx.values) ?? "(none)"] } }),
          }),
        interceptors,
      ),
    );
  const callerSeen = async (client: ReturnType<typeof clientWith>, caller?: string) =>
    (await client.authenticate({}, caller ? { headers: { authorization: `Bearer ${deriveCredential(MASTER, caller)}` } } : {})).principal?.permissions[0];

  it("tells the handler which caller the credential authenticated", async () => {
    const policy = allowCallers(Identity, { api: ["authenticate"], payins: ["authenticate"] });
    const client = clientWith({ router: { interceptors: [callerInterceptor(new CallerAuthenticator(digests), policy)] } });
    expect(await callerSeen(client, "api")).toBe("api");
    expect(await callerSeen(client, "payins")).toBe("payins");
  });

  it("is undefined without a caller check, and what actAsCaller says with one", async () => {
    expect(await callerSeen(clientWith(undefined))).toBe("(none)");
    expect(await callerSeen(clientWith({ router: { interceptors: [actAsCaller("payinctl")] } }))).toBe("payinctl");
  });
});
