import type { KeyObject } from "node:crypto";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { AuditOutboxRepository, systemClock, type Clock, type Database } from "@payin/db";
import { DomainError } from "@payin/errors";
import { isUuid, uuidv7 } from "@payin/ids";
import { allocationV1 } from "@payin/proto";
import { settleBatch } from "@payin/rpc";
import { reasonCodes } from "./reason-codes.js";
import { READINESS_REASON_TO_PB, walletToPb } from "./mappers.js";
import { AllocationReason } from "../domain/reasons.js";
import { allocateAddress, deriveRangeInline, getWallet, setWallet, type DeriveRange } from "../domain/wallet.js";
import { PoolKeeper } from "../domain/pool-keeper.js";
import { DEFAULT_OBSERVER_STALL_MS, getReadiness, type MerchantReadinessSource, type ReadinessDeps } from "../domain/readiness.js";
import type { Logger } from "@payin/logging";
import { observerHealth } from "../store/observer-health.js";
import { railControl } from "../store/rail-control.js";
import { isRail } from "@payin/money";
import {
  callerNameOf,
  changeOriginOf,
  OPERATOR_OS_USER_HEADER,
  recordedActor,
  toTimestamp,
  verifyActorAssertion,
  vouchedPerson,
  type ActorClaims,
  type ChangeOrigin,
  type PersonRefusal,
} from "@payin/rpc";
import { WALLET_PERMISSION } from "@payin/permissions";
import type { RailHalt } from "../store/observation-repository.js";
import { allocationBatcher, WalletRepository } from "../store/wallet-repository.js";

function uuid(field: string, value: string): string {
  if (!isUuid(value)) throw new DomainError(AllocationReason.InvalidArgument, `${field} must be a lower-case UUID`);
  return value;
}

/** Most allocations in one BatchAllocateAddresses call. */
export const MAX_BATCH_ALLOCATIONS = 1000;

const WALLET_REFUSALS: Readonly<Record<PersonRefusal, [AllocationReason, string]>> = {
  not_vouched: [AllocationReason.Forbidden, "setting a wallet needs a person signed in with a second factor (actor_assertion)"],
  malformed: [AllocationReason.Forbidden, "the actor's assertion is not one identity signed"],
  bad_signature: [AllocationReason.Forbidden, "the actor's assertion is not one identity signed"],
  expired: [AllocationReason.Forbidden, "the actor's assertion has expired; authenticate again"],
  lacks_permission: [AllocationReason.Forbidden, `setting a wallet needs the ${WALLET_PERMISSION} permission`],
  mfa_not_recent: [AllocationReason.MfaRequired, "setting a wallet needs a second factor completed within the last 15 minutes"],
};

/**
 * A wallet decides where a merchant's money goes: the person setting it must be
 * vouched for by identity, with the permission and a recent second factor
 * (vouchedPerson), whoever calls.
 */
function requireWalletSetter(key: KeyObject | undefined, assertion: string, ctx: HandlerContext, now: Date): ActorClaims | null {
  const caller = callerNameOf(ctx.values);
  const checked = vouchedPerson(key, { caller, assertion }, WALLET_PERMISSION, now.getTime());
  if (!checked.ok) {
    const [reason, message] = WALLET_REFUSALS[checked.refusal];
    throw new DomainError(reason, message);
  }
  return checked.claims;
}

/** The person identity's assertion vouches for, if one was sent (FORBIDDEN when it does not verify or names no person). */
function assertedPerson(key: KeyObject | undefined, assertion: string, now: Date): string | null {
  if (assertion === "") return null;
  const verified = key ? verifyActorAssertion(key, assertion, now.getTime()) : null;
  if (!verified?.ok || verified.claims.kind !== "identity") throw new DomainError(AllocationReason.Forbidden, "the actor's assertion is not one identity signed for a person");
  return verified.claims.uuid;
}

/** The actor of a change recorded here, with its request id (@payin/rpc's recordedActor); a bad OS user from the operator CLI is INVALID_ARGUMENT. */
function recordedActorOf(origin: ChangeOrigin, personUuid: string | null) {
  const recorded = recordedActor(origin, personUuid);
  if (!recorded.ok) throw new DomainError(AllocationReason.InvalidArgument, `${OPERATOR_OS_USER_HEADER} must be 1 to 64 of A-Z, a-z, 0-9, '.', '_', '@', '-' from the operator CLI`);
  return { ...recorded.actor, requestId: origin.requestId };
}

/**
 * AllocationService handlers: proto in, domain call, proto out. `deriveRange`
 * derives pool addresses (inline unless startService gives a worker);
 * `observerStallMs` is how long readiness lets the observer go without
 * progress; `clock` is what every instant (allocations, wallets, readiness) is read from.
 */
