import { found, prepared, type Nullable, type Queryable, type Statement } from "@payin/db";
import { oncePerCause, type Logger } from "@payin/logging";
import { coalesce } from "@payin/rpc";
import type { ClaimedKey, KeyClaim, PayInStore } from "../domain/create-pay-in-intent.js";
import type { PayInIntent, PayInStatus } from "../domain/pay-in-intent.js";
import type { ListFilter, PayInReader } from "../domain/read-pay-in-intents.js";
import type { Asset, Rail } from "@payin/money";
import type { EventType } from "@payin/events";
import { intentOutboxEvent, type OutboxEvent } from "../events/outbox-events.js";


/**
 * How long a claimed key stays in flight before another request with the same
 * payload may take it over: well beyond the longest create (two RPCs with 5 s
 * deadlines), so only a holder that died loses its claim.
 */
export const CLAIM_LEASE_MS = 30_000;

/** The type of the event every create writes with its intent. */
const CREATED = "pay_in_intent.created" satisfies EventType;

/** An intent's created event: sequence 1, the intent as its create answers it. */
function createdEvent(intent: PayInIntent): OutboxEvent {
  return intentOutboxEvent(intent, 1, intent.createdAt, { type: CREATED });
}

/** Selected columns, optionally qualified by a table alias. */
function columns(alias = ""): string {
  const p = alias ? `${alias}.` : "";
  return `${p}intent_uuid, ${p}merchant_uuid, ${p}status, ${p}asset, ${p}rail, ${p}expected_amount::text as expected_amount,
    ${p}address, ${p}allocation_reference, ${p}reference, ${p}jurisdiction, ${p}created_at, ${p}expires_at, ${p}updated_at`;
}
const COLUMNS = columns();
/** An intent's columns (IntentRow), for the other stores of the schema. */
export const INTENT_COLUMNS = COLUMNS;

/** A row of COLUMNS, as the driver answers it (numeric and timestamps as text). */
export interface IntentRow {
  intent_uuid: string;
  merchant_uuid: string;
  status: PayInStatus;
  asset: Asset;
  rail: Rail;
  expected_amount: string;
  address: string | null;
  allocation_reference: string | null;
  reference: string | null;
  jurisdiction: string;
  created_at: string;
  expires_at: string;
  updated_at: string;
}

/** COLUMNS of a left join that may have found no intent. */
type MaybeIntentRow = Nullable<IntentRow>;

