/**
 * Actor assertions: identity's signed word on who a request acts for. Identity
 * signs one with its Ed25519 key whenever it authenticates a session or a
 * machine token (Principal.actor_assertion); the gateways and the operator CLI
 * pass it along with a change (merchants.v1 Actor.assertion), and a service
 * that records who acted verifies it with identity's public key and takes the
 * actor from it — never from what the caller says. A service holding only the
 * public key cannot mint one, and one assertion is good for minutes only.
 *
 * Format: `pa1.<base64url(JSON claims)>.<base64url(Ed25519 signature)>`, the
 * signature over a domain-separated message (ASSERTION_CONTEXT + the claims
 * part), so a signature made by identity for anything else never verifies here.
 * The keys are configuration (@payin/config, actor-keys.ts).
 */
import { sign, verify, type KeyObject } from "node:crypto";
import { userInfo } from "node:os";
import type { HandlerContext } from "@connectrpc/connect";
import { callerNameOf } from "./auth.js";
import { currentContext } from "./context.js";

/** Who an assertion vouches for: a person (by identity uuid) or a merchant's machine credential. */
export type AssertedActorKind = "identity" | "machine_credential";

export interface ActorClaims {
  kind: AssertedActorKind;
  /** The identity's or the machine credential's uuid (lower case). */
  uuid: string;
  /** What the principal may do, as identity decided when it signed. */
  permissions: readonly string[];
  /** For a person whose session completed MFA: until when (epoch ms) that MFA is recent; null otherwise. */
  mfaRecentUntil: number | null;
  /** When the assertion stops being accepted (epoch ms). */
  expiresAt: number;
}

/** How long an assertion is accepted after identity signs it. */
export const ASSERTION_TTL_MS = 5 * 60_000;
const PREFIX = "pa1.";
const ASSERTION_CONTEXT = "payin actor assertion v1\n";
/** Longer inputs are refused before any parsing. */
const MAX_ASSERTION_LENGTH = 4096;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PERMISSION = /^[a-z][a-z0-9_.]{0,63}$/;
const signedMessage = (claimsPart: string) => Buffer.from(ASSERTION_CONTEXT + claimsPart, "utf8");

/** Signs `claims`: what identity hands out with an authenticated principal. */
export function signActorAssertion(key: KeyObject, claims: ActorClaims): string {
  const claimsPart = Buffer.from(
    JSON.stringify({ k: claims.kind, u: claims.uuid, p: claims.permissions, m: claims.mfaRecentUntil, e: claims.expiresAt }),
    "utf8",
  ).toString("base64url");
  return `${PREFIX}${claimsPart}.${sign(null, signedMessage(claimsPart), key).toString("base64url")}`;
}

/** Why an assertion was not accepted. */
export type AssertionRefusal = "malformed" | "bad_signature" | "expired";

/**
 * The claims of an assertion identity signed that is still good at `now`, or
 * why it is not. Anything unexpected in its shape is `malformed`.
 */
export function verifyActorAssertion(key: KeyObject, assertion: string, now: number): { ok: true; claims: ActorClaims } | { ok: false; refusal: AssertionRefusal } {
  if (assertion.length > MAX_ASSERTION_LENGTH || !assertion.startsWith(PREFIX)) return { ok: false, refusal: "malformed" };
  const parts = assertion.slice(PREFIX.length).split(".");
  if (parts.length !== 2 || !/^[A-Za-z0-9_-]+$/.test(parts[0]!) || !/^[A-Za-z0-9_-]+$/.test(parts[1]!)) return { ok: false, refusal: "malformed" };
  const [claimsPart, signaturePart] = parts as [string, string];
  const signature = Buffer.from(signaturePart, "base64url");
  if (signature.length !== 64) return { ok: false, refusal: "malformed" };
  if (!verify(null, signedMessage(claimsPart), key, signature)) return { ok: false, refusal: "bad_signature" };
  const claims = parseClaims(Buffer.from(claimsPart, "base64url").toString("utf8"));
  if (!claims) return { ok: false, refusal: "malformed" };
  if (claims.expiresAt <= now) return { ok: false, refusal: "expired" };
  return { ok: true, claims };
}

