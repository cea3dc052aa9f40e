import type { Context } from "koa";
import { describe, expect, it, vi } from "vitest";
import type { AppDeps } from "../../deps.js";
import type { Principal } from "../../auth/authenticator.js";
import { ApiError, clientAddressOf } from "@payin/http";
import { audited } from "@payin/operations";
import { operationPorts } from "../../operations.js";
import { securityEventOf, securityEvents } from "./security-events.js";

const PERSON = "0190a000-0000-7000-8000-000000000001";
const MERCHANT = "0190a000-0000-7000-8000-0000000000aa";
const TOKEN = "session-token-that-must-never-be-logged-0123456789";
const CSRF = "csrf-token-that-must-never-be-logged-0123456789";

const human: Principal = { kind: "human", merchantUuid: null, permissions: new Set(), identityUuid: PERSON, sessionToken: TOKEN, actorAssertion: "pa1.person" };
const machine: Principal = { kind: "machine", merchantUuid: MERCHANT, permissions: new Set(), actorAssertion: "pa1.machine" };

/** The little of a routed Koa context the security events read. */
function context(principal: Principal | undefined, method = "POST"): Context {
  return {
    method,
    _matchedRoute: "/api/v1/admin/merchants/:uuid/activate",
    params: { uuid: MERCHANT },
    state: { requestId: "req-1", principal },
    socket: { remoteAddress: "127.0.0.9" },
    req: { socket: { remoteAddress: "127.0.0.9" }, headers: { "x-forwarded-for": "203.0.113.7" } },
    headers: { cookie: `__Host-payin_session=${TOKEN}`, "x-csrf-token": CSRF, "x-forwarded-for": "203.0.113.7" },
  } as unknown as Context;
}

function fakeDeps() {
  const logged: unknown[] = [];
  const recordAuditEvent = vi.fn(async () => ({}));
  const deps = {
    logger: { warn: (event: unknown) => logged.push(event) },
    merchants: { recordAuditEvent },
  } as unknown as AppDeps;
  return { deps, logged, recordAuditEvent };
}

/** Runs the middleware around a route that throws `error`; the error passes on unchanged. */
async function refuse(deps: AppDeps, ctx: Context, error: unknown): Promise<void> {
  await expect(securityEvents(deps)(ctx, async () => Promise.reject(error))).rejects.toBe(error);
}

describe("securityEventOf", () => {
  it("names the event by status and code, and the person, route and address", () => {
    const ctx = context(human);
    expect(securityEventOf(ctx, 403, "CSRF_TOKEN_INVALID", "127.0.0.9")).toEqual({
      event: "security.csrf_refused",
      status: 403,
      code: "CSRF_TOKEN_INVALID",
      method: "POST",
      route: "/api/v1/admin/merchants/:uuid/activate",
      identityUuid: PERSON,
      merchantUuid: null,
      clientIp: "127.0.0.9",
      requestId: "req-1",
    });
    for (const code of ["FORBIDDEN", "MFA_REQUIRED", "MFA_RECENT_REQUIRED"]) {
      expect(securityEventOf(ctx, 403, code, "127.0.0.9")).toMatchObject({ event: "security.permission_denied", code });
    }
    // A 401 names nobody; a machine is named by its merchant.
    expect(securityEventOf(ctx, 401, "AUTH_INVALID_CREDENTIALS", "127.0.0.9")).toMatchObject({ event: "security.unauthenticated", identityUuid: null });
    expect(securityEventOf(context(machine), 403, "FORBIDDEN", "127.0.0.9")).toMatchObject({ identityUuid: null, merchantUuid: MERCHANT });
    // Other answers are no security event.
    for (const status of [400, 404, 409, 429, 500]) expect(securityEventOf(ctx, status, "X", "127.0.0.9")).toBeNull();
  });
});

describe("securityEvents middleware", () => {
  it("logs a refusal of a person and records it in the audit log, never a secret", async () => {
    const { deps, logged, recordAuditEvent } = fakeDeps();
    await refuse(deps, context(human), new ApiError("CSRF_TOKEN_INVALID", "needs the X-CSRF-Token header"));
    expect(logged).toEqual([expect.objectContaining({ event: "security.csrf_refused", identityUuid: PERSON })]);
    expect(recordAuditEvent).toHaveBeenCalledTimes(1);
    expect(recordAuditEvent).toHaveBeenCalledWith({
      event: {
        actor: { assertion: "pa1.person", osUser: "" },
        action: "security.csrf_refused",
        targetType: "merchant",
        targetUuid: MERCHANT,
        outcome: "failed",
        errorCode: "CSRF_TOKEN_INVALID",
      },
    });
    const written = JSON.stringify([logged, recordAuditEvent.mock.calls]);
    expect(written).not.toContain(TOKEN);
    expect(written).not.toContain(CSRF);
  });

  it("logs the client address as sign-in sees it: the peer, or behind a trusted proxy the client it forwarded", async () => {
    const direct = fakeDeps();
    await refuse(direct.deps, context(human), new ApiError("FORBIDDEN", "no"));
    // Not a trusted proxy: its X-Forwarded-For is not believed.
    expect(direct.logged).toEqual([expect.objectContaining({ clientIp: "127.0.0.9" })]);
    const proxied = fakeDeps();
    proxied.deps.clientAddress = clientAddressOf(["127.0.0.9"]);
    await refuse(proxied.deps, context(human), new ApiError("FORBIDDEN", "no"));
    expect(proxied.logged).toEqual([expect.objectContaining({ clientIp: "203.0.113.7" })]);
  });

  it("records a refusal a change already recorded only in the log", async () => {
    const { deps, logged, recordAuditEvent } = fakeDeps();
    const refusal = new ApiError("MFA_REQUIRED", "needs MFA");
    // The change records it under its own action (merchant.activate, failed, MFA_REQUIRED).
    const spec = { action: "merchant.activate", target: { type: "merchant", uuid: MERCHANT }, successRecordedBy: "merchants" } as const;
    const change = audited(operationPorts(deps), { assertion: "pa1.person", osUser: "" }, spec, () => Promise.reject(refusal));
    await expect(change).rejects.toBe(refusal);
    expect(recordAuditEvent).toHaveBeenCalledTimes(1);
    await refuse(deps, context(human), refusal);
    expect(logged).toEqual([expect.objectContaining({ event: "security.permission_denied", code: "MFA_REQUIRED" })]);
    expect(recordAuditEvent).toHaveBeenCalledTimes(1);
  });

  it("logs, but does not audit, a refusal without a person (401, a machine credential)", async () => {
    const { deps, logged, recordAuditEvent } = fakeDeps();
    await refuse(deps, context(undefined, "GET"), new ApiError("AUTH_INVALID_CREDENTIALS", "authentication required"));
    await refuse(deps, context(machine, "GET"), new ApiError("FORBIDDEN", "needs a person"));
    expect(logged).toEqual([
      expect.objectContaining({ event: "security.unauthenticated", method: "GET" }),
      expect.objectContaining({ event: "security.permission_denied", merchantUuid: MERCHANT }),
    ]);
    expect(recordAuditEvent).not.toHaveBeenCalled();
  });

  it("leaves other failures alone", async () => {
    const { deps, logged, recordAuditEvent } = fakeDeps();
    await refuse(deps, context(human), new ApiError("MERCHANT_NOT_FOUND", "no such merchant"));
    await refuse(deps, context(human), new Error("boom"));
    expect(logged).toEqual([]);
    expect(recordAuditEvent).not.toHaveBeenCalled();
  });
});
