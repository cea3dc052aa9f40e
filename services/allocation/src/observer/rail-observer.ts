import type { Logger } from "@payin/logging";
import type { RailConfig } from "@payin/rails";
import type { Address, Hex } from "viem";
import { BlockUnknownError, ChainIdentityError, RangeTooLargeError, WitnessUnavailableError, type ChainReader, type ChainWitness, type TransferLog } from "../chain/evm-reader.js";
import {
  checkLinks,
  commonAncestor,
  keptFloor,
  nextRange,
  settledNumber,
  splitByHash,
  uniqueLogs,
  type BlockRef,
  type FetchedHeader,
} from "../domain/observation/chain-view.js";
import { matchTransfers } from "../domain/observation/matching.js";
import { witnessVerdict, type WitnessReceipt, type WitnessVerdict } from "../domain/observation/witness.js";
import { STICKY_HALTS, type HaltKind, type ObservationRepository, type PendingTransfer, type RailHalt, type TransferKey } from "../store/observation-repository.js";
import type { WatchedSet } from "./watched-set.js";

/** What one pass did (for logs, tests and the bench). */
export type PassOutcome =
  | { kind: "read"; from: bigint; to: bigint; transfers: number; settledUpTo: bigint | null; confirmation: ConfirmationOutcome }
  | { kind: "caught-up"; settledUpTo: bigint | null; confirmation: ConfirmationOutcome }
  | { kind: "rewound"; ancestor: bigint; orphaned: number; finalityViolation: boolean; halt?: RailHalt }
  | { kind: "retry"; reason: string }
  /** The rail is halted: nothing was read or settled. */
  | { kind: "halted"; halt: RailHalt };

/** What the second endpoint said of the transfers due to settle. */
export interface ConfirmationOutcome {
  /** Transfers a second endpoint was asked about. */
  asked: number;
  /** Of those, confirmed (and settled). */
  confirmed: number;
  /** Transfers not settled yet because the second endpoint has not reached their block, or none could be asked. */
  waiting: number;
  /** Why none could be asked, when none could. */
  unavailable: string | null;
  /** More transfers are due than one pass confirms: the next pass should follow at once. */
  more: boolean;
}

export interface RailObserverDeps {
  rail: RailConfig;
  reader: ChainReader;
  store: ObservationRepository;
  watched: WatchedSet;
  logger: Logger;
  now?: () => Date;
}

/** Most block headers (or per-block log reads) asked for at once. */
const HEADER_CONCURRENCY = 8;

/**
 * Blocks below the settled point whose logs are still read block by block (by
 * hash), so that an endpoint's backend lagging up to this far behind the head
 * another backend answered cannot leave a log out of a range answer unseen.
 */
export const LOG_LAG_MARGIN = 32;

/** Questions to the second endpoint in flight at once while confirming transfers. */
const WITNESS_CONCURRENCY = 32;

/**
 * Transfers confirmed in one pass at most, oldest first: a backlog is
 * confirmed over several passes (run back to back), each short enough that
 * reading goes on between them.
 */
export const CONFIRMATIONS_PER_PASS = 2_000;

/** Full-range reads after which a range halved for a provider's cap is tried doubled again. */
const RANGE_REGROW_AFTER = 100;

const NO_CONFIRMATION: ConfirmationOutcome = { asked: 0, confirmed: 0, waiting: 0, unavailable: null, more: false };

async function inBatches<T, R>(items: readonly T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(run))));
  return out;
}

const ascending = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

function sameLog(a: TransferLog, b: TransferLog): boolean {
  return a.blockHash.toLowerCase() === b.blockHash.toLowerCase() && a.contract === b.contract && a.from === b.from && a.to === b.to && a.value === b.value;
}

/**
 * One rail's observation, one pass at a time. Each pass checks every endpoint
 * it uses is still the rail's chain (chain id and genesis block), reads the
 * blocks after the cursor (bounded range; the newest by block hash, so a
 * lagging backend answers an error rather than leaving logs out), matches
 * Transfer logs of the configured tokens to watched addresses, keeps the
 * headers of the blocks near and above the settled point, records it all with
 * the cursor; then settles what is settled (min of `finalized` and head −
 * confirmations) once a second endpoint confirms it, where two or more are
 * configured. A stored block that is no longer canonical means a
 * reorganisation: walk back to the common ancestor; one below the settled
 * point is a finality violation, which halts the rail. A halted rail reads
 * and credits nothing. The caller holds the rail's lease.
 */
