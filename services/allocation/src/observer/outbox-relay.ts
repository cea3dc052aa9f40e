import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { payinsV1, TRANSFER_STATE } from "@payin/proto";
import { fromTimestamp, toTimestamp } from "@payin/rpc";
import type { ObservationEvent, ObservationRepository } from "../store/observation-repository.js";

/** Most events sent to payins in one call. */
export const RELAY_BATCH = 500;
/** The fewest: a call of this many that still runs out of time is retried as it is. */
const MIN_RELAY_BATCH = 25;

/** An outbox event as payins' contract has it. */
export function observationToPb(event: ObservationEvent): payinsV1.Observation {
  if (event.kind === "armed") {
    return create(payinsV1.ObservationSchema, {
      intentUuid: event.intentUuid,
      event: { case: "armed", value: { rail: event.rail, chainId: BigInt(event.chainId), fromBlock: BigInt(event.fromBlock) } },
    });
  }
  return create(payinsV1.ObservationSchema, {
    intentUuid: event.intentUuid,
    event: {
      case: "transfer",
      value: {
        rail: event.rail,
        chainId: BigInt(event.chainId),
        txHash: event.txHash,
        logIndex: event.logIndex,
        asset: event.asset,
        decimals: event.decimals,
        amountBaseUnits: event.amount,
        fromAddress: event.from,
        toAddress: event.to,
        blockNumber: BigInt(event.blockNumber),
        blockHash: event.blockHash,
        blockTime: toTimestamp(new Date(event.blockTime)),
        state: TRANSFER_STATE.byName[event.state],
        version: event.version,
        dust: event.dust,
        vanished: event.vanished ?? false,
      },
    },
  });
}

/**
 * How long events of an intent payins does not know are offered again: an
 * address is allocated a moment before payins stores its intent, so the first
 * event can arrive first. Past this (longer than a create can take), the
 * allocation belongs to a create that failed: its events are dropped and its
 * watch ends.
 */
export const UNKNOWN_INTENT_GRACE_MS = 10 * 60_000;

/**
 * Carries the outbox to payins (RecordObservations), oldest first, and deletes
 * what payins acknowledged: a crash between the two sends it again, which
 * payins answers without recording anything twice. Payins' answers set when
 * each intent's watch ends: its deadline plus the watching margin, paid or not
 * (what arrives after paid is evidence payins flags after_paid, money the
 * merchant gives back), or now for an intent payins never stored.
 */
export class OutboxRelay {
  /**
   * Events sent per call now: halved when a call runs past its deadline (a
   * batch payins cannot record in time would otherwise be sent again and again
   * as it is), doubled back after each call that succeeds.
   */
  private batch = RELAY_BATCH;

  constructor(
    private readonly deps: {
      store: ObservationRepository;
      payins: Pick<Client<typeof payinsV1.PayinsService>, "recordObservations">;
      watchAfterExpiryMs: number;
      onWatchEnds?: (ends: { intentUuid: string; watchUntil: Date }[]) => void;
      now?: () => Date;
    },
  ) {}

  /** Delivers what is in the outbox; resolves with how many events were delivered. */
  async deliver(): Promise<number> {
    let delivered = 0;
    for (;;) {
      const asked = this.batch;
      const entries = await this.deps.store.pendingEvents(asked);
      if (entries.length === 0) return delivered;
      let res: payinsV1.RecordObservationsResponse;
      try {
        res = await this.deps.payins.recordObservations({ observations: entries.map((e) => observationToPb(e.event)) });
      } catch (error) {
        if (error instanceof ConnectError && error.code === Code.DeadlineExceeded) this.batch = Math.max(MIN_RELAY_BATCH, Math.floor(entries.length / 2));
        throw error;
      }
      this.batch = Math.min(RELAY_BATCH, this.batch * 2);
      const now = this.deps.now?.() ?? new Date();
      const unknown = new Set(res.intents.filter((s) => !s.known).map((s) => s.intentUuid));
      const ends = res.intents.flatMap((s) => {
        if (!s.known) return [];
        const expiresAt = fromTimestamp(s.expiresAt);
        return expiresAt ? [{ intentUuid: s.intentUuid, watchUntil: new Date(expiresAt.getTime() + this.deps.watchAfterExpiryMs) }] : [];
      });
      const waiting = entries.filter((e) => unknown.has(e.event.intentUuid) && now.getTime() - e.createdAt.getTime() < UNKNOWN_INTENT_GRACE_MS);
      const abandoned = [...unknown].filter((uuid) => !waiting.some((e) => e.event.intentUuid === uuid));
      ends.push(...abandoned.map((intentUuid) => ({ intentUuid, watchUntil: now })));
      await this.deps.store.setWatchEnds(ends);
      this.deps.onWatchEnds?.(ends);
      const done = entries.filter((e) => !waiting.includes(e));
      await this.deps.store.delivered(done.map((e) => e.id));
      delivered += done.length;
      // Events of intents payins does not know yet are offered again on a later pass.
      if (waiting.length > 0 || entries.length < asked) return delivered;
    }
  }
}