function parseClaims(text: string): ActorClaims | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof raw !== "object" || raw === null) return null;
  const { k, u, p, m, e } = raw as Record<string, unknown>;
  if (k !== "identity" && k !== "machine_credential") return null;
  if (typeof u !== "string" || !UUID.test(u)) return null;
  if (!Array.isArray(p) || !p.every((permission) => typeof permission === "string" && PERMISSION.test(permission))) return null;
  if (m !== null && !Number.isSafeInteger(m)) return null;
  if (!Number.isSafeInteger(e)) return null;
  return { kind: k, uuid: u, permissions: p as string[], mfaRecentUntil: m as number | null, expiresAt: e as number };
}

/** The internal caller that is the operator CLI: without an assertion it acts as `operator_cli`. */
export const OPERATOR_CLI_CALLER = "payinctl";
/**
 * The internal caller that is npm start's own provisioning (the first admin,
 * the demo merchant): it acts as `system`. Only the local stack derives its
 * credential; no deployment gives services its digest.
 */
export const STACK_CALLER = "stack";
/** An operating-system user name as the operator CLI reports it. */
const OS_USER = /^[A-Za-z0-9._@-]{1,64}$/;

/**
 * The operating-system user this process runs as, as the operator CLI reports
 * it (Actor.os_user): its name with anything but A-Z, a-z, 0-9, '.', '_', '@'
 * and '-' made '_', at most 64 characters; "unknown" when there is none.
 */
export function operatorOsUser(name: string = safeUserName()): string {
  const cleaned = name.replace(/[^A-Za-z0-9._@-]/g, "_").slice(0, 64);
  return cleaned === "" ? "unknown" : cleaned;
}

function safeUserName(): string {
  try {
    return userInfo().username;
  } catch {
    // No passwd entry for this uid (e.g. a container's arbitrary user).
    return process.env.USER ?? "";
  }
}

/** The actor of a change as the service stamps it: never what a caller claims. */
export interface StampedActor {
  kind: AssertedActorKind | "operator_cli" | "system";
  /** The identity's or machine credential's uuid; null for the operator CLI without a signed-in person. */
  uuid: string | null;
  /** The operating-system user the operator CLI ran as (its own report); null for any other caller. */
  osUser: string | null;
  /** What identity vouched for; null for the operator CLI without a signed-in person. */
  claims: ActorClaims | null;
}

/** Why no actor could be stamped: no assertion from a caller that needs one, a bad one, or a malformed OS user. */
export type StampRefusal = AssertionRefusal | "not_vouched" | "bad_os_user";

/**
 * The one rule for who acted, given the authenticated internal caller and what
 * it sent: an assertion identity signed names the actor (the operator CLI adds
 * the OS user it ran as); the operator CLI without one is `operator_cli`, with
 * its OS user; npm start's provisioning without one is `system`; any other
 * caller must bring an assertion.
 */
export function stampActor(
  key: KeyObject,
  input: { caller: string | undefined; assertion: string; osUser: string },
  now: number,
): { ok: true; actor: StampedActor } | { ok: false; refusal: StampRefusal } {
  const operator = input.caller === OPERATOR_CLI_CALLER;
  if (operator ? !OS_USER.test(input.osUser) : input.osUser !== "") return { ok: false, refusal: "bad_os_user" };
  const osUser = operator ? input.osUser : null;
  if (input.assertion === "") {
    if (operator) return { ok: true, actor: { kind: "operator_cli", uuid: null, osUser, claims: null } };
    if (input.caller === STACK_CALLER) return { ok: true, actor: { kind: "system", uuid: null, osUser: null, claims: null } };
    return { ok: false, refusal: "not_vouched" };
  }
  const verified = verifyActorAssertion(key, input.assertion, now);
  if (!verified.ok) return verified;
  return { ok: true, actor: { kind: verified.claims.kind, uuid: verified.claims.uuid, osUser, claims: verified.claims } };
}

/** Why a change only a person may make was refused. */
export type PersonRefusal = AssertionRefusal | "not_vouched" | "lacks_permission" | "mfa_not_recent";

/**
 * Callers that provision without a person: npm start's own (`stack`) and the
 * test harness (`test`), neither of which any deployment knows, and an
 * in-process call no caller was authenticated for (a test's in-memory transport).
 */
const PROVISIONERS: ReadonlySet<string | undefined> = new Set([STACK_CALLER, "test", undefined]);

