import type { Rail } from "@payin/money";
import type { TransferStateName } from "@payin/proto";
import { dateOrNull, sql, type Database, type Statement, type Transaction } from "@payin/db";
import type { BlockRef } from "../domain/observation/chain-view.js";
import type { ObservedTransfer, Watch } from "../domain/observation/matching.js";
import type { ClaimedTransfer } from "../domain/observation/witness.js";

/**
 * Why a rail is halted: it credits nothing and is provider_not_ready until the
 * halt is cleared. `chain_identity` and `configuration` clear themselves once
 * a pass finds the endpoints right again; `disagreement` and
 * `finality_violation` stay until an operator resumes the rail.
 */
export type HaltKind = "chain_identity" | "disagreement" | "finality_violation" | "configuration";

/** The halts only an operator clears. */
export const STICKY_HALTS: readonly HaltKind[] = ["disagreement", "finality_violation"];

export interface RailHalt {
  kind: HaltKind;
  reason: string;
  since: Date;
}

/** A rail's cursor: the next block to read, and when its observer last completed a pass. */
export interface ObserverCursor {
  rail: Rail;
  chainId: number;
  nextBlock: bigint;
  advancedAt: Date;
  /** The highest block settled so far (null before any): a reorganisation below it is a finality violation. */
  settledThrough: bigint | null;
  halt: RailHalt | null;
}

/** A recorded transfer as an endpoint is asked to bear it out. */
export interface PendingTransfer extends ClaimedTransfer {
  txHash: `0x${string}`;
  /** The endpoint that reported it (endpointId), or null when not recorded. */
  reportedBy: string | null;
}

/** A halt written in the same transaction as what caused it. */
export interface HaltInput {
  kind: HaltKind;
  reason: string;
}

const CLAIM_COLUMNS = `tx_hash, log_index, block_number, block_hash, contract, from_address, to_address, amount, reported_by`;

/** A row of CLAIM_COLUMNS, as the driver answers it (bigint and numeric as text, char(66) padded). */
interface ClaimRow {
  tx_hash: string;
  log_index: number;
  block_number: string;
  block_hash: string;
  contract: string;
  from_address: string;
  to_address: string;
  amount: string;
  reported_by: string | null;
}

function claimOf(row: ClaimRow): PendingTransfer {
  return {
    txHash: row.tx_hash.trim() as `0x${string}`,
    logIndex: row.log_index,
    blockNumber: BigInt(row.block_number),
    blockHash: row.block_hash.trim(),
    contract: row.contract,
    from: row.from_address,
    to: row.to_address,
    amount: BigInt(row.amount),
    reportedBy: row.reported_by,
  };
}

/** A cursor row's halt columns (timestamps come as text from the pool). */
export interface HaltRow {
  halted_kind: HaltKind | null;
  halted_reason: string | null;
  halted_at: string | Date | null;
}

/** Sets a halt unless a sticky one stands (see ObservationRepository.halt). */
const HALT_SQL = sql<HaltRow>(`update observer_cursors
     set halted_kind = $2::text, halted_reason = $3, halted_at = case when halted_kind = $2::text then halted_at else $4 end, updated_at = $4
   where rail = $1 and (halted_kind is null or not (halted_kind = any($5::text[])))
   returning halted_kind, halted_reason, halted_at`);

/** Clears rail $1's halt if its kind is one of $2 (at $3), under the cursor's row lock; returns the halt cleared. */
export const CLEAR_HALT_SQL = `with old_halt as (select rail, halted_kind, halted_reason, halted_at from observer_cursors where rail = $1 and halted_kind = any($2::text[]) for update)
     update observer_cursors o set halted_kind = null, halted_reason = null, halted_at = null, updated_at = $3
       from old_halt where o.rail = old_halt.rail
     returning old_halt.halted_kind, old_halt.halted_reason, old_halt.halted_at`;

/** A transfer's key. */
export interface TransferKey {
  txHash: string;
  logIndex: number;
}

