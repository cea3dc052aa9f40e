import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import type { Context } from "koa";
import { describe, expect, it, vi } from "vitest";
import { ErrorDetailSchema, identityV1 } from "@payin/proto";
import { Code, ConnectError, toTimestamp } from "@payin/rpc";
import { Authenticator, bearerTokenOf, requirePermission, requireRecentMfa } from "./authenticator.js";

const MERCHANT = "01a2008d-7400-7000-8000-00000000abcd";
const TOKEN = `mpk_${"a".repeat(32)}${"b".repeat(43)}`;

/**
 * An identity service on an in-memory transport whose Authenticate answers as
 * `state` says at the moment of the call, after `state.delayMs`.
 */
function identityFor(state: { valid: boolean; delayMs: number; calls: number; answered?: number; down?: boolean; gate?: Promise<void> }) {
  const transport = createRouterTransport(({ service }) => {
    service(identityV1.IdentityService, {
      async authenticate() {
        state.calls++;
        await new Promise((resolve) => setTimeout(resolve, state.delayMs));
        await state.gate;
        if (state.down) throw new ConnectError("unavailable", Code.Unavailable);
        if (!state.valid) {
          throw new ConnectError("invalid token", Code.Unauthenticated, undefined, [
            { desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { reason: "AUTH_INVALID_TOKEN", domain: "identity" }) },
          ]);
        }
        state.answered = (state.answered ?? 0) + 1;
        return {
          principal: { kind: identityV1.PrincipalKind.MACHINE, merchantUuid: MERCHANT, permissions: ["merchant.payin.read"] },
        };
      },
    });
  });
  return createClient(identityV1.IdentityService, transport);
}

/** The little of a Koa context the authenticator reads. */
function request(token = TOKEN): Context {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  return {
    method: "GET",
    state: {},
    get: (name: string) => headers[name.toLowerCase()] ?? "",
    req: { headersDistinct: { authorization: [headers.authorization] } },
  } as unknown as Context;
}

/** A monotonic clock the test moves by hand: the cache's TTL and refresh times follow it, not real time. */
function manualClock() {
  const clock = { ms: 1_000, now: () => clock.ms, advance: (ms: number) => void (clock.ms += ms) };
  return clock;
}

/** An Authenticator with a TTL of `ttlMs` on the moved-by-hand clock. */
function cachingAuthenticator(state: Parameters<typeof identityFor>[0], ttlMs: number) {
  const clock = manualClock();
  return { auth: new Authenticator(identityFor(state), ttlMs, 10_000, () => new Date(), clock), clock };
}

describe("Authenticator's machine-token cache", () => {
  it("answers from the cache past half the TTL without waiting, and re-verifies once in the background", async () => {
    let open: () => void = () => {};
    const state: { valid: boolean; delayMs: number; calls: number; answered?: number; gate?: Promise<void> } = { valid: true, delayMs: 0, calls: 0 };
    const { auth, clock } = cachingAuthenticator(state, 2_000);
    expect((await auth.authenticate(request())).merchantUuid).toBe(MERCHANT);
    expect(state.calls).toBe(1);
    // Before half the TTL: no call at all.
    clock.advance(999);
    await auth.authenticate(request());
    expect(state.calls).toBe(1);
    clock.advance(101);
    // Identity now answers only when the test says so: the requests below
    // resolving at all shows that they did not wait for it.
    state.gate = new Promise<void>((resolve) => (open = resolve));
    const principals = await Promise.all(Array.from({ length: 10 }, () => auth.authenticate(request())));
    expect(principals.every((p) => p.merchantUuid === MERCHANT)).toBe(true);
    await vi.waitFor(() => expect(state.calls).toBe(2));
    open();
    state.gate = undefined;
    // Past the first verification's TTL (and past the new entry's half-life),
    // the re-verified entry still answers while identity does not, and starts
    // exactly one more background check.
    await vi.waitFor(() => expect(state.answered).toBe(2));
    // The re-verification's answer is kept only after the call returns: let it land.
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(1_050);
    state.gate = new Promise<void>(() => {});
    expect((await auth.authenticate(request())).merchantUuid).toBe(MERCHANT);
    expect((await auth.authenticate(request())).merchantUuid).toBe(MERCHANT);
    await vi.waitFor(() => expect(state.calls).toBe(3));
    expect((await auth.authenticate(request())).merchantUuid).toBe(MERCHANT);
    expect(state.calls).toBe(3);
  });

  it("drops a token that identity refuses on re-verification", async () => {
    const state = { valid: true, delayMs: 0, calls: 0 };
    const { auth, clock } = cachingAuthenticator(state, 2_000);
    await auth.authenticate(request());
    clock.advance(1_100);
    state.valid = false;
    await auth.authenticate(request()); // still cached; starts the re-verification
    await vi.waitFor(() => expect(auth.authenticate(request())).rejects.toMatchObject({ status: 401, code: "AUTH_INVALID_CREDENTIALS" }));
  });

  it("never trusts a token longer than the TTL after its last verification, even when identity cannot be reached", async () => {
    const state = { valid: true, delayMs: 0, calls: 0, down: false };
    const { auth, clock } = cachingAuthenticator(state, 300);
    await auth.authenticate(request());
    state.down = true;
    clock.advance(299);
    expect((await auth.authenticate(request())).merchantUuid).toBe(MERCHANT);
    clock.advance(2);
    await expect(auth.authenticate(request())).rejects.toBeInstanceOf(ConnectError);
  });

  it("forgets a merchant's tokens at once, and does not keep a lookup that was under way", async () => {
    let open: () => void = () => {};
    const state: { valid: boolean; delayMs: number; calls: number; gate?: Promise<void> } = { valid: true, delayMs: 0, calls: 0 };
    state.gate = new Promise<void>((resolve) => (open = resolve));
    const { auth, clock } = cachingAuthenticator(state, 5_000);
    const inFlight = auth.authenticate(request());
    await vi.waitFor(() => expect(state.calls).toBe(1));
    clock.advance(10);
    auth.forgetMerchant(MERCHANT);
    open();
    state.gate = undefined;
    await inFlight; // answered its own request…
    state.valid = false;
    // …but was not kept: the next request asks identity again.
    await expect(auth.authenticate(request())).rejects.toMatchObject({ status: 401 });
  });
});