export function toIntent(row: IntentRow): PayInIntent {
  return {
    intentUuid: row.intent_uuid,
    merchantUuid: row.merchant_uuid,
    status: row.status,
    asset: row.asset,
    rail: row.rail,
    expectedAmount: row.expected_amount,
    address: row.address,
    allocationReference: row.allocation_reference,
    reference: row.reference,
    jurisdiction: row.jurisdiction,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** Keeps the rows of a left join on pay_in_intents that found an intent. */
const foundIntent = found<IntentRow>("intent_uuid");

/** What a claim answers. */
interface ClaimedRow {
  intent_uuid: string;
  claimed_at: string;
}

/**
 * How long a failed create's intent uuid is kept for a retry with the same
 * payload: long enough for a client's retries with backoff, short enough that a
 * wallet key replaced since is unlikely to be in between (the address kept for
 * the uuid was derived from the key of its time). Later retries get a new uuid.
 */
export const RELEASED_REUSE_MS = 10 * 60_000;

/**
 * The ON CONFLICT of a claim ($6: leases taken before it ran out; $7: releases
 * older than RELEASED_REUSE_MS). A row is taken over when its create failed
 * (`released`: any payload may retry the key) or when it is pending past its
 * lease (its holder died; same payload only). The same payload keeps the row's
 * intent uuid (a released one only while recent), so the allocator answers the
 * address it may already have handed out for it; otherwise the new uuid.
 * Anything else (completed, or pending within its lease) is left as it is.
 */
const TAKE_OVER = `on conflict (merchant_uuid, idempotency_key) do update
         set claimed_at = excluded.claimed_at, state = 'pending', request_hash = excluded.request_hash,
             intent_uuid = case when idempotency_keys.request_hash = excluded.request_hash
                                 and (idempotency_keys.state = 'pending' or idempotency_keys.claimed_at >= $7)
                                then idempotency_keys.intent_uuid else excluded.intent_uuid end
         where idempotency_keys.state = 'released'
            or (idempotency_keys.state = 'pending' and idempotency_keys.claimed_at < $6
                and idempotency_keys.request_hash = excluded.request_hash)`;

/** Claims a key ($1–$4: merchant, key, request hash, new intent uuid; $5–$7: claimTimes). Also run as is by tools/bench (B1). */
export const CLAIM_KEY = prepared<ClaimedRow>(
  "payins.claim-key",
  `insert into idempotency_keys (merchant_uuid, idempotency_key, request_hash, intent_uuid, state, claimed_at, created_at)
       values ($1, $2, $3, $4, 'pending', $5, $5)
       ${TAKE_OVER}
       returning intent_uuid, claimed_at`,
);

const READ_KEY = prepared<MaybeIntentRow & { request_hash: string; state: "pending" | "completed" | "released" }>(
  "payins.read-key",
  `select k.request_hash, k.state, ${columns("i")}
         from idempotency_keys k left join pay_in_intents i on i.intent_uuid = k.intent_uuid
        where k.merchant_uuid = $1 and k.idempotency_key = $2`,
);

/**
 * Stores the intent, completes its key ($14) and writes its created event ($15
 * its uuid, $16 its data; sequence 1, the intent's count set to it), in one
 * statement. Also run as is by tools/bench (B1).
 */
export const COMPLETE_KEY = prepared(
  "payins.complete-key",
  `with i as (
         insert into pay_in_intents (intent_uuid, merchant_uuid, status, asset, rail, expected_amount, address,
           allocation_reference, reference, jurisdiction, created_at, expires_at, updated_at, event_sequence)
         values ($1, $2, $3, $4, $5, $6::numeric, $7, $8, $9, $10, $11, $12, $13, 1)
         returning intent_uuid),
       e as (
         insert into event_outbox (event_uuid, merchant_uuid, type, sequence, intent_uuid, checkout_uuid, created_at, data)
         select $15, $2, '${CREATED}', 1, i.intent_uuid, null, $11, $16 from i)
       update idempotency_keys k set state = 'completed'
         from i where k.merchant_uuid = $2 and k.idempotency_key = $14 and k.intent_uuid = i.intent_uuid`,
);

/**
 * CLAIM_KEY for several keys at once (distinct ones: a key twice in one INSERT
 * … ON CONFLICT DO UPDATE is an error). Returns the rows it claimed.
 */
const CLAIM_KEYS = prepared<ClaimedRow & { merchant_uuid: string; idempotency_key: string }>(
  "payins.claim-keys",
  `insert into idempotency_keys (merchant_uuid, idempotency_key, request_hash, intent_uuid, state, claimed_at, created_at)
       select t.merchant_uuid, t.idempotency_key, t.request_hash, t.intent_uuid, 'pending', $5, $5
         from unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[]) as t(merchant_uuid, idempotency_key, request_hash, intent_uuid)
       ${TAKE_OVER}
       returning merchant_uuid, idempotency_key, intent_uuid, claimed_at`,
);

/** COMPLETE_KEY for several intents at once (with their created events); any failure stores none of them. */
const COMPLETE_KEYS = prepared(
  "payins.complete-keys",
  `with v as (
         select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                              $9::text[], $10::text[], $11::timestamptz[], $12::timestamptz[], $13::timestamptz[], $14::text[],
                              $15::uuid[], $16::text[])
           as t(intent_uuid, merchant_uuid, status, asset, rail, expected_amount, address, allocation_reference,
                reference, jurisdiction, created_at, expires_at, updated_at, idempotency_key, event_uuid, event_data)),
       i as (
         insert into pay_in_intents (intent_uuid, merchant_uuid, status, asset, rail, expected_amount, address,
           allocation_reference, reference, jurisdiction, created_at, expires_at, updated_at, event_sequence)
         select intent_uuid, merchant_uuid, status, asset, rail, expected_amount::numeric, address,
           allocation_reference, reference, jurisdiction, created_at, expires_at, updated_at, 1 from v
         returning intent_uuid),
       e as (
         insert into event_outbox (event_uuid, merchant_uuid, type, sequence, intent_uuid, checkout_uuid, created_at, data)
         select v.event_uuid, v.merchant_uuid, '${CREATED}', 1, v.intent_uuid, null, v.created_at, v.event_data
           from v join i on i.intent_uuid = v.intent_uuid)
       update idempotency_keys k set state = 'completed'
         from v join i on i.intent_uuid = v.intent_uuid
        where k.merchant_uuid = v.merchant_uuid and k.idempotency_key = v.idempotency_key and k.intent_uuid = v.intent_uuid`,
);

/** Releases a pending claim, only while it is still the one taken at `claimed_at` (not taken over since). */
const RELEASE_KEY = prepared<{ released: number }>(
  "payins.release-key",
  `update idempotency_keys set state = 'released'
          where merchant_uuid = $1 and idempotency_key = $2 and intent_uuid = $3 and state = 'pending' and claimed_at = $4
          returning 1 as released`,
);

const GET_INTENT = prepared<IntentRow>("payins.get-intent", `select ${COLUMNS} from pay_in_intents where intent_uuid = $1 and merchant_uuid = $2`);

const GET_INTENTS = prepared<IntentRow>("payins.get-intents", `select ${COLUMNS} from pay_in_intents where intent_uuid = any($1::uuid[])`);

/**
 * The list statement for one combination of filters: the page and the total in
 * one round trip, the total summed from the trigger-kept counters.
 */
function listStatement(byStatus: boolean, byAsset: boolean): Statement<MaybeIntentRow & { total: string }> {
  const where = ["merchant_uuid = $1"];
  let n = 1;
  if (byStatus) where.push(`status = $${++n}`);
  if (byAsset) where.push(`asset = $${++n}`);
  const condition = where.join(" and ");
  return prepared(
    `payins.list${byStatus ? "-status" : ""}${byAsset ? "-asset" : ""}`,
    `select (select coalesce(sum(n), 0)::bigint from pay_in_intent_counts where ${condition}) as total, page.*
         from (select 1) one
         left join lateral (
           select ${COLUMNS} from pay_in_intents where ${condition}
            order by created_at desc, intent_uuid desc limit $${n + 1} offset $${n + 2}
         ) page on true`,
  );
}
const LIST = [listStatement(false, false), listStatement(false, true), listStatement(true, false), listStatement(true, true)] as const;

type ClaimInput = { merchantUuid: string; key: string; requestHash: string; newIntentUuid: string; now: Date };

/** A claim's $5–$7: now, the oldest lease still held, the oldest release whose uuid is kept. */
function claimTimes(now: Date): [Date, Date, Date] {
  return [now, new Date(now.getTime() - CLAIM_LEASE_MS), new Date(now.getTime() - RELEASED_REUSE_MS)];
}

function claimedOf(row: ClaimedRow): ClaimedKey {
  return { kind: "claimed", intentUuid: row.intent_uuid, claimedAt: new Date(row.claimed_at) };
}

/** Most claims or completions in one statement. */
const MAX_BATCH = 1000;

/**
 * PayInStore and PayInReader on PostgreSQL. Every operation is a single
 * prepared statement. Claims and completions asked for in one turn of the event
 * loop (the creates of one batch call start together) share one statement and
 * one commit; whatever such a statement does not settle (a key already there, a
 * failed statement) is then done alone, which gives each its own exact outcome.
 * A failed batch statement is logged with its cause (once per cause and minute):
 * the rows still get done, one statement each, but a broken batch path shows.
 */
export class PayInRepository implements PayInStore, PayInReader {
  private readonly claimTogether = coalesce(async (inputs: ClaimInput[]) => this.claimMany(inputs), { maxBatch: MAX_BATCH });
  private readonly completeTogether = coalesce(
    async (items: { intent: PayInIntent; key: string }[]) => this.completeMany(items),
    { maxBatch: MAX_BATCH },
  );

  private readonly claimFellBack: (error: unknown, fields: Record<string, unknown>) => void;
  private readonly completeFellBack: (error: unknown, fields: Record<string, unknown>) => void;

  /** `logger` takes the fallbacks' lines (none: they are not logged, as in tests that do not look). */
  constructor(
    private readonly db: Queryable,
    logger?: Logger,
  ) {
    const report = (message: string) => (logger ? oncePerCause(logger, message) : () => {});
    this.claimFellBack = report("a batched idempotency-key claim failed; its keys are claimed one statement each");
    this.completeFellBack = report("a batched pay-in completion failed; its intents are stored one statement each");
  }

  /** What each input claimed, or null when it must be claimed alone. */
  private async claimMany(inputs: ClaimInput[]): Promise<(ClaimedKey | null)[]> {
    const ids = inputs.map((i) => `${i.merchantUuid}|${i.key}`);
    if (inputs.length < 2 || new Set(ids).size !== ids.length) return inputs.map(() => null);
    const now = inputs[0]!.now;
    try {
      const rows = await this.db.query(CLAIM_KEYS, [
        inputs.map((i) => i.merchantUuid), inputs.map((i) => i.key), inputs.map((i) => i.requestHash), inputs.map((i) => i.newIntentUuid),
        ...claimTimes(now),
      ]);
      const claimed = new Map(rows.map((row) => [`${row.merchant_uuid}|${row.idempotency_key}`, claimedOf(row)]));
      return ids.map((id) => claimed.get(id) ?? null);
    } catch (error) {
      this.claimFellBack(error, { rows: inputs.length });
      return inputs.map(() => null);
    }
  }

  /** Whether each item was stored, or false when it must be stored alone. */
  private async completeMany(items: { intent: PayInIntent; key: string }[]): Promise<boolean[]> {
    if (items.length < 2) return items.map(() => false);
    const column = <T>(pick: (i: PayInIntent) => T) => items.map(({ intent }) => pick(intent));
    const events = items.map(({ intent }) => createdEvent(intent));
    try {
      await this.db.query(COMPLETE_KEYS, [
        column((i) => i.intentUuid), column((i) => i.merchantUuid), column((i) => i.status), column((i) => i.asset), column((i) => i.rail),
        column((i) => i.expectedAmount), column((i) => i.address), column((i) => i.allocationReference), column((i) => i.reference),
        column((i) => i.jurisdiction), column((i) => i.createdAt), column((i) => i.expiresAt), column((i) => i.updatedAt),
        items.map((i) => i.key), events.map((e) => e.eventUuid), events.map((e) => e.data),
      ]);
      return items.map(() => true);
    } catch (error) {
      this.completeFellBack(error, { rows: items.length });
      return items.map(() => false);
    }
  }

  async claimKey(input: ClaimInput): Promise<KeyClaim> {
    // Claim by inserting the key's row; the primary key lets exactly one request
    // win. A released row (its create failed) is taken over by any request, and
    // a pending row whose lease ran out (its holder died) by one with the same
    // payload; the same payload keeps the row's intent uuid (TAKE_OVER).
    const together = await this.claimTogether(input);
    if (together) return together;
    // Twice at most: a key released between the first attempt and the read is free again.
    for (let attempt = 0; ; attempt++) {
      const values = [input.merchantUuid, input.key, input.requestHash, input.newIntentUuid, ...claimTimes(input.now)];
      const claimed = await this.db.query(CLAIM_KEY, values);
      if (claimed[0]) return claimedOf(claimed[0]);
      const row = (await this.db.query(READ_KEY, [input.merchantUuid, input.key]))[0];
      if (row?.state === "completed" && foundIntent(row)) {
        return { kind: "completed", requestHash: row.request_hash, intent: toIntent(row) };
      }
      if (row?.state === "pending") return { kind: "in-flight", requestHash: row.request_hash };
      if (attempt === 0) continue;
      // Released again (or gone): free, but taken and given up by others meanwhile; the client may retry.
      return { kind: "in-flight", requestHash: input.requestHash };
    }
  }

  async completeKey(intent: PayInIntent, key: string): Promise<void> {
    // One statement stores the intent and completes its key.
    if (await this.completeTogether({ intent, key })) return;
    const event = createdEvent(intent);
    await this.db.query(COMPLETE_KEY, [
      intent.intentUuid, intent.merchantUuid, intent.status, intent.asset, intent.rail, intent.expectedAmount,
      intent.address, intent.allocationReference, intent.reference, intent.jurisdiction, intent.createdAt,
      intent.expiresAt, intent.updatedAt, key, event.eventUuid, event.data,
    ]);
  }

  async releaseKey(merchantUuid: string, key: string, claim: ClaimedKey): Promise<boolean> {
    const rows = await this.db.query(RELEASE_KEY, [merchantUuid, key, claim.intentUuid, claim.claimedAt]);
    return rows.length > 0;
  }

  async get(merchantUuid: string, intentUuid: string): Promise<PayInIntent | null> {
    const rows = await this.db.query(GET_INTENT, [intentUuid, merchantUuid]);
    return rows[0] ? toIntent(rows[0]) : null;
  }

  async getMany(intentUuids: readonly string[]): Promise<PayInIntent[]> {
    const rows = await this.db.query(GET_INTENTS, [intentUuids]);
    return rows.map(toIntent);
  }

  async list(filter: ListFilter): Promise<{ intents: PayInIntent[]; total: number }> {
    const statement = LIST[(filter.status ? 2 : 0) + (filter.asset ? 1 : 0)]!;
    const values: unknown[] = [filter.merchantUuid];
    if (filter.status) values.push(filter.status);
    if (filter.asset) values.push(filter.asset);
    const rows = await this.db.query(statement, [...values, filter.limit, filter.offset]);
    const total = Number(rows[0]?.total ?? 0);
    const intents = rows.filter(foundIntent).map(toIntent);
    return { intents, total };
  }
}