export class RailObserver {
  private readonly now: () => Date;
  private readonly contracts: Address[];
  /** The chain's genesis hash: configured for the public chains, else learned at the first pass and kept for the process's life. */
  private genesis: Hex | undefined;
  /** The token decimals were checked against the configuration. */
  private tokensChecked = false;
  /** The largest range a log query asks for now: halved when a provider refuses one, regrown slowly. */
  private maxRange: number;
  private fullReads = 0;

  constructor(private readonly deps: RailObserverDeps) {
    this.now = deps.now ?? (() => new Date());
    this.contracts = [deps.rail.token, ...deps.rail.otherTokens].map((t) => t.contract);
    this.genesis = deps.rail.genesisHash;
    this.maxRange = deps.rail.maxBlockRange;
  }

  /** The log range in force (for health and tests). */
  get blockRange(): number {
    return this.maxRange;
  }

  async pass(): Promise<PassOutcome> {
    try {
      return await this.observe();
    } catch (error) {
      if (error instanceof ChainIdentityError) return this.halt("chain_identity", error.message);
      throw error;
    }
  }

  private async observe(): Promise<PassOutcome> {
    const { rail, reader, store, logger } = this.deps;
    reader.beginPass({ chainId: rail.chainId, genesisHash: this.genesis });
    const head = await reader.headNumber();
    // Everything this pass reads must come from one endpoint: a failover during it makes the pass start again.
    const reporter = reader.current;
    const finalized = await reader.finalized();
    this.genesis = (await reader.identity()).genesisHash;
    const settled = settledNumber(head, finalized?.number ?? null, rail.confirmations);

    const cursor = await store.cursor(rail.rail, { chainId: rail.chainId, genesisHash: this.genesis }, head, this.now());
    if (cursor.restarted) logger.warn({ rail: rail.rail }, "the rail's chain has another genesis block than the one observed before: observing it afresh from its head");
    if (cursor.halt && STICKY_HALTS.includes(cursor.halt.kind)) return { kind: "halted", halt: cursor.halt };
    if (!this.tokensChecked) {
      const problem = await this.tokenProblem();
      if (problem) return this.halt("configuration", problem);
      this.tokensChecked = true;
    }

    const stored = await store.storedBlocks(rail.chainId);
    const storedByNumber = new Map(stored.map((b) => [b.number, b]));
    let next = cursor.nextBlock;

    // The last block read must still be canonical; then so is every block linked below it.
    const tip = storedByNumber.get(next - 1n);
    if (tip && (await reader.block(tip.number)).hash !== tip.hash) return this.rewind(next, stored, tip, cursor.settledThrough);

    let outcome: PassOutcome;
    const range = nextRange(next, head, this.maxRange);
    if (range) {
      const read = await this.read(range, settled, storedByNumber.get(range.from - 1n), reporter);
      if (read.kind === "reorganised") return this.rewind(next, stored, tip, cursor.settledThrough);
      if (read.kind === "retry") return read;
      next = read.to + 1n;
      outcome = { kind: "read", from: range.from, to: read.to, transfers: read.transfers, settledUpTo: null, confirmation: NO_CONFIRMATION };
    } else {
      await store.touch(rail.rail, next, this.now());
      outcome = { kind: "caught-up", settledUpTo: null, confirmation: NO_CONFIRMATION };
    }

    // Settle up to the settled block, but never past what was read (and linked to the verified tip).
    if (settled !== null) {
      const upTo = settled < next - 1n ? settled : next - 1n;
      if (upTo >= 0n) {
        const settling = await this.settle(next, upTo);
        if (settling.kind === "halted") return settling;
        outcome = { ...outcome, settledUpTo: upTo, confirmation: settling.confirmation };
      }
    }
    if (cursor.halt) await this.endSelfClearingHalt();
    return outcome;
  }