/** A cursor row's halt (its halted_kind, halted_reason, halted_at), or null. */
export function haltOf(row: HaltRow): RailHalt | null {
  if (row.halted_kind === null) return null;
  // The three are set and cleared together (HALT_SQL, CLEAR_HALT_SQL).
  return { kind: row.halted_kind, reason: row.halted_reason ?? "", since: new Date(row.halted_at ?? 0) };
}

function settledThroughOf(row: { settled_through: string | null }): bigint | null {
  return row.settled_through === null ? null : BigInt(row.settled_through);
}

/** What one event of the outbox tells payins. */
export type ObservationEvent =
  | { kind: "armed"; intentUuid: string; rail: Rail; chainId: number; fromBlock: string }
  | {
      kind: "transfer";
      intentUuid: string;
      rail: Rail;
      chainId: number;
      txHash: string;
      logIndex: number;
      asset: string;
      decimals: number;
      /** Base units, decimal digits. */
      amount: string;
      from: string;
      to: string;
      blockNumber: string;
      blockHash: string;
      blockTime: string;
      dust: boolean;
      /** The contract's transfer state name: the outbox relays it as payins' TransferState. */
      state: TransferStateName;
      /** Bumped by every change of state: payins keeps the highest. */
      version: number;
      /** Settled, then taken off the chain by a finality violation (orphaned, `vanished_at` set). */
      vanished?: boolean;
    };

export interface OutboxEntry {
  id: bigint;
  event: ObservationEvent;
  createdAt: Date;
}

/** An allocated address and its intent, as the watched set holds it. */
export interface WatchedAddress extends Watch {
  address: string;
  createdAt: Date;
  watchUntil: Date | null;
}

/** The cursor moved under this observer: another process holds the rail. */
export class CursorMovedError extends Error {
  constructor(rail: Rail) {
    super(`the ${rail} cursor was moved by another observer`);
    this.name = "CursorMovedError";
  }
}

const TRANSFER_COLUMNS = `chain_id, tx_hash, log_index, rail, intent_uuid, asset, decimals, from_address, to_address, amount, dust,
  block_number, block_hash, block_time, state, version`;

/** What a statement returns of a changed transfer for its outbox event (`vanished_at` too), bare and qualified by `t`. */
const RETURNED = `${TRANSFER_COLUMNS}, vanished_at`;
const RETURNED_QUALIFIED = RETURNED.split(",").map((c) => `t.${c.trim()}`).join(", ");

/** A row of RETURNED: a changed transfer, as the driver answers it. */
interface ReturnedRow {
  chain_id: string;
  tx_hash: string;
  log_index: number;
  rail: Rail;
  intent_uuid: string;
  asset: string;
  decimals: number;
  from_address: string;
  to_address: string;
  amount: string;
  dust: boolean;
  block_number: string;
  block_hash: string;
  block_time: string | Date;
  state: TransferStateName;
  version: number;
  vanished_at: string | Date | null;
}

/** Rows of observed transfers in the order they stand on chain (a statement's RETURNING has none of its own). */
function inChainOrder(rows: ReturnedRow[]): ReturnedRow[] {
  return [...rows].sort((a, b) => {
    const byBlock = BigInt(a.block_number) - BigInt(b.block_number);
    return byBlock !== 0n ? (byBlock < 0n ? -1 : 1) : a.log_index - b.log_index;
  });
}

function transferEvent(row: ReturnedRow): ObservationEvent {
  return {
    kind: "transfer",
    intentUuid: row.intent_uuid,
    rail: row.rail,
    chainId: Number(row.chain_id),
    txHash: row.tx_hash.trim(),
    logIndex: row.log_index,
    asset: row.asset,
    decimals: row.decimals,
    amount: row.amount,
    from: row.from_address,
    to: row.to_address,
    blockNumber: row.block_number,
    blockHash: row.block_hash.trim(),
    blockTime: new Date(row.block_time).toISOString(),
    dust: row.dust,
    state: row.state,
    version: row.version,
    vanished: row.vanished_at !== null,
  };
}

/** A block as kept (number, hash). */
interface BlockRow {
  number: string;
  hash: string;
}

