import type { Client } from "@connectrpc/connect";
import type { Logger } from "@payin/logging";
import type { Rail } from "@payin/money";
import type { payinsV1 } from "@payin/proto";
import type { RailConfig, RailsConfig } from "@payin/rails";
import { evmReader, type ChainReader } from "../chain/evm-reader.js";
import type { ObservationRepository } from "../store/observation-repository.js";
import { Lease } from "./rail-lease.js";
import { OutboxRelay } from "./outbox-relay.js";
import { RailObserver, type PassOutcome } from "./rail-observer.js";
import { WatchedSet } from "./watched-set.js";

/** How a rail's observation stands, for the health endpoint. */
export interface RailStatus {
  rail: Rail;
  chainId: number;
  /** No endpoint configured: not observed. */
  configured: boolean;
  leaseHeld: boolean;
  lastPassAt: string | null;
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
}

/**
 * What an error of a rail's endpoint may say in logs and on /health: viem's
 * short message without its details, and never the endpoint's URL (providers
 * put API keys in it).
 */
export function describeRpcError(error: unknown, rpcUrl: string | undefined): string {
  const text = (error as { shortMessage?: string }).shortMessage ?? (error instanceof Error ? error.message : String(error));
  let safe = text;
  if (rpcUrl) {
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
 * Checks each token's `decimals()` on its chain against the configuration, and
 * the chain id: an observer of the wrong chain or token would credit wrongly.
 * Throws naming the first mismatch.
 */
export async function verifyRail(rail: RailConfig, reader: ChainReader): Promise<void> {
  const chainId = await reader.chainId();
  if (chainId !== rail.chainId) throw new Error(`${rail.rail}: the endpoint serves chain ${chainId}, not the configured ${rail.chainId}`);
  for (const token of [rail.token, ...rail.otherTokens]) {
    const decimals = await reader.decimals(token.contract);
    if (decimals !== token.decimals) {
      throw new Error(`${rail.rail}: ${token.asset} at ${token.contract} has ${decimals} decimals on chain, not the configured ${token.decimals}`);
    }
  }
}

/**
 * The observer process's work: per configured rail, a loop that holds the
 * rail's lease and runs passes every poll interval; and the relay of the
 * outbox to payins, under a lease of its own. Stops cleanly.
 */
export class Observer {
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly leases: Lease[] = [];
  private readonly statuses = new Map<Rail, RailStatus>();
  private relayRunning: Promise<void> | undefined;
  private relayTimer: NodeJS.Timeout | undefined;
  private relayAgain = false;
  private readonly relay: OutboxRelay;
  private readonly relayLease: Lease;
  private readonly watchedSets: WatchedSet[] = [];

  constructor(private readonly options: ObserverOptions) {
    this.relayLease = new Lease(options.databaseUrl, "relay");
    this.relay = new OutboxRelay({
      store: options.store,
      payins: options.payins,
      watchAfterExpiryMs: options.rails.watchAfterExpiryMs,
      onWatchEnds: (ends) => {
        for (const set of this.watchedSets) set.setWatchEnds(ends);
      },
    });
  }

  status(): RailStatus[] {
    return [...this.statuses.values()];
  }

  /** Verifies every configured rail (throws on a mismatch), then starts the loops. */
  async start(): Promise<void> {
    const { rails, logger } = this.options;
    const observers: { rail: RailConfig; observer: RailObserver }[] = [];
    for (const rail of Object.values(rails.rails)) {
      this.statuses.set(rail.rail, { rail: rail.rail, chainId: rail.chainId, configured: !!rail.rpcUrl, leaseHeld: false, lastPassAt: null, lastError: null });
      if (!rail.rpcUrl) {
        logger.warn({ rail: rail.rail }, "no JSON-RPC endpoint configured for this rail: it is not observed");
        continue;
      }
      const reader = this.options.readerOf?.(rail) ?? evmReader({ url: rail.rpcUrl });
      try {
        await verifyRail(rail, reader);
      } catch (error) {
        throw new Error(describeRpcError(error, rail.rpcUrl));
      }
      const watched = new WatchedSet(this.options.store);
      this.watchedSets.push(watched);
      observers.push({ rail, observer: new RailObserver({ rail, reader, store: this.options.store, watched, logger }) });
    }
    for (const { rail, observer } of observers) this.loop(rail, observer);
    this.scheduleRelay(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.relayTimer) clearTimeout(this.relayTimer);
    await this.relayRunning?.catch(() => {});
    await Promise.all([...this.leases, this.relayLease].map((lease) => lease.release()));
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
    const lease = new Lease(this.options.databaseUrl, rail.rail);
    this.leases.push(lease);
    const status = this.statuses.get(rail.rail)!;
    let failing = false;
    const run = async (): Promise<void> => {
      if (this.stopped) return;
      let again = rail.pollIntervalMs;
      try {
        status.leaseHeld = await lease.hold();
        if (status.leaseHeld) {
          const outcome = await observer.pass();
          status.lastPassAt = new Date().toISOString();
          status.lastError = null;
          if (failing) this.options.logger.info({ rail: rail.rail }, "observing again");
          failing = false;
          this.options.onPass?.(rail.rail, outcome);
          // A full range (probably still behind the head) or a rewind: read on at once.
          if (outcome.kind === "rewound") again = 0;
          if (outcome.kind === "read" && outcome.to - outcome.from + 1n >= BigInt(rail.maxBlockRange)) again = 0;
          if (outcome.kind === "retry") again = Math.min(again, 200);
          // Anything recorded goes to payins now.
          if (outcome.kind !== "caught-up" || outcome.settledUpTo !== null) this.kickRelay();
        }
      } catch (error) {
        status.lastError = describeRpcError(error, rail.rpcUrl);
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
          if (await this.relayLease.hold()) await this.relay.deliver();
        } catch (error) {
          this.options.logger.warn({ reason: (error as Error).message }, "relaying observations to payins failed; trying again");
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