  /**
   * Identity and configuration halts end once a whole pass went right and every
   * configured endpoint serves the rail's chain again (not only the one read).
   */
  private async endSelfClearingHalt(): Promise<void> {
    const { rail, reader, store, logger } = this.deps;
    await reader.verifyAll();
    const cleared = await store.clearHalt(rail.rail, ["chain_identity", "configuration"], this.now());
    if (cleared) logger.warn({ rail: rail.rail, halt: cleared.kind, reason: cleared.reason }, "the rail's endpoints serve the configured chain again: observing again");
  }

  /** Why the configured tokens cannot be trusted on this chain, or null. */
  private async tokenProblem(): Promise<string | null> {
    const { rail, reader } = this.deps;
    for (const token of [rail.token, ...rail.otherTokens]) {
      const decimals = await reader.decimals(token.contract);
      if (decimals !== token.decimals) return `${token.asset} at ${token.contract} has ${decimals} decimals on chain, not the configured ${token.decimals}`;
    }
    return null;
  }

  private async read(
    range: { from: bigint; to: bigint },
    settled: bigint | null,
    below: BlockRef | undefined,
    reporter: string,
  ): Promise<{ kind: "read"; to: bigint; transfers: number } | { kind: "reorganised" } | Extract<PassOutcome, { kind: "retry" }>> {
    const { rail, reader, store } = this.deps;
    const split = splitByHash(range, settled, LOG_LAG_MARGIN);
    let logs: TransferLog[] = [];
    if (split.rangeTo !== null) {
      try {
        logs = await reader.transferLogs(this.contracts, range.from, split.rangeTo);
      } catch (error) {
        if (!(error instanceof RangeTooLargeError) || this.maxRange === 1) throw error;
        this.maxRange = Math.max(1, Math.floor(this.maxRange / 2));
        this.fullReads = 0;
        this.deps.logger.warn({ rail: rail.rail, blockRange: this.maxRange }, "the endpoint refused a log range as too large: reading smaller ranges from now on");
        return { kind: "retry", reason: "log range halved" };
      }
    }
    // Every block of the range was mined before the head was read: an address allocated before any of them is in the set now.
    await this.deps.watched.refresh(this.now());
    const watched = this.deps.watched.addresses;
    // Headers: the last block read (the next pass's tip), blocks read by hash, blocks kept for reorganisations, blocks with a transfer.
    const keepFrom = settled === null ? range.from : keptFloor(settled);
    const firstHeader = [split.byHashFrom ?? range.to + 1n, keepFrom, range.to].reduce((a, b) => (a < b ? a : b));
    const numbers = new Set<bigint>([range.to, ...logs.filter((log) => watched.has(log.to)).map((log) => log.blockNumber)]);
    for (let n = firstHeader > range.from ? firstHeader : range.from; n <= range.to; n++) numbers.add(n);
    let headers = await inBatches([...numbers].sort(ascending), HEADER_CONCURRENCY, (n) => this.deps.reader.block(n));
    let to = range.to;
    if (split.byHashFrom !== null) {
      // Block by block, oldest first: the read ends below the first block the answering backend does not know yet.
      const byHash = headers.filter((h) => h.number >= split.byHashFrom!);
      for (let i = 0; i < byHash.length; i += HEADER_CONCURRENCY) {
        const batch = byHash.slice(i, i + HEADER_CONCURRENCY);
        const found = await Promise.allSettled(batch.map((h) => reader.transferLogsAt(this.contracts, { number: h.number, hash: h.hash })));
        const unknown = found.findIndex((f) => f.status === "rejected");
        for (const f of unknown === -1 ? found : found.slice(0, unknown)) logs = logs.concat((f as PromiseFulfilledResult<TransferLog[]>).value);
        if (unknown === -1) continue;
        const error = (found[unknown] as PromiseRejectedResult).reason as unknown;
        if (!(error instanceof BlockUnknownError)) throw error;
        to = error.blockNumber - 1n;
        break;
      }
      if (to < range.from) return { kind: "retry", reason: `the endpoint does not know block ${range.from} yet` };
      if (to < range.to) {
        headers = headers.filter((h) => h.number <= to);
        logs = logs.filter((log) => log.blockNumber <= to);
      }
    }
    if (reader.current !== reporter) return { kind: "retry", reason: "the endpoint in use changed during the read" };
    const unique = uniqueLogs(logs, sameLog);
    if (unique === null) return { kind: "retry", reason: "the endpoint answered two different logs under one transaction and index" };
    const matched = unique.filter((log) => watched.has(log.to));
    const check = checkLinks(below, headers, matched.map(logBlock));
    if (check.kind === "reorganised") return { kind: "reorganised" };
    if (check.kind === "moving") return { kind: "retry", reason: check.reason };
    const byNumber = new Map<bigint, FetchedHeader>(headers.map((h) => [h.number, h]));
    const transfers = matchTransfers(rail, matched, watched, (n) => byNumber.get(n)!.timestamp);
    const keep = headers.filter((h) => h.number >= keepFrom || h.number === to);
    await store.recordRead({ rail: rail.rail, chainId: rail.chainId, from: range.from, to, keep, transfers, reportedBy: reporter, now: this.now() });
    if (range.to - range.from + 1n >= BigInt(this.maxRange) && this.maxRange < rail.maxBlockRange && ++this.fullReads >= RANGE_REGROW_AFTER) {
      this.maxRange = Math.min(rail.maxBlockRange, this.maxRange * 2);
      this.fullReads = 0;
    }
    return { kind: "read", to, transfers: transfers.length };
  }