/** Appends outbox events ($1: a JSON array), in its order. */
const ENQUEUE = sql(`insert into observation_outbox (intent_uuid, kind, payload, created_at)
       select (e ->> 'intentUuid')::uuid, e ->> 'kind', e, $2 from jsonb_array_elements($1::jsonb) with ordinality as x(e, n) order by n`);

const LOCK_CURSOR: Statement<{ next_block: string }> = sql(`select next_block from observer_cursors where rail = $1 for update`);

/**
 * The observer's tables (migration 2026-11-25-chain-observation). Every change
 * of what was observed is one transaction with the cursor it moves and the
 * outbox events it owes payins: a crash at any point loses nothing and counts
 * nothing twice. Each such transaction locks the rail's cursor row and checks
 * that it still stands where this observer left it (a second observer that
 * took the rail over is never overwritten).
 */
export class ObservationRepository {
  constructor(private readonly db: Database) {}

  /**
   * The rail's cursor, created at `startBlock` the first time. A cursor kept
   * for another chain under the same id (another genesis block: a development
   * chain started afresh) starts again at `startBlock`: the blocks kept for it
   * are forgotten and its unsettled transfers orphaned (their blocks are gone).
   */
  async cursor(rail: Rail, chain: { chainId: number; genesisHash: string }, startBlock: bigint, now: Date): Promise<ObserverCursor & { restarted: boolean }> {
    return this.db.transaction(async (tx) => {
      await tx.query(
        sql(`insert into observer_cursors (rail, chain_id, genesis_hash, next_block, advanced_at, updated_at) values ($1, $2, $3, $4, $5, $5)
         on conflict (rail) do nothing`),
        [rail, chain.chainId, chain.genesisHash, startBlock.toString(), now],
      );
      const [found] = await tx.query(
        sql<HaltRow & { chain_id: string; genesis_hash: string; next_block: string; advanced_at: string | Date; settled_through: string | null }>(
          `select chain_id, genesis_hash, next_block, advanced_at, settled_through, halted_kind, halted_reason, halted_at from observer_cursors where rail = $1 for update`,
        ),
        [rail],
      );
      const row = { ...found! };
      let restarted = false;
      if (Number(row.chain_id) !== chain.chainId || row.genesis_hash.trim() !== chain.genesisHash) {
        restarted = true;
        const previous = Number(row.chain_id);
        const orphaned = await tx.query(
          sql<ReturnedRow>(`update observed_transfers set state = 'orphaned', version = version + 1, updated_at = $2
            where chain_id = $1 and state = 'pending' returning ${RETURNED}`),
          [previous, now],
        );
        await this.enqueue(tx, inChainOrder(orphaned).map(transferEvent), now);
        await tx.query(sql(`delete from observed_blocks where chain_id = $1`), [previous]);
        await tx.query(
          sql(`update observer_cursors set chain_id = $2, genesis_hash = $3, next_block = $4, advanced_at = $5, updated_at = $5, settled_through = null where rail = $1`),
          [rail, chain.chainId, chain.genesisHash, startBlock.toString(), now],
        );
        row.next_block = startBlock.toString();
        row.advanced_at = now;
        row.settled_through = null;
      }
      return {
        rail,
        chainId: chain.chainId,
        nextBlock: BigInt(row.next_block),
        advancedAt: new Date(row.advanced_at),
        settledThrough: settledThroughOf(row),
        halt: haltOf(row),
        restarted,
      };
    });
  }

  /** A rail's halt, or null (also when it has no cursor yet). */
  async haltOf(rail: Rail): Promise<RailHalt | null> {
    const [row] = await this.db.query(sql<HaltRow>(`select halted_kind, halted_reason, halted_at from observer_cursors where rail = $1`), [rail]);
    return row ? haltOf(row) : null;
  }

  /**
   * Halts a rail (a rail without a cursor has nothing to halt). A sticky halt
   * (STICKY_HALTS) is kept as it is: only an operator clears it; any other is
   * replaced. Answers the halt in force.
   */
  async halt(rail: Rail, kind: HaltKind, reason: string, now: Date): Promise<RailHalt | null> {
    const [row] = await this.db.query(HALT_SQL, [rail, kind, reason, now, STICKY_HALTS]);
    return row ? haltOf(row) : this.haltOf(rail);
  }

