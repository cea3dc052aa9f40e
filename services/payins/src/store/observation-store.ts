import type { MikroORM } from "@payin/db";
import type { Asset, Rail } from "@payin/money";
import type { PayInStatus } from "../domain/pay-in-intent.js";
import type { IntentObservationTx, ObservationStore, ObservedIntent, ReportedTransfer } from "../domain/record-observations.js";
import type { TransferEvidence } from "../domain/settlement.js";
import type { TransferLedger } from "../domain/list-transfers.js";

interface Raw {
  raw(sql: string, bindings: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}
interface Knex extends Raw {
  transaction<T>(work: (trx: Raw) => Promise<T>): Promise<T>;
}

/** A transfer as kept for an intent, for the evidence listing. */
export interface StoredTransfer extends ReportedTransfer {
  afterPaid: boolean;
  recordedAt: Date;
}

function evidenceFromRow(row: Record<string, unknown>): StoredTransfer {
  return {
    chainId: Number(row.chain_id),
    txHash: (row.tx_hash as string).trim(),
    logIndex: Number(row.log_index),
    rail: row.rail as Rail,
    asset: row.asset as Asset,
    decimals: Number(row.decimals),
    amount: BigInt(row.amount as string),
    fromAddress: row.from_address as string,
    blockNumber: BigInt(row.block_number as string),
    blockHash: (row.block_hash as string).trim(),
    blockTime: new Date(row.block_time as string),
    state: row.state as TransferEvidence["state"],
    dust: row.dust as boolean,
    afterPaid: row.after_paid as boolean,
    vanished: row.vanished as boolean,
    version: Number(row.version),
    recordedAt: new Date(row.recorded_at as string),
  };
}

const TRANSFER_COLUMNS = `chain_id, tx_hash, log_index, rail, asset, decimals, amount::text as amount, from_address, block_number::text as block_number,
  block_hash, block_time, state, dust, after_paid, vanished, version, recorded_at`;

/** What the payment decision reads of every transfer (the listing reads all columns of its page only). */
const EVIDENCE_COLUMNS = `rail, asset, decimals, amount::text as amount, block_time, state, dust, after_paid`;

function evidenceOnlyFromRow(row: Record<string, unknown>): TransferEvidence {
  return {
    rail: row.rail as Rail,
    asset: row.asset as Asset,
    decimals: Number(row.decimals),
    amount: BigInt(row.amount as string),
    blockTime: new Date(row.block_time as string),
    state: row.state as TransferEvidence["state"],
    dust: row.dust as boolean,
    afterPaid: row.after_paid as boolean,
  };
}

/**
 * Oldest block first; the rest of the key makes the order total, so pages
 * neither repeat nor skip a transfer. Qualified: the bare names would be the
 * selected text columns, ordered as text (1000 before 999).
 */
const LISTING_ORDER = `order by pay_in_transfers.block_number, pay_in_transfers.log_index, pay_in_transfers.chain_id, pay_in_transfers.tx_hash`;

function tx(trx: Raw): IntentObservationTx {
  return {
    async lockIntent(intentUuid) {
      const { rows } = await trx.raw(
        `select status, asset, rail, expected_amount::text as expected_amount, expires_at from pay_in_intents where intent_uuid = ? for update`,
        [intentUuid],
      );
      const row = rows[0];
      if (!row) return null;
      return {
        status: row.status as PayInStatus,
        asset: row.asset as Asset,
        rail: row.rail as Rail,
        expectedAmount: row.expected_amount as string,
        expiresAt: new Date(row.expires_at as string),
      } satisfies ObservedIntent;
    },
    async saveTransfer(intentUuid, t, afterPaid, now) {
      // after_paid is set by the first record only: a later version leaves it as it is.
      await trx.raw(
        `insert into pay_in_transfers (chain_id, tx_hash, log_index, intent_uuid, rail, asset, decimals, amount, from_address,
                                       block_number, block_hash, block_time, state, dust, after_paid, vanished, version, recorded_at, updated_at)
         values (?, ?, ?, ?, ?, ?, ?, ?::numeric, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         on conflict (chain_id, tx_hash, log_index) do update
           set block_number = excluded.block_number, block_hash = excluded.block_hash, block_time = excluded.block_time,
               state = excluded.state, vanished = excluded.vanished, version = excluded.version, updated_at = excluded.updated_at
           where pay_in_transfers.version < excluded.version`,
        [
          t.chainId,
          t.txHash,
          t.logIndex,
          intentUuid,
          t.rail,
          t.asset,
          t.decimals,
          t.amount.toString(),
          t.fromAddress,
          t.blockNumber.toString(),
          t.blockHash,
          t.blockTime,
          t.state,
          t.dust,
          afterPaid,
          t.vanished,
          t.version,
          now,
          now,
        ],
      );
    },
    async transfersOf(intentUuid) {
      const { rows } = await trx.raw(`select ${EVIDENCE_COLUMNS} from pay_in_transfers where intent_uuid = ?`, [intentUuid]);
      return rows.map(evidenceOnlyFromRow);
    },
    async setStatus(intentUuid, status, now) {
      await trx.raw(`update pay_in_intents set status = ?, updated_at = ? where intent_uuid = ?`, [status, now, intentUuid]);
    },
  };
}

/**
 * The observation store over payins' schema (one knex transaction per intent),
 * and the evidence listing: what every transfer of an intent weighs in the
 * amounts, and one page of them in full, read in one snapshot so the page and
 * the amounts agree.
 */
export function observationStore(orm: MikroORM): ObservationStore & TransferLedger<StoredTransfer> {
  const knex = orm.em.getConnection().getKnex() as unknown as Knex;
  return {
    inTransaction: (work) => knex.transaction((trx) => work(tx(trx))),
    transfersOf: (intentUuid, page) =>
      knex.transaction(async (trx) => {
        await trx.raw(`set transaction isolation level repeatable read, read only`, []);
        const all = await trx.raw(`select ${EVIDENCE_COLUMNS} from pay_in_transfers where intent_uuid = ?`, [intentUuid]);
        const listed = await trx.raw(`select ${TRANSFER_COLUMNS} from pay_in_transfers where intent_uuid = ? ${LISTING_ORDER} limit ? offset ?`, [
          intentUuid,
          page.limit,
          page.offset,
        ]);
        return { all: all.rows.map(evidenceOnlyFromRow), page: listed.rows.map(evidenceFromRow) };
      }),
  };
}
