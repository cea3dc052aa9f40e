import type { Client } from "@connectrpc/connect";
import { systemClock, type Clock } from "@payin/db";
import { errorCause, oncePerCause, type Logger } from "@payin/logging";
import type { Rail } from "@payin/money";
import type { payinsV1 } from "@payin/proto";
import type { RailConfig, RailsConfig } from "@payin/rails";
import { evmReader, RpcRateLimitedError, type ChainReader } from "../chain/evm-reader.js";
import type { ObservationRepository } from "../store/observation-repository.js";
import { Lease, type LeaseError } from "./rail-lease.js";
import { OutboxRelay } from "./outbox-relay.js";
import { RailObserver, type PassOutcome } from "./rail-observer.js";
import { WatchedSet } from "./watched-set.js";

/** How a rail's observation stands, for the health endpoint. */
export interface RailStatus {
  rail: Rail;
  chainId: number;
  /** No endpoint configured: not observed. */
  configured: boolean;
  /** How many endpoints are configured (two or more: transfers are confirmed by a second one before they settle). */
  endpoints: number;
  leaseHeld: boolean;
  /** Why the rail's lease could not be taken or kept at the last attempt (null: it could, or another observer holds it). */
  leaseError: LeaseError | null;
  lastPassAt: string | null;
  lastError: string | null;
  /** Why the rail credits nothing now (it is provider_not_ready), or null. */
  halted: { kind: string; reason: string; since: string } | null;
  /** Transfers due to settle that wait for a second endpoint's confirmation after the last pass. */
  awaitingConfirmation: number;
  /** Blocks one log query spans now (halved from the configured range when a provider refused a range). */
  blockRange: number;
}

/** How the relay of observations to payins stands, for the health endpoint. */
export interface RelayStatus {
  leaseHeld: boolean;
  /** Why the relay's lease could not be taken or kept at the last attempt. */
  leaseError: LeaseError | null;
  /** Why the last relay failed (null: it did not). */
  lastError: string | null;
}

export interface ObserverOptions {
  databaseUrl: string;
  rails: RailsConfig;
  store: ObservationRepository;
  payins: Pick<Client<typeof payinsV1.PayinsService>, "recordObservations">;
  logger: Logger;
  /** A reader per rail (default: viem over the rail's endpoint). */
  readerOf?: (rail: RailConfig) => ChainReader;
  /** How often the outbox is relayed when nothing was read (default 1 s). */
  relayIntervalMs?: number;
  onPass?: (rail: Rail, outcome: PassOutcome) => void;
  /** What passes, relays, leases and the status read the time from (default: the system's clock). */
  clock?: Clock;
}

/**
 * What an error of a rail's endpoint may say in logs and on /health: viem's
 * short message without its details, and never an endpoint's URL (providers
 * put API keys in them).
 */
export function describeRpcError(error: unknown, rpcUrls: readonly string[]): string {
  const text = (error as { shortMessage?: string }).shortMessage ?? (error instanceof Error ? error.message : String(error));
  let safe = text;
  for (const rpcUrl of rpcUrls) {
    safe = safe.split(rpcUrl).join("<endpoint>");
    try {
      const url = new URL(rpcUrl);
      for (const part of [url.href, `${url.origin}${url.pathname}`, url.pathname.length > 1 ? url.pathname : "", url.search, url.password, url.username]) {
        if (part) safe = safe.split(part).join("<endpoint>");
      }
    } catch {
      // not a URL: nothing more to hide
    }
  }
  return safe.split("\n")[0]!;
}

/**
 * The observer process's work: per configured rail, a loop that holds the
 * rail's lease and runs passes every poll interval; and the relay of the
 * outbox to payins, under a lease of its own. Stops cleanly.
 */
export class Observer {
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly leases = new Map<Rail, Lease>();
  private readonly statuses = new Map<Rail, RailStatus>();
  private readonly relayState = { leaseHeld: false, lastError: null as string | null };
  private readonly relayFailed: (error: unknown, fields?: Record<string, unknown>) => void;
  private relayRunning: Promise<void> | undefined;
  private relayTimer: NodeJS.Timeout | undefined;
  private relayAgain = false;
  private readonly relay: OutboxRelay;
  private readonly relayLease: Lease;
  private readonly watchedSets: WatchedSet[] = [];

  private readonly now: () => Date;

  constructor(private readonly options: ObserverOptions) {
    const clock = options.clock ?? systemClock;
    this.now = () => clock.now();
    this.relayFailed = oncePerCause(options.logger, "relaying observations to payins failed; trying again");
    this.relayLease = this.lease("relay");
    this.relay = new OutboxRelay({
      now: this.now,
      store: options.store,
      payins: options.payins,
      watchAfterExpiryMs: options.rails.watchAfterExpiryMs,
      onWatchEnds: (ends) => {
        for (const set of this.watchedSets) set.setWatchEnds(ends);
      },
    });
  }

  status(): RailStatus[] {
    return [...this.statuses.values()].map((status) => ({ ...status, leaseError: this.leases.get(status.rail)?.error ?? null }));
  }

  /** How the relay to payins stands. */
  relayStatus(): RelayStatus {
    return { ...this.relayState, leaseError: this.relayLease.error };
  }