/**
 * The one rule for a change that moves money or grants trust, checked by the
 * service that makes it whoever calls: the person identity's assertion vouches
 * for must hold `permission` and have completed their second factor recently
 * (identity's window, as the assertion carries it). A machine credential never
 * may. Only the provisioners above act without a person. Without `key` (a
 * service not given identity's public key) no assertion verifies.
 */
export function vouchedPerson(
  key: KeyObject | undefined,
  input: { caller: string | undefined; assertion: string },
  permission: string,
  now: number,
): { ok: true; claims: ActorClaims | null } | { ok: false; refusal: PersonRefusal } {
  if (input.assertion === "") return PROVISIONERS.has(input.caller) ? { ok: true, claims: null } : { ok: false, refusal: "not_vouched" };
  if (!key) return { ok: false, refusal: "bad_signature" };
  const verified = verifyActorAssertion(key, input.assertion, now);
  if (!verified.ok) return verified;
  const { claims } = verified;
  if (claims.kind !== "identity") return { ok: false, refusal: "not_vouched" };
  if (!claims.permissions.includes(permission)) return { ok: false, refusal: "lacks_permission" };
  if (claims.mfaRecentUntil === null || claims.mfaRecentUntil <= now) return { ok: false, refusal: "mfa_not_recent" };
  return { ok: true, claims };
}

/** The header the operator CLI reports the OS user it runs as in, to services that keep their own audit records. */
export const OPERATOR_OS_USER_HEADER = "x-operator-os-user";

/** Whether `value` is an OS user as the operator CLI reports one (1 to 64 of A-Z, a-z, 0-9, '.', '_', '@', '-'). */
export function isOperatorOsUser(value: string): boolean {
  return OS_USER.test(value);
}

/** Where a change comes from besides its person: the internal caller, the OS user it reported, the request id. */
export interface ChangeOrigin {
  /** The authenticated internal caller (payinctl, stack, test, api…); undefined in-process. */
  caller: string | undefined;
  /** From the operator CLI alone, the OS user it reported (OPERATOR_OS_USER_HEADER; "" when it sent none); null from any other caller. */
  osUser: string | null;
  requestId: string | null;
}

/** Who acted, as a service that writes its own audit record of a change names them. */
export interface RecordedActor {
  actorKind: "identity" | "operator_cli" | "system";
  /** The person's identity uuid for `identity`; null otherwise. */
  actorUuid: string | null;
  /** The OS user the operator CLI reported, when it asked (with a person or without). */
  actorOsUser: string | null;
}

/**
 * The actor of a change a service records itself: the person it knows acted
 * (identity's session, or the person an assertion vouched for); with none, the
 * operator CLI (`operator_cli`) or the platform's own provisioning and the test
 * harness (`system`). The operator CLI's OS user is kept with its person too;
 * a missing or malformed one is refused (`bad_os_user`): the change it came
 * with is not made.
 */
export function recordedActor(origin: ChangeOrigin | undefined, personUuid: string | null): { ok: true; actor: RecordedActor } | { ok: false; refusal: "bad_os_user" } {
  const operator = origin?.caller === OPERATOR_CLI_CALLER;
  const osUser = operator ? (origin.osUser ?? "") : null;
  if (osUser !== null && !OS_USER.test(osUser)) return { ok: false, refusal: "bad_os_user" };
  if (personUuid) return { ok: true, actor: { actorKind: "identity", actorUuid: personUuid, actorOsUser: osUser } };
  if (operator) return { ok: true, actor: { actorKind: "operator_cli", actorUuid: null, actorOsUser: osUser } };
  return { ok: true, actor: { actorKind: "system", actorUuid: null, actorOsUser: null } };
}

/**
 * Where a change a handler serves comes from: its internal caller, its request
 * id, and from the operator CLI alone the OS user it reports
 * (OPERATOR_OS_USER_HEADER; any other caller's is ignored).
 */
export function changeOriginOf(ctx: HandlerContext): ChangeOrigin {
  const caller = callerNameOf(ctx.values);
  const osUser = caller === OPERATOR_CLI_CALLER ? (ctx.requestHeader.get(OPERATOR_OS_USER_HEADER) ?? "") : null;
  return { caller, osUser, requestId: currentContext()?.requestId || null };
}