  /** Clears a rail's halt if it is of one of `kinds`; answers the halt cleared, or null. */
  async clearHalt(rail: Rail, kinds: readonly HaltKind[], now: Date): Promise<RailHalt | null> {
    const [row] = await this.db.query(sql<HaltRow>(CLEAR_HALT_SQL), [rail, kinds, now]);
    return row ? haltOf(row) : null;
  }

  /** The pending transfers of a chain at or below `upTo`, in chain order, at most `limit`. */
  async pendingUpTo(chainId: number, upTo: bigint, limit: number): Promise<PendingTransfer[]> {
    const rows = await this.db.query(
      sql<ClaimRow>(`select ${CLAIM_COLUMNS} from observed_transfers where chain_id = $1 and state = 'pending' and block_number <= $2
        order by block_number, log_index limit $3`),
      [chainId, upTo.toString(), limit],
    );
    return rows.map(claimOf);
  }

  /** The settled transfers of a chain above `above` (to verify again after a finality violation), in chain order. */
  async settledAbove(chainId: number, above: bigint): Promise<PendingTransfer[]> {
    const rows = await this.db.query(
      sql<ClaimRow>(`select ${CLAIM_COLUMNS} from observed_transfers where chain_id = $1 and state = 'settled' and block_number > $2 order by block_number, log_index`),
      [chainId, above.toString()],
    );
    return rows.map(claimOf);
  }

  /**
   * Transfers the chain no longer holds as they were recorded (a finality
   * violation took them off, or no endpoint backs what one reported): orphaned,
   * with when they vanished, and their outbox events; in one transaction.
   */
  async vanish(input: { rail: Rail; chainId: number; expectedNext: bigint; keys: readonly TransferKey[]; halt?: HaltInput; now: Date }): Promise<{ vanished: number }> {
    if (input.keys.length === 0 && !input.halt) return { vanished: 0 };
    return this.inCursorTransaction(input.rail, input.expectedNext, async (tx) => {
      if (input.halt) await tx.query(HALT_SQL, [input.rail, input.halt.kind, input.halt.reason, input.now, STICKY_HALTS]);
      const rows = await tx.query(
        sql<ReturnedRow>(`update observed_transfers t set state = 'orphaned', version = version + 1, vanished_at = $4, updated_at = $4
           from unnest($2::text[], $3::int[]) as k(tx_hash, log_index)
          where t.chain_id = $1 and t.tx_hash = k.tx_hash and t.log_index = k.log_index and t.state <> 'orphaned'
          returning ${RETURNED_QUALIFIED}`),
        [input.chainId, input.keys.map((k) => k.txHash), input.keys.map((k) => k.logIndex), input.now],
      );
      await this.enqueue(tx, inChainOrder(rows).map(transferEvent), input.now);
      return { vanished: rows.length };
    });
  }

  /** The stored blocks of a chain, highest first. */
  async storedBlocks(chainId: number): Promise<BlockRef[]> {
    const rows = await this.db.query(sql<BlockRow>(`select number, hash from observed_blocks where chain_id = $1 order by number desc`), [chainId]);
    return rows.map((row) => ({ number: BigInt(row.number), hash: row.hash.trim() as `0x${string}` }));
  }

  /** Addresses allocated since `since` (all when null) whose watch has not ended by `now`. */
  async watchedSince(since: Date | null, now: Date): Promise<WatchedAddress[]> {
    const rows = await this.db.query(
      sql<{ intent_uuid: string; address: string; rail: Rail; created_at: string; watch_until: string | null }>(
        `select intent_uuid, lower(address) as address, rail, created_at, watch_until from allocations
          where ($1::timestamptz is null or created_at >= $1) and (watch_until is null or watch_until > $2)`,
      ),
      [since, now],
    );
    return rows.map((row) => ({
      intentUuid: row.intent_uuid,
      address: row.address,
      rail: row.rail,
      createdAt: new Date(row.created_at),
      watchUntil: dateOrNull(row.watch_until),
    }));
  }