  /**
   * Settles the pending transfers at or below `upTo`. With two or more
   * endpoints, each only once an endpoint other than the one that reported it
   * confirms it, no deeper than that endpoint's own head − confirmations. A
   * transfer the second endpoint contradicts is never credited and halts the
   * rail; it is orphaned only when the reporting endpoint itself, asked
   * directly, no longer backs it.
   */
  private async settle(next: bigint, upTo: bigint): Promise<{ kind: "settled"; confirmation: ConfirmationOutcome } | Extract<PassOutcome, { kind: "halted" }>> {
    const { rail, reader, store } = this.deps;
    const keptFrom = keptFloor(upTo);
    if (reader.endpoints < 2) {
      await store.settle({ rail: rail.rail, chainId: rail.chainId, expectedNext: next, upTo, keptFrom, now: this.now() });
      return { kind: "settled", confirmation: NO_CONFIRMATION };
    }
    const due = await store.pendingUpTo(rail.chainId, upTo, CONFIRMATIONS_PER_PASS + 1);
    const more = due.length > CONFIRMATIONS_PER_PASS;
    if (more) due.length = CONFIRMATIONS_PER_PASS;
    const confirmed: TransferKey[] = [];
    const disputed: { transfer: PendingTransfer; reason: string }[] = [];
    let waiting = 0;
    let unavailable: string | null = null;
    // By reporter: each group is confirmed by the endpoints other than the one that reported it.
    const byReporter = new Map<string, PendingTransfer[]>();
    for (const transfer of due) {
      const key = transfer.reportedBy ?? reader.current;
      byReporter.set(key, [...(byReporter.get(key) ?? []), transfer]);
    }
    for (const [reportedBy, transfers] of byReporter) {
      const witness = reader.witness([reportedBy]);
      if (!witness) {
        waiting += transfers.length;
        continue;
      }
      const ask = askOnce(witness);
      try {
        // The witness's own depth: a reading endpoint that inflates its head settles nothing early.
        const deepest = (await ask.headNumber()) - BigInt(rail.confirmations);
        const askable = transfers.filter((t) => t.blockNumber <= deepest);
        waiting += transfers.length - askable.length;
        const verdicts = await inBatches(askable, WITNESS_CONCURRENCY, async (t) => witnessVerdict(t, await ask.blockHash(t.blockNumber), await ask.receipt(t.txHash)));
        verdicts.forEach((verdict: WitnessVerdict, i) => {
          const transfer = askable[i]!;
          if (verdict.kind === "confirmed") confirmed.push(transfer);
          else if (verdict.kind === "not-yet") waiting++;
          else disputed.push({ transfer, reason: verdict.reason });
        });
      } catch (error) {
        if (!(error instanceof WitnessUnavailableError)) throw error;
        // Nothing of this group is settled on a partial answer: it is asked again at the next pass.
        unavailable = error.message;
        waiting += transfers.filter((t) => !confirmed.includes(t) && !disputed.some((d) => d.transfer === t)).length;
        for (let i = confirmed.length - 1; i >= 0; i--) if (transfers.includes(confirmed[i] as PendingTransfer)) confirmed.splice(i, 1);
        for (let i = disputed.length - 1; i >= 0; i--) if (transfers.includes(disputed[i]!.transfer)) disputed.splice(i, 1);
      }
    }
    const confirmation = { asked: due.length, confirmed: confirmed.length, waiting, unavailable, more };
    if (unavailable) this.deps.logger.warn({ rail: rail.rail, waiting, reason: unavailable }, "transfers wait to settle: no second endpoint can confirm them");
    await store.settle({ rail: rail.rail, chainId: rail.chainId, expectedNext: next, upTo, keptFrom, keys: confirmed, now: this.now() });
    if (disputed.length === 0) return { kind: "settled", confirmation };

    // Does the reporting endpoint itself, asked directly, still back what it reported? If it says otherwise, the transfer was never on chain as recorded.
    const gone: TransferKey[] = [];
    for (const { transfer } of disputed) {
      const own = reader.endpoint(transfer.reportedBy ?? reader.current);
      if (!own) continue;
      try {
        const verdict = witnessVerdict(transfer, await own.blockHash(transfer.blockNumber), await own.receipt(transfer.txHash));
        if (verdict.kind === "disputed") gone.push(transfer);
      } catch {
        // No answer is no contrary answer: the transfer stays pending, and the rail halts all the same.
      }
    }
    const first = disputed[0]!;
    const reason = `endpoints disagree: ${first.reason}${disputed.length > 1 ? ` (and ${disputed.length - 1} more transfers)` : ""}; nothing of it is credited${
      gone.length > 0 ? `, and ${gone.length} transfer${gone.length > 1 ? "s" : ""} the reporting endpoint no longer backs ${gone.length > 1 ? "are" : "is"} orphaned` : ""
    }`;
    await store.vanish({ rail: rail.rail, chainId: rail.chainId, expectedNext: next, keys: gone, halt: { kind: "disagreement", reason }, now: this.now() });
    return this.halted("disagreement", reason);
  }

