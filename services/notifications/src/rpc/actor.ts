/**
 * Who makes a change, as this service records it: the person identity's
 * signed assertion vouches for (never what a caller says), with the call's
 * own request id.
 */
import type { KeyObject } from "node:crypto";
import type { HandlerContext } from "@connectrpc/connect";
import { DomainError } from "@payin/errors";
import { changeOriginOf, OPERATOR_OS_USER_HEADER, recordedActor, verifyActorAssertion, type AssertionRefusal } from "@payin/rpc";
import type { ChangeActor } from "../domain/model.js";
import { NotificationsReason } from "../domain/reasons.js";

/**
 * The test harness and in-process calls no caller was authenticated for (a
 * test's in-memory transport) may change things with no person (recorded as
 * `system`); no deployment knows either.
 */
const PROVISIONERS: ReadonlySet<string | undefined> = new Set(["test", undefined]);

const REFUSALS: Readonly<Record<AssertionRefusal, string>> = {
  malformed: "the actor's assertion is not one identity signed",
  bad_signature: "the actor's assertion is not one identity signed",
  expired: "the actor's assertion has expired; authenticate again",
};

/**
 * The actor of a change: the person `assertion` vouches for. FORBIDDEN without
 * an assertion (but from the provisioners above), for one that does not
 * verify, and for one of a machine credential: webhook endpoints and
 * redeliveries are a person's changes (the gateway checked their permission
 * for the merchant).
 */
export function changeActorOf(key: KeyObject, assertion: string, ctx: HandlerContext, now: Date): ChangeActor {
  const origin = changeOriginOf(ctx);
  let person: string | null = null;
  if (assertion === "") {
    if (!PROVISIONERS.has(origin.caller)) throw new DomainError(NotificationsReason.Forbidden, "a change needs the person's assertion from identity (actor_assertion)");
  } else {
    const verified = verifyActorAssertion(key, assertion, now.getTime());
    if (!verified.ok) throw new DomainError(NotificationsReason.Forbidden, REFUSALS[verified.refusal]);
    if (verified.claims.kind !== "identity") throw new DomainError(NotificationsReason.Forbidden, "webhooks are managed by a signed-in person, not a machine credential");
    person = verified.claims.uuid;
  }
  const recorded = recordedActor(origin, person);
  if (!recorded.ok) throw new DomainError(NotificationsReason.InvalidArgument, `${OPERATOR_OS_USER_HEADER} must be 1 to 64 of A-Z, a-z, 0-9, '.', '_', '@', '-' from the operator CLI`);
  return { ...recorded.actor, requestId: origin.requestId };
}
