import { dateOrNull, prepared, sql, type Queryable } from "@payin/db";
import type { DisabledReason, EndpointStore, SealedSecrets, WebhookEndpoint } from "../domain/model.js";

const COLUMNS = `endpoint_uuid, merchant_uuid, url, description, event_types, enabled, disabled_reason, disabled_at, failing_since,
  previous_secret_expires_at, created_at, updated_at`;

interface EndpointRow {
  endpoint_uuid: string;
  merchant_uuid: string;
  url: string;
  description: string;
  event_types: string[];
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  disabled_at: string | Date | null;
  failing_since: string | Date | null;
  previous_secret_expires_at: string | Date | null;
  created_at: string | Date;
  updated_at: string | Date;
}

function toEndpoint(r: EndpointRow): WebhookEndpoint {
  return {
    endpointUuid: r.endpoint_uuid,
    merchantUuid: r.merchant_uuid,
    url: r.url,
    description: r.description,
    eventTypes: r.event_types,
    enabled: r.enabled,
    disabledReason: r.disabled_reason,
    disabledAt: dateOrNull(r.disabled_at),
    failingSince: dateOrNull(r.failing_since),
    previousSecretExpiresAt: dateOrNull(r.previous_secret_expires_at),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

interface SecretsRow {
  secret_sealed: Buffer;
  previous_secret_sealed: Buffer | null;
  previous_secret_expires_at: string | Date | null;
}

// Endpoint changes of one merchant take turns (the limit's count): a lock of the transaction, on the merchant.
const LOCK_MERCHANT = sql(`select pg_advisory_xact_lock(hashtextextended('notifications.webhook_endpoints ' || $1::text, 0))`);
const COUNT = sql<{ n: string }>(`select count(*) as n from webhook_endpoints where merchant_uuid = $1`);
const INSERT = sql(`
  insert into webhook_endpoints (${COLUMNS}, secret_sealed, previous_secret_sealed)
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`);
const LIST = sql<EndpointRow>(`select ${COLUMNS} from webhook_endpoints where merchant_uuid = $1 order by created_at, endpoint_uuid`);
const GET = sql<EndpointRow>(`select ${COLUMNS} from webhook_endpoints where merchant_uuid = $1 and endpoint_uuid = $2`);
const GET_FOR_UPDATE = sql<EndpointRow>(`select ${COLUMNS} from webhook_endpoints where merchant_uuid = $1 and endpoint_uuid = $2 for update`);
const UPDATE = sql(`
  update webhook_endpoints
     set url = $2, description = $3, event_types = $4, enabled = $5, disabled_reason = $6, disabled_at = $7, failing_since = $8, updated_at = $9
   where endpoint_uuid = $1`);
const SET_SECRETS = sql(`
  update webhook_endpoints
     set secret_sealed = $2, previous_secret_sealed = $3, previous_secret_expires_at = $4, updated_at = $5
   where endpoint_uuid = $1`);
const SECRETS = sql<SecretsRow>(`select secret_sealed, previous_secret_sealed, previous_secret_expires_at from webhook_endpoints where endpoint_uuid = $1`);
const DELETE = sql(`delete from webhook_endpoints where endpoint_uuid = $1`);
// Prepared: RecordEvents runs it for every batch with new events.
const ENABLED_OF = prepared<EndpointRow>("notifications_endpoints_enabled_of", `select ${COLUMNS} from webhook_endpoints where merchant_uuid = any($1::uuid[]) and enabled`);

/** EndpointStore on PostgreSQL (`webhook_endpoints`). */
export class EndpointRepository implements EndpointStore {
  constructor(private readonly db: Queryable) {}

  async lockMerchant(merchantUuid: string): Promise<void> {
    await this.db.query(LOCK_MERCHANT, [merchantUuid]);
  }

  async count(merchantUuid: string): Promise<number> {
    const [row] = await this.db.query(COUNT, [merchantUuid]);
    return Number(row?.n ?? 0);
  }

  async insert(e: WebhookEndpoint, secrets: SealedSecrets): Promise<void> {
    await this.db.query(INSERT, [
      e.endpointUuid,
      e.merchantUuid,
      e.url,
      e.description,
      e.eventTypes,
      e.enabled,
      e.disabledReason,
      e.disabledAt,
      e.failingSince,
      secrets.previousSecretExpiresAt,
      e.createdAt,
      e.updatedAt,
      secrets.secretSealed,
      secrets.previousSecretSealed,
    ]);
  }

  async list(merchantUuid: string): Promise<WebhookEndpoint[]> {
    return (await this.db.query(LIST, [merchantUuid])).map(toEndpoint);
  }

  async get(merchantUuid: string, endpointUuid: string, forUpdate = false): Promise<WebhookEndpoint | null> {
    const [row] = await this.db.query(forUpdate ? GET_FOR_UPDATE : GET, [merchantUuid, endpointUuid]);
    return row ? toEndpoint(row) : null;
  }

  async update(e: WebhookEndpoint): Promise<void> {
    await this.db.query(UPDATE, [e.endpointUuid, e.url, e.description, e.eventTypes, e.enabled, e.disabledReason, e.disabledAt, e.failingSince, e.updatedAt]);
  }

  async setSecrets(endpointUuid: string, s: SealedSecrets, updatedAt: Date): Promise<void> {
    await this.db.query(SET_SECRETS, [endpointUuid, s.secretSealed, s.previousSecretSealed, s.previousSecretExpiresAt, updatedAt]);
  }

  async sealedSecrets(endpointUuid: string): Promise<SealedSecrets | null> {
    const [row] = await this.db.query(SECRETS, [endpointUuid]);
    return row
      ? { secretSealed: row.secret_sealed, previousSecretSealed: row.previous_secret_sealed, previousSecretExpiresAt: dateOrNull(row.previous_secret_expires_at) }
      : null;
  }

  async delete(endpointUuid: string): Promise<void> {
    await this.db.query(DELETE, [endpointUuid]);
  }

  async enabledOf(merchantUuids: readonly string[]): Promise<WebhookEndpoint[]> {
    if (merchantUuids.length === 0) return [];
    return (await this.db.query(ENABLED_OF, [merchantUuids])).map(toEndpoint);
  }
}
