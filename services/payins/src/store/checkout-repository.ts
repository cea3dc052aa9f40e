import { found, prepared, sql, type Database, type Nullable, type Queryable } from "@payin/db";
import type { Asset, Rail } from "@payin/money";
import type { CheckoutPair, CheckoutRecord, CheckoutSession, CheckoutStore, StartTerms, StoredCheckoutState } from "../domain/checkout-session.js";
import type { PayInStatus } from "../domain/pay-in-intent.js";
import { checkoutOutboxEvent, type CheckoutEventType } from "../events/outbox-events.js";
import { writeEvents } from "./event-outbox.js";


/** A session's columns (alias s) with its intent's status (alias i). */
const COLUMNS = `s.uuid, s.merchant_uuid, s.reference, s.description, s.amount::text as amount, s.pairs, s.jurisdiction, s.state,
  s.intent_uuid, s.payment_window_s, s.start_asset, s.start_rail, s.start_expires_at, s.start_claimed_at, s.created_at, s.updated_at,
  i.status as intent_status`;
const FROM = `checkout_sessions s left join pay_in_intents i on i.intent_uuid = s.intent_uuid`;

/** A row of COLUMNS, as the driver answers it (numeric and timestamps as text, jsonb parsed). */
interface SessionRow {
  uuid: string;
  merchant_uuid: string;
  reference: string | null;
  description: string | null;
  amount: string;
  pairs: CheckoutPair[];
  jurisdiction: string;
  state: StoredCheckoutState;
  intent_uuid: string | null;
  payment_window_s: number;
  /** The start's terms: all four set, or all null. */
  start_asset: Asset | null;
  start_rail: Rail | null;
  start_expires_at: string | null;
  start_claimed_at: string | null;
  created_at: string;
  updated_at: string;
  intent_status: PayInStatus | null;
}

/** COLUMNS of a left join that may have found no session. */
type MaybeSessionRow = Nullable<SessionRow>;

const foundSession = found<SessionRow>("uuid");