  /** Intents whose watch ended at or before `now` (they leave the watched set). */
  async endedWatches(intentUuids: readonly string[], now: Date): Promise<string[]> {
    if (intentUuids.length === 0) return [];
    const rows = await this.db.query(sql<{ intent_uuid: string }>(`select intent_uuid from allocations where intent_uuid = any($1::uuid[]) and watch_until <= $2`), [
      intentUuids,
      now,
    ]);
    return rows.map((row) => row.intent_uuid);
  }

  /**
   * Records a read of blocks [from, to]: the headers kept for reorganisations,
   * the matched transfers (a transfer seen again after it was orphaned is
   * pending again, at its new block), the arming of the rail's new addresses,
   * and the cursor at to + 1; with their outbox events; in one transaction.
   */
  async recordRead(input: {
    rail: Rail;
    chainId: number;
    from: bigint;
    to: bigint;
    keep: readonly (BlockRef & { parentHash: string })[];
    transfers: readonly ObservedTransfer[];
    /** The endpoint the read's logs came from (endpointId). */
    reportedBy: string;
    now: Date;
  }): Promise<{ events: number }> {
    return this.inCursorTransaction(input.rail, input.from, async (tx) => {
      if (input.keep.length > 0) {
        await tx.query(
          sql(`insert into observed_blocks (chain_id, number, hash, parent_hash)
           select $1, n, h, p from unnest($2::bigint[], $3::text[], $4::text[]) as b(n, h, p)
           on conflict (chain_id, number) do update set hash = excluded.hash, parent_hash = excluded.parent_hash`),
          [input.chainId, input.keep.map((b) => b.number.toString()), input.keep.map((b) => b.hash), input.keep.map((b) => b.parentHash)],
        );
      }
      const events: ObservationEvent[] = [];
      if (input.transfers.length > 0) {
        const column = <T>(pick: (t: ObservedTransfer) => T) => input.transfers.map(pick);
        const rows = await tx.query(
          sql<ReturnedRow>(`insert into observed_transfers (${TRANSFER_COLUMNS}, contract, reported_by, first_seen_at, updated_at)
           select chain_id, tx_hash, log_index, rail, intent_uuid, asset, decimals, from_address, to_address, amount, dust,
                  block_number, block_hash, to_timestamp(block_seconds), 'pending', 1, contract, $17, $16, $16
             from unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::uuid[], $6::text[], $7::smallint[], $8::text[],
                         $9::text[], $10::numeric[], $11::boolean[], $12::bigint[], $13::text[], $14::bigint[], $15::text[])
                  as t(chain_id, tx_hash, log_index, rail, intent_uuid, asset, decimals, from_address, to_address, amount, dust,
                       block_number, block_hash, block_seconds, contract)
           on conflict (chain_id, tx_hash, log_index) do update
             set state = 'pending', block_number = excluded.block_number, block_hash = excluded.block_hash,
                 block_time = excluded.block_time, version = observed_transfers.version + 1, updated_at = excluded.updated_at,
                 reported_by = excluded.reported_by, vanished_at = null
             where observed_transfers.state = 'orphaned'
           returning ${RETURNED}`),
          [
            column((t) => t.chainId),
            column((t) => t.txHash),
            column((t) => t.logIndex),
            column((t) => t.rail),
            column((t) => t.intentUuid),
            column((t) => t.token.asset),
            column((t) => t.token.decimals),
            column((t) => t.from),
            column((t) => t.to),
            column((t) => t.amount.toString()),
            column((t) => t.dust),
            column((t) => t.blockNumber.toString()),
            column((t) => t.blockHash),
            column((t) => t.blockTimestamp.toString()),
            column((t) => t.token.contract),
            input.now,
            input.reportedBy,
          ],
        );
        events.push(...inChainOrder(rows).map(transferEvent));
      }
      const armed = await tx.query(
        sql<{ intent_uuid: string }>(`update allocations set armed_at = $2, armed_from_block = $3 where rail = $1 and armed_at is null returning intent_uuid`),
        [input.rail, input.now, input.from.toString()],
      );
      for (const row of armed) {
        events.push({ kind: "armed", intentUuid: row.intent_uuid, rail: input.rail, chainId: input.chainId, fromBlock: input.from.toString() });
      }
      await this.enqueue(tx, events, input.now);
      await tx.query(sql(`update observer_cursors set next_block = $2, advanced_at = $3, updated_at = $3 where rail = $1`), [
        input.rail,
        (input.to + 1n).toString(),
        input.now,
      ]);
      return { events: events.length };
    });
  }