  private async halt(kind: HaltKind, reason: string): Promise<Extract<PassOutcome, { kind: "halted" }>> {
    const { rail, store } = this.deps;
    const now = this.now();
    const halt = (await store.halt(rail.rail, kind, reason, now)) ?? { kind, reason, since: now };
    return this.alert(halt);
  }

  /** A halt already written (in the transaction of what caused it): read back, alerted. */
  private async halted(kind: HaltKind, reason: string): Promise<Extract<PassOutcome, { kind: "halted" }>> {
    const halt = (await this.deps.store.haltOf(this.deps.rail.rail)) ?? { kind, reason, since: this.now() };
    return this.alert(halt);
  }

  private alert(halt: RailHalt): Extract<PassOutcome, { kind: "halted" }> {
    this.deps.logger.error({ rail: this.deps.rail.rail, halt: halt.kind, reason: halt.reason, alert: true }, "rail halted: nothing on it is credited until this is resolved");
    return { kind: "halted", halt };
  }

  /**
   * After a reorganisation: walks back to the true common ancestor (over the
   * kept blocks, then over the blocks of recorded transfers, else from the
   * first block any watched address is watched from), orphans what lay above
   * it and reads forward again. One below the settled point is a finality
   * violation: the settled transfers above the ancestor are checked against
   * the chain and those gone orphaned with `vanished_at`, and the rail halts,
   * in the same transaction as the rewind.
   */
  private async rewind(next: bigint, storedDescending: readonly BlockRef[], tip: BlockRef | undefined, settledThrough: bigint | null): Promise<PassOutcome> {
    const { rail, reader, store, logger } = this.deps;
    // The chain that says so must still be the rail's: checked again before anything is undone.
    reader.beginPass({ chainId: rail.chainId, genesisHash: this.genesis });
    await reader.identity();
    const reading = reader.current;
    const canonical = async (n: bigint) => (await reader.block(n)).hash;
    if (tip && reader.endpoints >= 2) {
      // A second endpoint must see the reorganisation too: one endpoint alone cannot undo what was read.
      const witness = reader.witness([reading]);
      const theirs = witness ? await witness.blockHash(tip.number) : null;
      if (theirs === null) return { kind: "retry", reason: "waiting for a second endpoint to see the reorganisation" };
      if (theirs.toLowerCase() === tip.hash.toLowerCase()) {
        return this.halt("disagreement", `endpoints disagree: the reading endpoint replaced block ${tip.number}, the second endpoint still has it; nothing is undone`);
      }
    }
    let ancestor = await commonAncestor(storedDescending, canonical);
    const deeperThanKept = ancestor === null;
    if (ancestor === null) {
      // Deeper than every kept block: the blocks of recorded transfers below them, else everything still watched.
      const lowest = storedDescending.at(-1)?.number ?? next;
      ancestor = await commonAncestor(await store.transferBlocksBelow(rail.chainId, lowest, 256), canonical);
      if (ancestor === null) {
        const first = await store.earliestWatchedBlock(rail.rail, this.now());
        ancestor = first !== null && first > 0n ? first - 1n : 0n;
        if (ancestor >= lowest) ancestor = lowest > 0n ? lowest - 1n : 0n;
      }
    }
    if (reader.current !== reading) return { kind: "retry", reason: "the endpoint in use changed during the walk back" };
    const violation = deeperThanKept || (settledThrough !== null && ancestor < settledThrough);
    if (!violation) {
      const { orphaned } = await store.rewind({ rail: rail.rail, chainId: rail.chainId, expectedNext: next, ancestor, now: this.now() });
      logger.warn({ rail: rail.rail, ancestor: ancestor.toString(), orphaned }, "chain reorganised: transfers above the common ancestor orphaned");
      return { kind: "rewound", ancestor, orphaned, finalityViolation: false };
    }
    // Settled transfers above the fork: still on the chain (perhaps in another block), or gone. Gone only when no endpoint still has them.
    const witness = reader.endpoints >= 2 ? reader.witness([reading]) : null;
    const gone: TransferKey[] = [];
    let disputed = 0;
    for (const transfer of await store.settledAbove(rail.chainId, ancestor)) {
      if (await onChain(transfer, (tx) => reader.receipt(tx))) continue;
      if (witness && (await onChain(transfer, (tx) => witness.receipt(tx)))) disputed++;
      else gone.push(transfer);
    }
    const reason = `finality violation: the chain reorganised below its settled block ${settledThrough ?? "(unknown)"}${
      deeperThanKept ? ", deeper than every kept block" : ""
    }; common ancestor ${ancestor}; ${gone.length} settled transfer${gone.length === 1 ? "" : "s"} no longer on chain (orphaned)${
      disputed > 0 ? `; ${disputed} the second endpoint still has (kept settled)` : ""
    }; blocks above the ancestor are read again once an operator resumes the rail`;
    const { orphaned } = await store.rewind({
      rail: rail.rail,
      chainId: rail.chainId,
      expectedNext: next,
      ancestor,
      vanished: gone,
      halt: { kind: "finality_violation", reason },
      now: this.now(),
    });
    const halt = await this.halted("finality_violation", reason);
    return { kind: "rewound", ancestor, orphaned, finalityViolation: true, halt: halt.halt };
  }
}