function toRecord(row: SessionRow): CheckoutRecord {
  const session: CheckoutSession = {
    checkoutUuid: row.uuid,
    merchantUuid: row.merchant_uuid,
    reference: row.reference,
    description: row.description,
    amount: row.amount,
    pairs: row.pairs,
    jurisdiction: row.jurisdiction,
    state: row.state,
    intentUuid: row.intent_uuid,
    paymentWindowS: row.payment_window_s,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
  const start: StartTerms | null =
    row.start_claimed_at && row.start_asset && row.start_rail && row.start_expires_at
      ? { asset: row.start_asset, rail: row.start_rail, expiresAt: new Date(row.start_expires_at), claimedAt: new Date(row.start_claimed_at) }
      : null;
  return { session, intentStatus: row.intent_status, start };
}

/** Stores a session with its checkout.created event ($11 its uuid, $12 its data; sequence 1), in one statement. */
const INSERT = prepared(
  "payins.checkout-insert",
  `with s as (
         insert into checkout_sessions (uuid, merchant_uuid, token_hash, reference, description, amount, pairs, jurisdiction, state,
           payment_window_s, created_at, updated_at, event_sequence)
         values ($1, $2, $3, $4, $5, $6::numeric, $7::jsonb, $8, 'open', $9, $10, $10, 1)
         returning uuid)
       insert into event_outbox (event_uuid, merchant_uuid, type, sequence, intent_uuid, checkout_uuid, created_at, data)
       select $11, $2, 'checkout.created', 1, null, s.uuid, $10, $12 from s`,
);

const GET = prepared<SessionRow>(
  "payins.checkout-get",
  `select ${COLUMNS} from ${FROM} where s.uuid = $1 and s.merchant_uuid = $2`,
);

const GET_BY_TOKEN = prepared<SessionRow>(
  "payins.checkout-get-by-token",
  `select ${COLUMNS} from ${FROM} where s.token_hash = $1`,
);

const GET_MANY_BY_TOKEN = prepared<SessionRow & { token_hash: string }>(
  "payins.checkout-get-many-by-token",
  `select s.token_hash, ${COLUMNS} from ${FROM} where s.token_hash = any($1::bpchar[])`,
);

const LIST = prepared<MaybeSessionRow & { total: string }>(
  "payins.checkout-list",
  `select (select count(*) from checkout_sessions where merchant_uuid = $1)::bigint as total, page.*
         from (select 1) one
         left join lateral (
           select ${COLUMNS} from ${FROM} where s.merchant_uuid = $1
            order by s.created_at desc, s.uuid desc limit $2 offset $3
         ) page on true`,
);

/** Disables an open session that no start has used, counting its event. */
const DISABLE = prepared<{ event_sequence: number }>(
  "payins.checkout-disable",
  `update checkout_sessions set state = 'disabled', updated_at = $3, event_sequence = event_sequence + 1
          where uuid = $1 and merchant_uuid = $2 and state = 'open' and intent_uuid is null and start_claimed_at is null
          returning event_sequence`,
);

/** Fixes a start's terms ($2–$5) unless a start got there first ($6: the claim replaced, or null). */
const CLAIM_TERMS = prepared<{ claimed: number }>(
  "payins.checkout-claim-terms",
  `update checkout_sessions
            set start_asset = $2, start_rail = $3, start_expires_at = $4, start_claimed_at = $5, updated_at = $5
          where uuid = $1 and state = 'open' and intent_uuid is null
            and start_claimed_at is not distinct from $6::timestamptz
          returning 1 as claimed`,
);

const RELEASE_TERMS = prepared(
  "payins.checkout-release-terms",
  `update checkout_sessions set start_asset = null, start_rail = null, start_expires_at = null, start_claimed_at = null
          where uuid = $1 and start_claimed_at = $2 and intent_uuid is null`,
);

/** Records a session's intent (started), counting its event; no row when it is disabled or has its intent already. */
const LINK = prepared<{ event_sequence: number }>(
  "payins.checkout-link",
  `update checkout_sessions set state = 'started', intent_uuid = $2, updated_at = $3, event_sequence = event_sequence + 1
          where uuid = $1 and state <> 'disabled' and intent_uuid is null
          returning event_sequence`,
);

/**
 * The intent a start links, locked as recording observations locks it (and
 * before the checkout's row, in the same order): a payment recorded at the
 * same moment either commits first, and the link then reads it paid, or waits
 * for the link, and then finds the checkout to tell paid.
 */
const LOCK_INTENT = prepared("payins.checkout-link-lock-intent", `select 1 from pay_in_intents where intent_uuid = $1 for no key update`);

const LINKED = prepared<{ linked: number }>(
  "payins.checkout-linked",
  `select 1 as linked from checkout_sessions where uuid = $1 and intent_uuid = $2`,
);

const GET_ANY = prepared<SessionRow>("payins.checkout-get-any", `select ${COLUMNS} from ${FROM} where s.uuid = $1`);

/** Counts checkout.paid for the session of an intent just paid, answering the session as it now reads. */
const COUNT_PAID = sql<SessionRow & { event_sequence: number }>(
  `update checkout_sessions s set event_sequence = s.event_sequence + 1
          from pay_in_intents i where s.intent_uuid = $1 and i.intent_uuid = s.intent_uuid
          returning ${COLUMNS}, s.event_sequence`,
);

/**
 * Writes checkout.paid for the session whose intent this is, if one is (in
 * the transaction that paid the intent, which holds the intent's row).
 */
export async function writeCheckoutPaid(trx: Queryable, intentUuid: string, now: Date): Promise<void> {
  const [row] = await trx.query(COUNT_PAID, [intentUuid]);
  if (row) await writeEvents(trx, [checkoutOutboxEvent(toRecord(row), "checkout.paid", row.event_sequence, now)]);
}

/** Counts one more event of a checkout (checkout.paid told by its start). */
const COUNT_ONE = prepared("payins.checkout-count-event", `update checkout_sessions set event_sequence = event_sequence + 1 where uuid = $1`);

/**
 * Writes a checkout's event after its change (in the change's transaction),
 * read as the change left it. A start that links an intent already paid (paid
 * before the start recorded it) tells checkout.paid too: the recording that
 * paid it found no checkout to tell.
 */
async function writeChangeEvent(trx: Queryable, checkoutUuid: string, type: CheckoutEventType, sequence: number, now: Date): Promise<void> {
  const [row] = await trx.query(GET_ANY, [checkoutUuid]);
  if (!row) throw new Error(`checkout ${checkoutUuid} vanished within its own change`);
  const record = toRecord(row);
  const events = [checkoutOutboxEvent(record, type, sequence, now)];
  if (type === "checkout.started" && record.intentStatus === "paid") {
    await trx.query(COUNT_ONE, [checkoutUuid]);
    events.push(checkoutOutboxEvent(record, "checkout.paid", sequence + 1, now));
  }
  await writeEvents(trx, events);
}

/**
 * CheckoutStore on PostgreSQL: one prepared statement per operation, or one
 * transaction where a change writes its event (disable, link).
 */
export class CheckoutRepository implements CheckoutStore {
  constructor(private readonly db: Database) {}

  async insert(s: CheckoutSession, tokenHash: string): Promise<void> {
    const event = checkoutOutboxEvent({ session: s, intentStatus: null, start: null }, "checkout.created", 1, s.createdAt);
    await this.db.query(INSERT, [
      s.checkoutUuid, s.merchantUuid, tokenHash, s.reference, s.description, s.amount,
      JSON.stringify(s.pairs.map((p) => ({ asset: p.asset, rail: p.rail }))), s.jurisdiction, s.paymentWindowS, s.createdAt,
      event.eventUuid, event.data,
    ]);
  }

  async get(merchantUuid: string, checkoutUuid: string): Promise<CheckoutRecord | null> {
    const [row] = await this.db.query(GET, [checkoutUuid, merchantUuid]);
    return row ? toRecord(row) : null;
  }

  async getByTokenHash(tokenHash: string): Promise<CheckoutRecord | null> {
    const [row] = await this.db.query(GET_BY_TOKEN, [tokenHash]);
    return row ? toRecord(row) : null;
  }

  async getManyByTokenHash(tokenHashes: readonly string[]): Promise<Map<string, CheckoutRecord>> {
    const rows = await this.db.query(GET_MANY_BY_TOKEN, [tokenHashes]);
    return new Map(rows.map((row) => [row.token_hash, toRecord(row)]));
  }

  async list(merchantUuid: string, limit: number, offset: number): Promise<{ records: CheckoutRecord[]; total: number }> {
    const rows = await this.db.query(LIST, [merchantUuid, limit, offset]);
    return { records: rows.filter(foundSession).map(toRecord), total: Number(rows[0]?.total ?? 0) };
  }

  async disable(merchantUuid: string, checkoutUuid: string, now: Date): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const [row] = await trx.query(DISABLE, [checkoutUuid, merchantUuid, now]);
      if (!row) return false;
      await writeChangeEvent(trx, checkoutUuid, "checkout.disabled", row.event_sequence, now);
      return true;
    });
  }

  async claimTerms(checkoutUuid: string, terms: StartTerms, previous: Date | null): Promise<boolean> {
    const rows = await this.db.query(CLAIM_TERMS, [checkoutUuid, terms.asset, terms.rail, terms.expiresAt, terms.claimedAt, previous]);
    return rows.length > 0;
  }

  async releaseTerms(checkoutUuid: string, claimedAt: Date): Promise<void> {
    await this.db.query(RELEASE_TERMS, [checkoutUuid, claimedAt]);
  }

  async link(checkoutUuid: string, intentUuid: string, now: Date): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      await trx.query(LOCK_INTENT, [intentUuid]);
      const [row] = await trx.query(LINK, [checkoutUuid, intentUuid, now]);
      // Linked to this intent already (a concurrent or retried start): told once, by the start that linked it.
      if (!row) return (await trx.query(LINKED, [checkoutUuid, intentUuid])).length > 0;
      await writeChangeEvent(trx, checkoutUuid, "checkout.started", row.event_sequence, now);
      return true;
    });
  }
}
