import { sql, type Database, type Transaction } from "@payin/db";
import type { Asset, Rail } from "@payin/money";
import type { IntentObservationTx, ObservationStore, ObservedIntent, ReportedTransfer } from "../domain/record-observations.js";
import type { TransferEvidence } from "../domain/settlement.js";
import type { TransferLedger } from "../domain/list-transfers.js";
import type { PayInIntent } from "../domain/pay-in-intent.js";
import { intentOutboxEvents } from "../events/outbox-events.js";
import { outboxColumns } from "./event-outbox.js";
import { writeCheckoutPaid } from "./checkout-repository.js";
import { INTENT_COLUMNS, toIntent, type IntentRow } from "./pay-in-repository.js";


/** A transfer as kept for an intent, for the evidence listing. */
export interface StoredTransfer extends ReportedTransfer {
  afterPaid: boolean;
  recordedAt: Date;
}

/** A row of EVIDENCE_COLUMNS, as the driver answers it (amount as text, timestamps as text). */
export interface EvidenceRow {
  rail: Rail;
  asset: Asset;
  decimals: number;
  amount: string;
  block_time: string;
  state: TransferEvidence["state"];
  dust: boolean;
  after_paid: boolean;
}

/** A row of TRANSFER_COLUMNS (char(66) hashes padded, bigint as text). */
interface TransferRow extends EvidenceRow {
  chain_id: string;
  tx_hash: string;
  log_index: number;
  from_address: string;
  block_number: string;
  block_hash: string;
  vanished: boolean;
  version: number;
  recorded_at: string;
}

function evidenceFromRow(row: TransferRow): StoredTransfer {
  return {
    chainId: Number(row.chain_id),
    txHash: row.tx_hash.trim(),
    logIndex: row.log_index,
    rail: row.rail,
    asset: row.asset,
    decimals: row.decimals,
    amount: BigInt(row.amount),
    fromAddress: row.from_address,
    blockNumber: BigInt(row.block_number),
    blockHash: row.block_hash.trim(),
    blockTime: new Date(row.block_time),
    state: row.state,
    dust: row.dust,
    afterPaid: row.after_paid,
    vanished: row.vanished,
    version: row.version,
    recordedAt: new Date(row.recorded_at),
  };
}

const TRANSFER_COLUMNS = `chain_id, tx_hash, log_index, rail, asset, decimals, amount::text as amount, from_address, block_number::text as block_number,
  block_hash, block_time, state, dust, after_paid, vanished, version, recorded_at`;

/** What the payment decision reads of every transfer (the listing reads all columns of its page only). */
export const EVIDENCE_COLUMNS = `rail, asset, decimals, amount::text as amount, block_time, state, dust, after_paid`;

export function evidenceOnlyFromRow(row: EvidenceRow): TransferEvidence {
  return {
    rail: row.rail,
    asset: row.asset,
    decimals: row.decimals,
    amount: BigInt(row.amount),
    blockTime: new Date(row.block_time),
    state: row.state,
    dust: row.dust,
    afterPaid: row.after_paid,
  };
}

/**
 * Oldest block first; the rest of the key makes the order total, so pages
 * neither repeat nor skip a transfer. Qualified: the bare names would be the
 * selected text columns, ordered as text (1000 before 999).
 */
const LISTING_ORDER = `order by pay_in_transfers.block_number, pay_in_transfers.log_index, pay_in_transfers.chain_id, pay_in_transfers.tx_hash`;

/**
 * The intent, its row locked for the transaction (no key update: a checkout
 * linking it meanwhile only needs its key), with its event count.
 */
const LOCK_INTENT = sql<IntentRow & { event_sequence: number }>(
  `select ${INTENT_COLUMNS}, event_sequence from pay_in_intents where intent_uuid = $1 for no key update`,
);

/**
 * after_paid is set by the first record only: a later version leaves it as it
 * is. Answers the transfer as recorded, and its state before (null for a
 * first record); no row when a version at least as high was recorded. The
 * intent's row lock keeps every other writer of its transfers out meanwhile.
 */