/** Whether an endpoint's receipt bears a recorded transfer out, in whatever block it now stands. */
async function onChain(transfer: PendingTransfer, receiptOf: (txHash: Hex) => Promise<WitnessReceipt | null>): Promise<boolean> {
  const receipt = await receiptOf(transfer.txHash);
  if (!receipt) return false;
  return witnessVerdict({ ...transfer, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash }, receipt.blockHash, receipt).kind === "confirmed";
}

/** Asks a witness once per block and once per transaction within one settle. */
function askOnce(witness: ChainWitness): ChainWitness {
  const blocks = new Map<bigint, Promise<Hex | null>>();
  const receipts = new Map<string, ReturnType<ChainWitness["receipt"]>>();
  let head: Promise<bigint> | undefined;
  return {
    headNumber: () => (head ??= witness.headNumber()),
    blockHash: (number) => {
      let answer = blocks.get(number);
      if (!answer) blocks.set(number, (answer = witness.blockHash(number)));
      return answer;
    },
    receipt: (txHash) => {
      let answer = receipts.get(txHash);
      if (!answer) receipts.set(txHash, (answer = witness.receipt(txHash)));
      return answer;
    },
  };
}

function logBlock(log: TransferLog): BlockRef {
  return { number: log.blockNumber, hash: log.blockHash };
}
