import { found, isUniqueViolation, sql, type Nullable, type Queryable } from "@payin/db";
import type {
  Provider,
  ProviderBinding,
  ProviderBindingStore,
  ProviderConnection,
  ProviderConnectionStore,
  ProviderStore,
} from "../domain/provider.js";
import type { Page } from "../domain/validation.js";
import { withoutValues } from "./rows.js";

/** The unique index on lower(name). */
export const PROVIDER_NAME_KEY = "providers_name_key";

interface ProviderRow {
  provider_uuid: string;
  name: string;
  created_at: string;
}

function providerFromRow(row: ProviderRow): Provider {
  return { providerUuid: row.provider_uuid, name: row.name, createdAt: new Date(row.created_at) };
}

const INSERT_PROVIDER = sql(`insert into providers (provider_uuid, name, created_at) values ($1, $2, $3)`);
const FIND_PROVIDER = sql<ProviderRow>(`select provider_uuid, name, created_at from providers where provider_uuid = $1`);
/** Page and exact total in one round trip; the registry is small. */
const LIST_PROVIDERS = sql<Nullable<ProviderRow> & { total: string }>(`select (select count(*) from providers) as total, page.*
         from (select 1) one
         left join lateral (
           select provider_uuid, name, created_at from providers order by lower(name), provider_uuid limit $1 offset $2
         ) page on true`);

/** ProviderStore on PostgreSQL. */
export class ProviderRepository implements ProviderStore {
  constructor(private readonly db: Queryable) {}

  async insert(provider: Provider): Promise<boolean> {
    try {
      await this.db.query(INSERT_PROVIDER, [provider.providerUuid, provider.name, provider.createdAt]);
      return true;
    } catch (error) {
      if (isUniqueViolation(error, PROVIDER_NAME_KEY)) return false;
      throw error;
    }
  }

  async find(providerUuid: string): Promise<Provider | null> {
    const [row] = await this.db.query(FIND_PROVIDER, [providerUuid]);
    return row ? providerFromRow(row) : null;
  }

  async list(page?: Page): Promise<{ providers: Provider[]; total: number }> {
    const rows = await this.db.query(LIST_PROVIDERS, [page?.limit ?? null, page?.offset ?? 0]);
    return { providers: rows.filter(found<ProviderRow>("provider_uuid")).map(providerFromRow), total: Number(rows[0]?.total ?? 0) };
  }
}

const BINDING_COLUMNS = `binding_uuid, merchant_uuid, provider_uuid, capability, jurisdiction, created_at`;

interface BindingRow {
  binding_uuid: string;
  merchant_uuid: string;
  provider_uuid: string;
  capability: string;
  jurisdiction: string;
  created_at: string;
}

function bindingFromRow(row: BindingRow): ProviderBinding {
  return {
    bindingUuid: row.binding_uuid,
    merchantUuid: row.merchant_uuid,
    providerUuid: row.provider_uuid,
    capability: row.capability,
    jurisdiction: row.jurisdiction,
    createdAt: new Date(row.created_at),
  };
}

const INSERT_BINDING = sql<{ binding_uuid: string }>(`insert into provider_bindings (${BINDING_COLUMNS}) values ($1, $2, $3, $4, $5, $6)
       on conflict (merchant_uuid, provider_uuid, capability, jurisdiction) do nothing
       returning binding_uuid`);
const FIND_BINDING = sql<BindingRow>(`select ${BINDING_COLUMNS} from provider_bindings
        where merchant_uuid = $1 and provider_uuid = $2 and capability = $3 and jurisdiction = $4`);
const FIND_BINDING_BY_UUID = sql<BindingRow>(`select ${BINDING_COLUMNS} from provider_bindings where binding_uuid = $1 and merchant_uuid = $2`);

/** ProviderBindingStore on PostgreSQL. */
export class ProviderBindingRepository implements ProviderBindingStore {
  constructor(private readonly db: Queryable) {}

  async insertIfAbsent(binding: ProviderBinding): Promise<boolean> {
    const rows = await this.db.query(INSERT_BINDING, [
      binding.bindingUuid,
      binding.merchantUuid,
      binding.providerUuid,
      binding.capability,
      binding.jurisdiction,
      binding.createdAt,
    ]);
    return rows.length === 1;
  }