const SAVE_TRANSFER = sql<TransferRow & { previous_state: TransferEvidence["state"] | null }>(`with previous as (
           select state from pay_in_transfers where chain_id = $1 and tx_hash = $2 and log_index = $3),
         saved as (
           insert into pay_in_transfers (chain_id, tx_hash, log_index, intent_uuid, rail, asset, decimals, amount, from_address,
                                         block_number, block_hash, block_time, state, dust, after_paid, vanished, version, recorded_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8::numeric, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
           on conflict (chain_id, tx_hash, log_index) do update
             set block_number = excluded.block_number, block_hash = excluded.block_hash, block_time = excluded.block_time,
                 state = excluded.state, vanished = excluded.vanished, version = excluded.version, updated_at = excluded.updated_at
             where pay_in_transfers.version < excluded.version
           returning ${TRANSFER_COLUMNS})
       select saved.*, previous.state as previous_state from saved left join previous on true`);

const EVIDENCE_OF = sql<EvidenceRow>(`select ${EVIDENCE_COLUMNS} from pay_in_transfers where intent_uuid = $1`);

const SET_STATUS = sql(`update pay_in_intents set status = $1, updated_at = $2 where intent_uuid = $3`);

/** Sets the intent's event count ($2) and writes its events ($3–$10), in one statement. */
const WRITE_INTENT_EVENTS = sql(`with counted as (update pay_in_intents set event_sequence = $2 where intent_uuid = $1)
       insert into event_outbox (event_uuid, merchant_uuid, type, sequence, intent_uuid, checkout_uuid, created_at, data)
       select * from unnest($3::uuid[], $4::uuid[], $5::text[], $6::bigint[], $7::uuid[], $8::uuid[], $9::timestamptz[], $10::text[])`);

const TRANSFERS_PAGE = sql<TransferRow>(`select ${TRANSFER_COLUMNS} from pay_in_transfers where intent_uuid = $1 ${LISTING_ORDER} limit $2 offset $3`);

function tx(trx: Transaction): IntentObservationTx {
  /** The intent this transaction locked, as this transaction changed it, with its event count. */
  let locked: { intent: PayInIntent; eventSequence: number } | undefined;
  const holding = (intentUuid: string) => {
    if (locked?.intent.intentUuid !== intentUuid) throw new Error(`intent ${intentUuid} is not the one this transaction locked`);
    return locked;
  };
  return {
    async lockIntent(intentUuid) {
      const [row] = await trx.query(LOCK_INTENT, [intentUuid]);
      if (!row) return null;
      const intent = toIntent(row);
      locked = { intent, eventSequence: row.event_sequence };
      return { status: intent.status, asset: intent.asset, rail: intent.rail, expectedAmount: intent.expectedAmount, expiresAt: intent.expiresAt } satisfies ObservedIntent;
    },
    async saveTransfer(intentUuid, t, afterPaid, now) {
      const [row] = await trx.query(SAVE_TRANSFER, [
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
      ]);
      if (!row) return null;
      return { transfer: evidenceFromRow(row), previous: row.previous_state === null ? null : { state: row.previous_state } };
    },
    async transfersOf(intentUuid) {
      return (await trx.query(EVIDENCE_OF, [intentUuid])).map(evidenceOnlyFromRow);
    },
    async setStatus(intentUuid, status, now) {
      await trx.query(SET_STATUS, [status, now, intentUuid]);
      if (locked?.intent.intentUuid === intentUuid) locked.intent = { ...locked.intent, status, updatedAt: now };
    },
    async writeEvents(intentUuid, events, now) {
      const held = holding(intentUuid);
      const outbox = intentOutboxEvents(held.intent, held.eventSequence, now, events);
      held.eventSequence += outbox.length;
      await trx.query(WRITE_INTENT_EVENTS, [intentUuid, held.eventSequence, ...outboxColumns(outbox)]);
    },
    async checkoutPaid(intentUuid, now) {
      holding(intentUuid);
      await writeCheckoutPaid(trx, intentUuid, now);
    },
  };
}

/**
 * The observation store over payins' schema (one transaction per intent),
 * and the evidence listing: what every transfer of an intent weighs in the
 * amounts, and one page of them in full, read in one snapshot so the page and
 * the amounts agree.
 */
export function observationStore(db: Database): ObservationStore & TransferLedger<StoredTransfer> {
  return {
    inTransaction: (work) => db.transaction((trx) => work(tx(trx))),
    transfersOf: (intentUuid, page) =>
      db.transaction(
        async (trx) => {
          const all = await trx.query(EVIDENCE_OF, [intentUuid]);
          const listed = await trx.query(TRANSFERS_PAGE, [intentUuid, page.limit, page.offset]);
          return { all: all.map(evidenceOnlyFromRow), page: listed.map(evidenceFromRow) };
        },
        { isolation: "repeatable read", readOnly: true },
      ),
  };
}
