/**
 * Who acted, as this service stamps it: from identity's signed assertion and
 * the authenticated internal caller (@payin/rpc's stampActor), with the call's
 * own request id — never the kind, uuid or request id a caller wrote.
 */
import type { KeyObject } from "node:crypto";
import type { HandlerContext } from "@connectrpc/connect";
import { DomainError } from "@payin/errors";
import type { merchantsV1 } from "@payin/proto";
import { callerNameOf, currentContext, stampActor, type StampRefusal } from "@payin/rpc";
import type { ActorInput } from "../domain/audit.js";
import { MerchantsReason } from "../domain/reasons.js";

/**
 * The test harness's own setup calls, and in-process calls no caller was
 * authenticated for (a test's in-memory transport), may change things with no
 * actor (and so no audit event); no deployment knows either.
 */
const unaudited = (caller: string | undefined) => caller === undefined || caller === "test";

const REFUSALS: Readonly<Record<StampRefusal, [MerchantsReason, string]>> = {
  not_vouched: [MerchantsReason.Forbidden, "a change needs the actor's assertion from identity (Actor.assertion)"],
  malformed: [MerchantsReason.Forbidden, "the actor's assertion is not one identity signed"],
  bad_signature: [MerchantsReason.Forbidden, "the actor's assertion is not one identity signed"],
  expired: [MerchantsReason.Forbidden, "the actor's assertion has expired; authenticate again"],
  bad_os_user: [MerchantsReason.InvalidArgument, "actor.os_user must be 1 to 64 of A-Z, a-z, 0-9, '.', '_', '@', '-' from the operator CLI, and empty from any other caller"],
};

/**
 * The actor of a change requested with `actor`, or undefined when the test
 * harness asks for none. FORBIDDEN when nothing vouches for one, and for the
 * operator CLI without a signed-in person unless `operatorAlone` (a record of
 * its break-glass work, never a change here); INVALID_ARGUMENT for a malformed
 * OS user.
 */
export function actorOfCall(
  key: KeyObject,
  actor: merchantsV1.Actor | undefined,
  ctx: HandlerContext,
  now: Date,
  options: { operatorAlone?: boolean } = {},
): ActorInput | undefined {
  const caller = callerNameOf(ctx.values);
  if (!actor && unaudited(caller)) return undefined;
  const stamped = stampActor(key, { caller, assertion: actor?.assertion ?? "", osUser: actor?.osUser ?? "" }, now.getTime());
  if (!stamped.ok) {
    const [reason, message] = REFUSALS[stamped.refusal];
    throw new DomainError(reason, message);
  }
  if (stamped.actor.kind === "operator_cli" && !options.operatorAlone) {
    throw new DomainError(MerchantsReason.Forbidden, "a change from the operator CLI needs a person signed in with a second factor (payinctl session login)");
  }
  return { kind: stamped.actor.kind, uuid: stamped.actor.uuid ?? "", requestId: currentContext()?.requestId ?? "", osUser: stamped.actor.osUser };
}
