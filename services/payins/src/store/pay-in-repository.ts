import type { EntityManager } from "@payin/db";
import type { IdempotentCreate, KeyLockedWork, PayInStore } from "../domain/create-pay-in-intent.js";
import type { PayInIntent, PayInStatus } from "../domain/pay-in-intent.js";
import type { ListFilter, PayInReader } from "../domain/read-pay-in-intents.js";
import type { Asset, Rail } from "../domain/routing.js";

type Row = Record<string, unknown>;

/** Selected columns, optionally qualified by a table alias. */
function columns(alias = ""): string {
  const p = alias ? `${alias}.` : "";
  return `${p}intent_uuid, ${p}merchant_uuid, ${p}status, ${p}asset, ${p}rail, ${p}expected_amount::text as expected_amount,
    ${p}address, ${p}allocation_reference, ${p}reference, ${p}jurisdiction, ${p}created_at, ${p}expires_at, ${p}updated_at`;
}
const COLUMNS = columns();

function toIntent(row: Row): PayInIntent {
  return {
    intentUuid: row.intent_uuid as string,
    merchantUuid: row.merchant_uuid as string,
    status: row.status as PayInStatus,
    asset: row.asset as Asset,
    rail: row.rail as Rail,
    expectedAmount: row.expected_amount as string,
    address: (row.address as string | null) ?? null,
    allocationReference: (row.allocation_reference as string | null) ?? null,
    reference: (row.reference as string | null) ?? null,
    jurisdiction: row.jurisdiction as string,
    createdAt: new Date(row.created_at as string),
    expiresAt: new Date(row.expires_at as string),
    updatedAt: new Date(row.updated_at as string),
  };
}

/** PayInStore and PayInReader on PostgreSQL. Hot paths are single statements. */
export class PayInRepository implements PayInStore, PayInReader {
  constructor(private readonly em: EntityManager) {}

  async withKeyLock<T>(merchantUuid: string, key: string, work: (locked: KeyLockedWork) => Promise<T>): Promise<T | "busy"> {
    return this.em.transactional(async (em) => {
      // A transaction-scoped advisory lock on the key: a second request with the
      // same key does not wait, it is told the key is in use.
      const [lock] = await em.execute(`select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked`, [
        `${merchantUuid}:${key}`,
      ]);
      if (!lock?.locked) return "busy" as const;
      return work({
        find: (m, k) => this.findByKey(em, m, k),
        insert: (intent, k, hash) => this.insert(em, intent, k, hash),
      });
    });
  }

  private async findByKey(em: EntityManager, merchantUuid: string, key: string): Promise<IdempotentCreate | null> {
    const rows = await em.execute(
      `select k.request_hash, ${columns("i")}
         from idempotency_keys k join pay_in_intents i on i.intent_uuid = k.intent_uuid
        where k.merchant_uuid = ? and k.idempotency_key = ?`,
      [merchantUuid, key],
    );
    const row = rows[0];
    return row ? { requestHash: row.request_hash as string, intent: toIntent(row) } : null;
  }

  private async insert(em: EntityManager, intent: PayInIntent, key: string, requestHash: string): Promise<void> {
    // One statement stores the intent and its key together.
    await em.execute(
      `with i as (
         insert into pay_in_intents (intent_uuid, merchant_uuid, status, asset, rail, expected_amount, address,
           allocation_reference, reference, jurisdiction, created_at, expires_at, updated_at)
         values (?, ?, ?, ?, ?, ?::numeric, ?, ?, ?, ?, ?, ?, ?)
         returning intent_uuid)
       insert into idempotency_keys (merchant_uuid, idempotency_key, request_hash, intent_uuid, created_at)
       select ?, ?, ?, intent_uuid, ? from i`,
      [
        intent.intentUuid, intent.merchantUuid, intent.status, intent.asset, intent.rail, intent.expectedAmount,
        intent.address, intent.allocationReference, intent.reference, intent.jurisdiction, intent.createdAt,
        intent.expiresAt, intent.updatedAt, intent.merchantUuid, key, requestHash, intent.createdAt,
      ],
    );
  }

  async get(merchantUuid: string, intentUuid: string): Promise<PayInIntent | null> {
    const rows = await this.em.execute(`select ${COLUMNS} from pay_in_intents where intent_uuid = ? and merchant_uuid = ?`, [
      intentUuid,
      merchantUuid,
    ]);
    return rows[0] ? toIntent(rows[0]) : null;
  }

  async list(filter: ListFilter): Promise<{ intents: PayInIntent[]; total: number }> {
    const where = ["merchant_uuid = ?"];
    const params: unknown[] = [filter.merchantUuid];
    if (filter.status) {
      where.push("status = ?");
      params.push(filter.status);
    }
    if (filter.asset) {
      where.push("asset = ?");
      params.push(filter.asset);
    }
    const condition = where.join(" and ");
    // Page and total in one round trip; the total sums the trigger-kept counters.
    const rows = await this.em.execute(
      `select (select coalesce(sum(n), 0)::bigint from pay_in_intent_counts where ${condition}) as total, page.*
         from (select 1) one
         left join lateral (
           select ${COLUMNS} from pay_in_intents where ${condition}
            order by created_at desc, intent_uuid desc limit ? offset ?
         ) page on true`,
      [...params, ...params, filter.limit, filter.offset],
    );
    const total = Number(rows[0]?.total ?? 0);
    const intents = rows.filter((row: Row) => row.intent_uuid !== null).map(toIntent);
    return { intents, total };
  }
}