  /** A pass that found nothing new to read still counts as progress (the observer is caught up). */
  async touch(rail: Rail, nextBlock: bigint, now: Date): Promise<void> {
    await this.inCursorTransaction(rail, nextBlock, async (tx) => {
      await tx.query(sql(`update observer_cursors set advanced_at = $2, updated_at = $2 where rail = $1`), [rail, now]);
    });
  }

  /**
   * After a reorganisation: the transfers above the common ancestor that were
   * not settled are orphaned (kept), the blocks above it forgotten, and the
   * cursor set back to the block after it; in one transaction.
   */
  async rewind(input: {
    rail: Rail;
    chainId: number;
    expectedNext: bigint;
    ancestor: bigint;
    /** Settled transfers above the ancestor no longer on chain (a finality violation): orphaned with `vanished_at`. */
    vanished?: readonly TransferKey[];
    halt?: HaltInput;
    now: Date;
  }): Promise<{ orphaned: number; vanished: number }> {
    return this.inCursorTransaction(input.rail, input.expectedNext, async (tx) => {
      let vanished = 0;
      if (input.vanished && input.vanished.length > 0) {
        const gone = await tx.query(
          sql<ReturnedRow>(`update observed_transfers t set state = 'orphaned', version = version + 1, vanished_at = $4, updated_at = $4
             from unnest($2::text[], $3::int[]) as k(tx_hash, log_index)
            where t.chain_id = $1 and t.tx_hash = k.tx_hash and t.log_index = k.log_index and t.state <> 'orphaned'
            returning ${RETURNED_QUALIFIED}`),
          [input.chainId, input.vanished.map((k) => k.txHash), input.vanished.map((k) => k.logIndex), input.now],
        );
        await this.enqueue(tx, inChainOrder(gone).map(transferEvent), input.now);
        vanished = gone.length;
      }
      if (input.halt) await tx.query(HALT_SQL, [input.rail, input.halt.kind, input.halt.reason, input.now, STICKY_HALTS]);
      const rows = await tx.query(
        sql<ReturnedRow>(`update observed_transfers set state = 'orphaned', version = version + 1, updated_at = $3
          where chain_id = $1 and block_number > $2 and state = 'pending'
          returning ${RETURNED}`),
        [input.chainId, input.ancestor.toString(), input.now],
      );
      await this.enqueue(tx, inChainOrder(rows).map(transferEvent), input.now);
      await tx.query(sql(`delete from observed_blocks where chain_id = $1 and number > $2`), [input.chainId, input.ancestor.toString()]);
      await tx.query(
        sql(`update observer_cursors set next_block = $2, updated_at = $3, settled_through = least(settled_through, $4) where rail = $1`),
        [input.rail, (input.ancestor + 1n).toString(), input.now, input.ancestor.toString()],
      );
      return { orphaned: rows.length, vanished };
    });
  }

  /**
   * Distinct blocks of a chain's recorded transfers below `below` (their
   * hashes as recorded), highest first: more known hashes for finding the
   * common ancestor of a reorganisation deeper than the kept blocks.
   */
  async transferBlocksBelow(chainId: number, below: bigint, limit: number): Promise<BlockRef[]> {
    const rows = await this.db.query(
      sql<{ block_number: string; block_hash: string }>(`select distinct block_number, block_hash from observed_transfers
        where chain_id = $1 and block_number < $2 and state <> 'orphaned' order by block_number desc limit $3`),
      [chainId, below.toString(), limit],
    );
    return rows.map((row) => ({ number: BigInt(row.block_number), hash: row.block_hash.trim() as `0x${string}` }));
  }

