import { hash, timingSafeEqual } from "node:crypto";
import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createContextKey, type ContextValues, type Interceptor } from "@connectrpc/connect";

/** The standard health service: open to probes, which carry no credentials. */
export const HEALTH_SERVICE = "grpc.health.v1.Health";

/** Digest of each recognised caller's credential by caller name (see @payin/config's credentials). */
export type CallerDigests = ReadonlyMap<string, Buffer>;

/**
 * Which RPCs each caller may call: caller name → `<service type name>/<method>`
 * (e.g. `payin.identity.v1.IdentityService/Authenticate`). A caller not named
 * may call nothing.
 */
export type CallerPolicy = ReadonlyMap<string, ReadonlySet<string>>;

/** Every method of the service, for a caller allowed all of them (the test harness). */
export const ALL_METHODS = "all";

/**
 * A service's policy from a static list per caller of the method names its
 * clients use (`authenticate`, as on a generated client, checked by the type
 * system), or ALL_METHODS. Further services' policies are merged with
 * `mergeCallerPolicies`.
 */
export function allowCallers<S extends DescService>(
  service: S,
  allow: { readonly [caller: string]: readonly (keyof S["method"] & string)[] | typeof ALL_METHODS },
): CallerPolicy {
  const policy = new Map<string, Set<string>>();
  for (const [caller, methods] of Object.entries(allow)) {
    const names = methods === ALL_METHODS ? Object.keys(service.method) : methods;
    const allowed = new Set<string>();
    for (const name of names) {
      const method = service.method[name];
      if (!method) throw new Error(`${service.typeName} has no method ${name}`);
      allowed.add(`${service.typeName}/${method.name}`);
    }
    policy.set(caller, allowed);
  }
  return policy;
}

/** One policy allowing what any of `policies` allows. */
export function mergeCallerPolicies(...policies: CallerPolicy[]): CallerPolicy {
  const merged = new Map<string, Set<string>>();
  for (const policy of policies) {
    for (const [caller, methods] of policy) {
      const into = merged.get(caller) ?? new Set<string>();
      for (const method of methods) into.add(method);
      merged.set(caller, into);
    }
  }
  return merged;
}

function sha256(value: string): Buffer {
  return hash("sha256", value, "buffer");
}

/** Compared against when the caller is unknown, so such a refusal costs what any other does. */
const NO_DIGEST = Buffer.alloc(32);

/**
 * Recognises callers by their credential (`authorization: Bearer
 * <caller>.<secret>`): the caller's name selects the expected digest, which is
 * compared with the presented credential's SHA-256 in constant time, so timing
 * tells nothing of the secret or its length.
 */
export class CallerAuthenticator {
  constructor(private readonly digests: CallerDigests) {}

  /** The caller's name, or undefined when the header is missing, malformed or not a recognised credential. */
  authenticate(authorization: string | undefined): string | undefined {
    if (!authorization || !authorization.startsWith("Bearer ")) return undefined;
    const credential = authorization.slice("Bearer ".length);
    const dot = credential.indexOf(".");
    const caller = dot > 0 ? credential.slice(0, dot) : "";
    const expected = this.digests.get(caller);
    const matches = timingSafeEqual(sha256(credential), expected ?? NO_DIGEST);
    return matches && expected ? caller : undefined;
  }
}

/** Messages of the refusals: they name no credential, digest or secret. */
export const UNAUTHENTICATED_MESSAGE = "missing or invalid service credential";
export function notAllowedMessage(caller: string, procedure: string): string {
  return `caller ${caller} may not call ${procedure}`;
}

export type CallerCheck =
  | { ok: true; caller: string | undefined }
  | { ok: false; code: Code.Unauthenticated | Code.PermissionDenied; message: string };

/**
 * Decides a call to `procedure` (`<service type name>/<method>`): the health
 * service is open; any other needs a recognised caller (else Unauthenticated)
 * whose policy lists the procedure (else PermissionDenied).
 */
export function checkCaller(
  authenticator: CallerAuthenticator,
  policy: CallerPolicy,
  procedure: string,
  authorization: string | undefined,
): CallerCheck {
  if (procedure.startsWith(`${HEALTH_SERVICE}/`)) return { ok: true, caller: undefined };
  const caller = authenticator.authenticate(authorization);
  if (caller === undefined) return { ok: false, code: Code.Unauthenticated, message: UNAUTHENTICATED_MESSAGE };
  if (!policy.get(caller)?.has(procedure)) return { ok: false, code: Code.PermissionDenied, message: notAllowedMessage(caller, procedure) };
  return { ok: true, caller };
}

/** The name of the internal caller a call was authenticated as; undefined when none was. */
const CALLER_NAME = createContextKey<string | undefined>(undefined, { description: "authenticated internal caller" });

/**
 * The internal caller a handler is serving (`ctx.values`), as the server
 * authenticated it from its credential; undefined when no caller was
 * authenticated (an in-process transport without `actAsCaller`).
 */
export function callerNameOf(values: ContextValues): string | undefined {
  return values.get(CALLER_NAME);
}

/**
 * Checks every call as `checkCaller` does. The server already refuses at the
 * HTTP layer, before reading a body; this applies the same rule to whatever
 * reaches the handlers by another path. The errors carry no reason detail: for
 * a gateway they are a fault of the platform, not an answer to pass on. An
 * allowed call's caller is handed to the handler (callerNameOf).
 */
export function callerInterceptor(authenticator: CallerAuthenticator, policy: CallerPolicy): Interceptor {
  return (next) => async (req) => {
    const check = checkCaller(authenticator, policy, `${req.service.typeName}/${req.method.name}`, req.header.get("authorization") ?? undefined);
    if (!check.ok) throw new ConnectError(check.message, check.code);
    req.contextValues.set(CALLER_NAME, check.caller);
    return next(req);
  };
}

/**
 * For in-process transports (tests), which have no credential to check: every
 * call is served as if `caller` had been authenticated.
 */
export function actAsCaller(caller: string): Interceptor {
  return (next) => async (req) => {
    req.contextValues.set(CALLER_NAME, caller);
    return next(req);
  };
}