export function allocationHandlers(
  db: Database,
  logger: Logger,
  merchants: MerchantReadinessSource,
  deriveRange: DeriveRange = deriveRangeInline,
  options: { observerStallMs?: number; clock?: Clock; assertionKey?: KeyObject } = {},
): ServiceImpl<typeof allocationV1.AllocationService> {
  const clock = options.clock ?? systemClock;
  const readiness: Pick<ReadinessDeps, "observerStallMs" | "now"> = { observerStallMs: options.observerStallMs ?? DEFAULT_OBSERVER_STALL_MS, now: () => clock.now() };
  const observation = observerHealth(db);
  const allocateTogether = allocationBatcher(db, logger);
  const repo = () => new WalletRepository(db, allocateTogether);
  const pool = new PoolKeeper(repo, (error) => logger.warn({ err: error }, "address pool top-up failed"), deriveRange);
  const rails = railControl(db, () => clock.now().getTime());
  const allocateOne = async (req: allocationV1.AllocateAddressRequest) => {
    // A halted rail credits nothing: no new pay-in is given an address on it (readiness says provider_not_ready).
    if ((await rails.haltedRails()).has(req.rail)) {
      throw new DomainError(AllocationReason.PayinNotReady, `pay-ins on ${req.rail} are not ready: provider_not_ready (its chain observation is halted)`);
    }
    const allocation = await allocateAddress(repo(), {
      merchantUuid: uuid("merchant_uuid", req.merchantUuid),
      intentUuid: uuid("intent_uuid", req.intentUuid),
      rail: req.rail,
      now: clock.now(),
    }, (merchantUuid) => pool.ensure(merchantUuid));
    pool.allocated(allocation.merchantUuid, allocation.index);
    return { address: allocation.address, index: allocation.index, derivationPath: allocation.derivationPath };
  };
  const haltToPb = (halt: RailHalt | null) => (halt ? { kind: halt.kind, reason: halt.reason, since: toTimestamp(halt.since) } : undefined);
  return {
    async listRails() {
      const list = await rails.list();
      return {
        rails: list.map((r) => ({
          rail: r.rail,
          chainId: BigInt(r.chainId),
          nextBlock: r.nextBlock,
          settledThrough: r.settledThrough ?? undefined,
          advancedAt: toTimestamp(r.advancedAt),
          halt: haltToPb(r.halt),
        })),
      };
    },
    async resumeRail(req, ctx) {
      if (!isRail(req.rail)) throw new DomainError(AllocationReason.InvalidArgument, "rail must be one routing serves (bep20, erc20)");
      const rail = req.rail;
      const now = clock.now();
      const actor = recordedActorOf(changeOriginOf(ctx), assertedPerson(options.assertionKey, req.actorAssertion, now));
      // The change and its audit record in one transaction (the relay sends it to merchants' log).
      const cleared = await db.transaction(async (tx) => {
        const halt = await railControl(tx, () => now.getTime()).resume(rail, now);
        await new AuditOutboxRepository(tx).insert({ eventUuid: uuidv7(), ...actor, action: "rail.resume", targetType: "rail", targetUuid: null, occurredAt: now });
        return halt;
      });
      if (cleared) logger.warn({ rail: req.rail, halt: cleared.kind, reason: cleared.reason, caller: callerNameOf(ctx.values) }, "rail resumed by an operator");
      return { resumed: cleared !== null, cleared: haltToPb(cleared) };
    },
    async setWallet(req, ctx) {
      const merchantUuid = uuid("merchant_uuid", req.merchantUuid);
      const now = clock.now();
      const person = requireWalletSetter(options.assertionKey, req.actorAssertion, ctx, now);
      const actor = recordedActorOf(changeOriginOf(ctx), person?.uuid ?? null);
      // The change and its audit record in one transaction (the relay sends it to merchants' log).
      const wallet = await db.transaction(async (tx) => {
        const set = await setWallet(new WalletRepository(tx, allocateTogether), { merchantUuid, xpub: req.xpub, now });
        await new AuditOutboxRepository(tx).insert({ eventUuid: uuidv7(), ...actor, action: "wallet.set", targetType: "merchant", targetUuid: merchantUuid, occurredAt: now });
        return set;
      });
      await pool.ensure(merchantUuid); // derive the first addresses now, not on the first pay-in
      return { wallet: walletToPb(wallet) };
    },
    async getWallet(req) {
      return { wallet: walletToPb(await getWallet(repo(), uuid("merchant_uuid", req.merchantUuid))) };
    },
    allocateAddress: allocateOne,
    async batchAllocateAddresses(req) {
      if (req.requests.length === 0 || req.requests.length > MAX_BATCH_ALLOCATIONS) {
        throw new DomainError(AllocationReason.InvalidArgument, `a batch allocation takes 1 to ${MAX_BATCH_ALLOCATIONS} requests`);
      }
      // Each allocation runs as it would alone (one statement each; one
      // merchant's queue on its wallet row); only the hop is shared.
      const results = await settleBatch(req.requests, allocateOne, "allocated", {
        domain: "allocation", codes: reasonCodes, logger, method: "BatchAllocateAddresses",
      });
      return { results };
    },
    async getReadiness(req) {
      const pairs = await getReadiness(
        { merchants, wallets: repo(), observation, ...readiness },
        { merchantUuid: req.merchantUuid, pairs: req.pairs.map(({ asset, rail }) => ({ asset, rail })), jurisdiction: req.jurisdiction },
      );
      return { pairs: pairs.map((p) => ({ ...p, reasonCodes: p.reasons.map((r) => READINESS_REASON_TO_PB[r]) })) };
    },
  };
}