  /**
   * Starts a loop per configured rail and the relay. Nothing is asked of the
   * endpoints here: a rail whose endpoints are down, serve another chain or
   * another token is reported (not ready, /health and the log say why) and
   * tried again every poll interval, while the other rail is observed.
   */
  async start(): Promise<void> {
    const { rails, logger } = this.options;
    for (const rail of Object.values(rails.rails)) {
      this.statuses.set(rail.rail, {
        rail: rail.rail,
        chainId: rail.chainId,
        configured: rail.rpcUrls.length > 0,
        endpoints: rail.rpcUrls.length,
        leaseHeld: false,
        leaseError: null,
        lastPassAt: null,
        lastError: null,
        halted: null,
        awaitingConfirmation: 0,
        blockRange: rail.maxBlockRange,
      });
      if (rail.rpcUrls.length === 0) {
        logger.warn({ rail: rail.rail }, "no JSON-RPC endpoint configured for this rail: it is not observed");
        continue;
      }
      if (rail.rpcUrls.length === 1) logger.warn({ rail: rail.rail }, "one JSON-RPC endpoint configured: transfers are not confirmed by a second one before they settle");
      const reader = this.options.readerOf?.(rail) ?? evmReader({ urls: rail.rpcUrls });
      const watched = new WatchedSet(this.options.store);
      this.watchedSets.push(watched);
      this.loop(rail, new RailObserver({ rail, reader, store: this.options.store, watched, logger, now: this.now }));
    }
    this.scheduleRelay(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.relayTimer) clearTimeout(this.relayTimer);
    await this.relayRunning?.catch(() => {});
    await Promise.all([...this.leases.values(), this.relayLease].map((lease) => lease.release()));
  }

  /** A lease whose failures to be taken or kept are logged once per cause and minute, not at every attempt. */
  private lease(name: string): Lease {
    const failed = oncePerCause(this.options.logger, "could not take or keep an observer lease; its work waits until it can");
    return new Lease(this.options.databaseUrl, name, { onError: (error) => failed(error, { lease: name }), now: this.now });
  }

  private later(ms: number, run: () => Promise<void>): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void run();
    }, ms);
    this.timers.add(timer);
  }

  private loop(rail: RailConfig, observer: RailObserver): void {
    const lease = this.lease(rail.rail);
    this.leases.set(rail.rail, lease);
    const status = this.statuses.get(rail.rail)!;
    let failing = false;
    const run = async (): Promise<void> => {
      if (this.stopped) return;
      let again = rail.pollIntervalMs;
      try {
        status.leaseHeld = await lease.hold();
        if (status.leaseHeld) {
          const outcome = await observer.pass();
          status.lastPassAt = this.now().toISOString();
          status.lastError = null;
          status.blockRange = observer.blockRange;
          const halt = outcome.kind === "halted" || outcome.kind === "rewound" ? outcome.halt : undefined;
          status.halted = halt ? { kind: halt.kind, reason: halt.reason, since: halt.since.toISOString() } : null;
          if (outcome.kind === "read" || outcome.kind === "caught-up") status.awaitingConfirmation = outcome.confirmation.waiting;
          if (failing) this.options.logger.info({ rail: rail.rail }, "observing again");
          failing = false;
          this.options.onPass?.(rail.rail, outcome);
          // A full range (probably still behind the head) or a rewind: read on at once.
          if (outcome.kind === "rewound" && !outcome.finalityViolation) again = 0;
          if (outcome.kind === "read" && outcome.to - outcome.from + 1n >= BigInt(observer.blockRange)) again = 0;
          if (outcome.kind === "retry") again = Math.min(again, 200);
          // More confirmed than one pass takes: go on at once (only while confirming makes progress).
          if ((outcome.kind === "read" || outcome.kind === "caught-up") && outcome.confirmation.more && outcome.confirmation.confirmed > 0) again = 0;
          // Anything recorded goes to payins now.
          if (outcome.kind !== "halted" && (outcome.kind !== "caught-up" || outcome.settledUpTo !== null)) this.kickRelay();
          if (outcome.kind === "rewound" && outcome.finalityViolation) this.kickRelay();
        }
      } catch (error) {
        status.lastError = describeRpcError(error, rail.rpcUrls);
        // A 429 is honoured: the next pass waits what the endpoint asked for.
        if (error instanceof RpcRateLimitedError) again = Math.max(again, error.retryAfterMs);
        if (!failing) this.options.logger.warn({ rail: rail.rail, reason: status.lastError }, "observation pass failed; trying again every poll interval");
        failing = true;
      }
      this.later(again, run);
    };
    this.later(0, run);
  }

  /** Relays now: at once when idle, right after the pass under way otherwise. */
  private kickRelay(): void {
    if (this.relayRunning) {
      this.relayAgain = true;
      return;
    }
    if (this.relayTimer) clearTimeout(this.relayTimer);
    this.relayTimer = undefined;
    this.scheduleRelay(0);
  }

  /** The one relay chain: a pass, then the next after the interval (or at once when kicked meanwhile). */
  private scheduleRelay(ms: number): void {
    if (this.stopped) return;
    this.relayTimer = setTimeout(() => {
      this.relayTimer = undefined;
      this.relayRunning = (async () => {
        try {
          this.relayState.leaseHeld = await this.relayLease.hold();
          if (this.relayState.leaseHeld) await this.relay.deliver();
          this.relayState.lastError = null;
        } catch (error) {
          this.relayState.lastError = errorCause(error).message;
          this.relayFailed(error);
        } finally {
          this.relayRunning = undefined;
          const again = this.relayAgain;
          this.relayAgain = false;
          this.scheduleRelay(again ? 0 : (this.options.relayIntervalMs ?? 1_000));
        }
      })();
    }, ms);
  }
}