  async find(key: Omit<ProviderBinding, "bindingUuid" | "createdAt">): Promise<ProviderBinding | null> {
    const [row] = await this.db.query(FIND_BINDING, [key.merchantUuid, key.providerUuid, key.capability, key.jurisdiction]);
    return row ? bindingFromRow(row) : null;
  }

  async findByUuid(merchantUuid: string, bindingUuid: string): Promise<ProviderBinding | null> {
    const [row] = await this.db.query(FIND_BINDING_BY_UUID, [bindingUuid, merchantUuid]);
    return row ? bindingFromRow(row) : null;
  }
}

const CONNECTION_COLUMNS = `connection_uuid, merchant_uuid, provider_uuid, secret_reference, created_at, updated_at`;

interface ConnectionRow {
  connection_uuid: string;
  merchant_uuid: string;
  provider_uuid: string;
  secret_reference: string | null;
  created_at: string;
  updated_at: string;
}

function connectionFromRow(row: ConnectionRow): ProviderConnection {
  return {
    connectionUuid: row.connection_uuid,
    merchantUuid: row.merchant_uuid,
    providerUuid: row.provider_uuid,
    secretReference: row.secret_reference,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

const INSERT_CONNECTION = sql<{ connection_uuid: string }>(`insert into provider_connections (${CONNECTION_COLUMNS}) values ($1, $2, $3, $4, $5, $6)
         on conflict (merchant_uuid, provider_uuid) do nothing
         returning connection_uuid`);
const FIND_CONNECTION_BY_PROVIDER = sql<ConnectionRow>(`select ${CONNECTION_COLUMNS} from provider_connections where merchant_uuid = $1 and provider_uuid = $2`);
const FIND_CONNECTION_BY_UUID = sql<ConnectionRow>(`select ${CONNECTION_COLUMNS} from provider_connections where connection_uuid = $1 and merchant_uuid = $2`);
const LOCK_CONNECTION = sql<ConnectionRow>(
  `select ${CONNECTION_COLUMNS} from provider_connections where connection_uuid = $1 and merchant_uuid = $2 for update`,
);
const SET_SECRET_REFERENCE = sql<ConnectionRow>(`update provider_connections set secret_reference = $1, updated_at = greatest(updated_at, $2)
          where connection_uuid = $3 returning ${CONNECTION_COLUMNS}`);

/** ProviderConnectionStore on PostgreSQL. */
export class ProviderConnectionRepository implements ProviderConnectionStore {
  constructor(private readonly db: Queryable) {}

  async insertIfAbsent(connection: ProviderConnection): Promise<boolean> {
    const c = connection;
    try {
      const rows = await this.db.query(INSERT_CONNECTION, [c.connectionUuid, c.merchantUuid, c.providerUuid, c.secretReference, c.createdAt, c.updatedAt]);
      return rows.length === 1;
    } catch (error) {
      // The error may quote the secret reference (a row's detail).
      throw withoutValues(error, "insert into provider_connections");
    }
  }

  async findByProvider(merchantUuid: string, providerUuid: string): Promise<ProviderConnection | null> {
    const [row] = await this.db.query(FIND_CONNECTION_BY_PROVIDER, [merchantUuid, providerUuid]);
    return row ? connectionFromRow(row) : null;
  }

  async findByUuid(merchantUuid: string, connectionUuid: string): Promise<ProviderConnection | null> {
    const [row] = await this.db.query(FIND_CONNECTION_BY_UUID, [connectionUuid, merchantUuid]);
    return row ? connectionFromRow(row) : null;
  }

  async lock(merchantUuid: string, connectionUuid: string): Promise<ProviderConnection | null> {
    const [row] = await this.db.query(LOCK_CONNECTION, [connectionUuid, merchantUuid]);
    return row ? connectionFromRow(row) : null;
  }

  async setSecretReference(connectionUuid: string, secretReference: string, at: Date): Promise<ProviderConnection> {
    let rows: ConnectionRow[];
    try {
      rows = await this.db.query(SET_SECRET_REFERENCE, [secretReference, at, connectionUuid]);
    } catch (error) {
      throw withoutValues(error, "update provider_connections");
    }
    if (!rows[0]) throw new Error("provider connection vanished while locked");
    return connectionFromRow(rows[0]);
  }
}