describe("what identity decides about a person", () => {
  const NOW = new Date("2026-11-27T12:00:00.000Z");
  /** An Authenticator whose identity answers a person with `over`, at the wall clock NOW. */
  function personAs(over: MessageInitShape<typeof identityV1.PrincipalSchema>) {
    const transport = createRouterTransport(({ service }) => {
      service(identityV1.IdentityService, {
        authenticate: () => ({
          principal: {
            kind: identityV1.PrincipalKind.HUMAN,
            identityUuid: "01a2008d-7400-7000-8000-000000000001",
            sessionUuid: "01a2008d-7400-7000-8000-000000000002",
            permissions: ["merchant.read"],
            transport: "bearer",
            ...over,
          },
        }),
      });
    });
    return new Authenticator(createClient(identityV1.IdentityService, transport), 2_000, 10, () => NOW);
  }

  it("takes who is privileged from identity's flag, and asks MFA of them before anything", async () => {
    const flagged = await personAs({ privileged: true, mfaSatisfied: false, permissions: ["merchant.payin.read"] }).authenticate(request("session-token-0123456789"));
    expect(flagged.privileged).toBe(true);
    expect(() => requirePermission(flagged, "merchant.payin.read")).toThrow(expect.objectContaining({ status: 403, code: "MFA_REQUIRED" }));
    const unflagged = await personAs({ privileged: false, mfaSatisfied: false }).authenticate(request("session-token-0123456789"));
    expect(unflagged.privileged).toBe(false);
  });

  it("counts MFA as recent until identity's mfa_recent_until, by the gateway's clock", async () => {
    const at = (ms: number) => toTimestamp(new Date(NOW.getTime() + ms));
    const recent = await personAs({ mfaSatisfied: true, mfaRecentUntil: at(0) }).authenticate(request("session-token-0123456789"));
    expect(recent.mfaRecent).toBe(true);
    expect(() => requireRecentMfa(recent)).not.toThrow();
    const stale = await personAs({ mfaSatisfied: true, mfaRecentUntil: at(-1) }).authenticate(request("session-token-0123456789"));
    expect(stale.mfaRecent).toBe(false);
    expect(() => requireRecentMfa(stale)).toThrow(expect.objectContaining({ status: 403, code: "MFA_RECENT_REQUIRED" }));
    const never = await personAs({ mfaSatisfied: false }).authenticate(request("session-token-0123456789"));
    expect(never.mfaRecent).toBe(false);
    expect(() => requireRecentMfa(never)).toThrow(expect.objectContaining({ status: 403, code: "MFA_REQUIRED" }));
  });
});

describe("bearerTokenOf", () => {
  it("reads a Bearer header in any case of the scheme, and nothing else", () => {
    expect(bearerTokenOf("Bearer abc.DEF")).toBe("abc.DEF");
    expect(bearerTokenOf("bearer abc")).toBe("abc");
    for (const header of ["", "Bearer", "Bearer ", "Bearer a b", "Basic abc", `Bearer ${"x".repeat(513)}`]) expect(bearerTokenOf(header)).toBeNull();
  });
});