  /** The first block from which a rail's still-watched addresses are watched, or null when none is. */
  async earliestWatchedBlock(rail: Rail, now: Date): Promise<bigint | null> {
    const [row] = await this.db.query(
      sql<{ first: string | null }>(
        `select min(armed_from_block) as first from allocations where rail = $1 and armed_from_block is not null and (watch_until is null or watch_until > $2)`,
      ),
      [rail, now],
    );
    return row?.first == null ? null : BigInt(row.first);
  }

  /**
   * Settles pending transfers at or below `upTo` (a block verified to be
   * canonical and settled): all of them, or only `keys` (those a second
   * endpoint confirmed); records `upTo` as the highest settled block and
   * forgets the kept blocks below keptFloor(upTo); in one transaction.
   */
  async settle(input: { rail: Rail; chainId: number; expectedNext: bigint; upTo: bigint; keptFrom: bigint; keys?: readonly TransferKey[]; now: Date }): Promise<{ settled: number }> {
    return this.inCursorTransaction(input.rail, input.expectedNext, async (tx) => {
      const only = input.keys !== undefined;
      const rows = await tx.query(
        sql<ReturnedRow>(`update observed_transfers t set state = 'settled', version = version + 1, updated_at = $3
          where t.chain_id = $1 and t.block_number <= $2 and t.state = 'pending'
            and (not $4::boolean or (t.tx_hash, t.log_index) in (select * from unnest($5::text[], $6::int[])))
          returning ${RETURNED_QUALIFIED}`),
        [input.chainId, input.upTo.toString(), input.now, only, (input.keys ?? []).map((k) => k.txHash), (input.keys ?? []).map((k) => k.logIndex)],
      );
      await this.enqueue(tx, inChainOrder(rows).map(transferEvent), input.now);
      await tx.query(sql(`delete from observed_blocks where chain_id = $1 and number < $2`), [input.chainId, input.keptFrom.toString()]);
      await tx.query(sql(`update observer_cursors set settled_through = greatest(coalesce(settled_through, $2), $2) where rail = $1`), [
        input.rail,
        input.upTo.toString(),
      ]);
      return { settled: rows.length };
    });
  }

  /** The oldest undelivered events, in order. */
  async pendingEvents(limit: number): Promise<OutboxEntry[]> {
    const rows = await this.db.query(
      sql<{ id: string; payload: ObservationEvent; created_at: string }>(`select id, payload, created_at from observation_outbox order by id limit $1`),
      [limit],
    );
    return rows.map((row) => ({ id: BigInt(row.id), event: row.payload, createdAt: new Date(row.created_at) }));
  }

  /** Delivered: gone from the outbox. */
  async delivered(ids: readonly bigint[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(sql(`delete from observation_outbox where id = any($1::bigint[])`), [ids.map(String)]);
  }

  /** Sets when each intent's watch ends (payins' answer: its deadline plus the margin, or now once paid). */
  async setWatchEnds(ends: readonly { intentUuid: string; watchUntil: Date }[]): Promise<void> {
    if (ends.length === 0) return;
    await this.db.query(
      sql(`update allocations a set watch_until = e.until from unnest($1::uuid[], $2::timestamptz[]) as e(uuid, until) where a.intent_uuid = e.uuid`),
      [ends.map((e) => e.intentUuid), ends.map((e) => e.watchUntil)],
    );
  }

  /** Appends events to the outbox, in the order given, in one statement. */
  private async enqueue(tx: Transaction, events: readonly ObservationEvent[], now: Date): Promise<void> {
    if (events.length === 0) return;
    await tx.query(ENQUEUE, [JSON.stringify(events), now]);
  }

  /** Runs `work` in one transaction that holds the rail's cursor row, which must still stand at `expectedNext`. */
  private inCursorTransaction<T>(rail: Rail, expectedNext: bigint, work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(LOCK_CURSOR, [rail]);
      if (!row || BigInt(row.next_block) !== expectedNext) throw new CursorMovedError(rail);
      return work(tx);
    });
  }
}
