import type { KeyObject } from "node:crypto";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { systemClock, type Clock, type Queryable } from "@payin/db";
import { DomainError } from "@payin/errors";
import { isUuid } from "@payin/ids";
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
import { callerNameOf, toTimestamp, vouchedPerson, type PersonRefusal } from "@payin/rpc";
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
function requireWalletSetter(key: KeyObject | undefined, assertion: string, ctx: HandlerContext, now: Date): void {
  const caller = callerNameOf(ctx.values);
  const checked = vouchedPerson(key, { caller, assertion }, WALLET_PERMISSION, now.getTime());
  if (!checked.ok) {
    const [reason, message] = WALLET_REFUSALS[checked.refusal];
    throw new DomainError(reason, message);
  }
}

/**
 * AllocationService handlers: proto in, domain call, proto out. `deriveRange`
 * derives pool addresses (inline unless startService gives a worker);
 * `observerStallMs` is how long readiness lets the observer go without
 * progress; `clock` is what every instant (allocations, wallets, readiness) is read from.
 */
export function allocationHandlers(
  db: Queryable,
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
      const cleared = await rails.resume(req.rail, clock.now());
      if (cleared) logger.warn({ rail: req.rail, halt: cleared.kind, reason: cleared.reason, caller: callerNameOf(ctx.values) }, "rail resumed by an operator");
      return { resumed: cleared !== null, cleared: haltToPb(cleared) };
    },
    async setWallet(req, ctx) {
      const merchantUuid = uuid("merchant_uuid", req.merchantUuid);
      requireWalletSetter(options.assertionKey, req.actorAssertion, ctx, clock.now());
      const wallet = await setWallet(repo(), { merchantUuid, xpub: req.xpub, now: clock.now() });
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
