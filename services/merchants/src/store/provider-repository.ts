import { isUniqueViolation, type EntityManager } from "@payin/db";
import type {
  Provider,
  ProviderBinding,
  ProviderBindingStore,
  ProviderConnection,
  ProviderConnectionStore,
  ProviderStore,
} from "../domain/provider.js";
import type { Page } from "../domain/validation.js";
import { date, textOrNull, withoutValues, type Row } from "./rows.js";

/** The unique index on lower(name). */
export const PROVIDER_NAME_KEY = "providers_name_key";

function providerFromRow(row: Row): Provider {
  return { providerUuid: row.provider_uuid as string, name: row.name as string, createdAt: date(row.created_at) };
}

/** ProviderStore on PostgreSQL. */
export class ProviderRepository implements ProviderStore {
  constructor(private readonly em: EntityManager) {}

  async insert(provider: Provider): Promise<boolean> {
    try {
      await this.em.execute(`insert into providers (provider_uuid, name, created_at) values (?, ?, ?)`, [
        provider.providerUuid,
        provider.name,
        provider.createdAt,
      ]);
      return true;
    } catch (error) {
      if (isUniqueViolation(error, PROVIDER_NAME_KEY)) return false;
      throw error;
    }
  }

  async find(providerUuid: string): Promise<Provider | null> {
    const rows = await this.em.execute(`select provider_uuid, name, created_at from providers where provider_uuid = ?`, [providerUuid]);
    return rows[0] ? providerFromRow(rows[0]) : null;
  }

  async list(page?: Page): Promise<{ providers: Provider[]; total: number }> {
    // Page and exact total in one round trip; the registry is small.
    const rows = await this.em.execute(
      `select (select count(*) from providers) as total, page.*
         from (select 1) one
         left join lateral (
           select provider_uuid, name, created_at from providers order by lower(name), provider_uuid limit ? offset ?
         ) page on true`,
      [page?.limit ?? null, page?.offset ?? 0],
    );
    return { providers: rows.filter((row: Row) => row.provider_uuid !== null).map(providerFromRow), total: Number(rows[0]?.total ?? 0) };
  }
}

const BINDING_COLUMNS = `binding_uuid, merchant_uuid, provider_uuid, capability, jurisdiction, created_at`;

function bindingFromRow(row: Row): ProviderBinding {
  return {
    bindingUuid: row.binding_uuid as string,
    merchantUuid: row.merchant_uuid as string,
    providerUuid: row.provider_uuid as string,
    capability: row.capability as string,
    jurisdiction: row.jurisdiction as string,
    createdAt: date(row.created_at),
  };
}

/** ProviderBindingStore on PostgreSQL. */
export class ProviderBindingRepository implements ProviderBindingStore {
  constructor(private readonly em: EntityManager) {}

  async insertIfAbsent(binding: ProviderBinding): Promise<boolean> {
    const rows = await this.em.execute(
      `insert into provider_bindings (${BINDING_COLUMNS}) values (?, ?, ?, ?, ?, ?)
       on conflict (merchant_uuid, provider_uuid, capability, jurisdiction) do nothing
       returning binding_uuid`,
      [binding.bindingUuid, binding.merchantUuid, binding.providerUuid, binding.capability, binding.jurisdiction, binding.createdAt],
    );
    return rows.length === 1;
  }

  async find(key: Omit<ProviderBinding, "bindingUuid" | "createdAt">): Promise<ProviderBinding | null> {
    const rows = await this.em.execute(
      `select ${BINDING_COLUMNS} from provider_bindings
        where merchant_uuid = ? and provider_uuid = ? and capability = ? and jurisdiction = ?`,
      [key.merchantUuid, key.providerUuid, key.capability, key.jurisdiction],
    );
    return rows[0] ? bindingFromRow(rows[0]) : null;
  }

  async findByUuid(merchantUuid: string, bindingUuid: string): Promise<ProviderBinding | null> {
    const rows = await this.em.execute(`select ${BINDING_COLUMNS} from provider_bindings where binding_uuid = ? and merchant_uuid = ?`, [
      bindingUuid,
      merchantUuid,
    ]);
    return rows[0] ? bindingFromRow(rows[0]) : null;
  }
}

const CONNECTION_COLUMNS = `connection_uuid, merchant_uuid, provider_uuid, secret_reference, created_at, updated_at`;

function connectionFromRow(row: Row): ProviderConnection {
  return {
    connectionUuid: row.connection_uuid as string,
    merchantUuid: row.merchant_uuid as string,
    providerUuid: row.provider_uuid as string,
    secretReference: textOrNull(row.secret_reference),
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
  };
}

/** ProviderConnectionStore on PostgreSQL. */
export class ProviderConnectionRepository implements ProviderConnectionStore {
  constructor(private readonly em: EntityManager) {}

  async insertIfAbsent(connection: ProviderConnection): Promise<boolean> {
    const c = connection;
    try {
      const rows = await this.em.execute(
        `insert into provider_connections (${CONNECTION_COLUMNS}) values (?, ?, ?, ?, ?, ?)
         on conflict (merchant_uuid, provider_uuid) do nothing
         returning connection_uuid`,
        [c.connectionUuid, c.merchantUuid, c.providerUuid, c.secretReference, c.createdAt, c.updatedAt],
      );
      return rows.length === 1;
    } catch (error) {
      // The driver's error quotes the statement with the secret reference inlined.
      throw withoutValues(error, "insert into provider_connections");
    }
  }

  async findByProvider(merchantUuid: string, providerUuid: string): Promise<ProviderConnection | null> {
    const rows = await this.em.execute(
      `select ${CONNECTION_COLUMNS} from provider_connections where merchant_uuid = ? and provider_uuid = ?`,
      [merchantUuid, providerUuid],
    );
    return rows[0] ? connectionFromRow(rows[0]) : null;
  }

  async findByUuid(merchantUuid: string, connectionUuid: string): Promise<ProviderConnection | null> {
    const rows = await this.em.execute(`select ${CONNECTION_COLUMNS} from provider_connections where connection_uuid = ? and merchant_uuid = ?`, [
      connectionUuid,
      merchantUuid,
    ]);
    return rows[0] ? connectionFromRow(rows[0]) : null;
  }

  async lock(merchantUuid: string, connectionUuid: string): Promise<ProviderConnection | null> {
    const rows = await this.em.execute(
      `select ${CONNECTION_COLUMNS} from provider_connections where connection_uuid = ? and merchant_uuid = ? for update`,
      [connectionUuid, merchantUuid],
    );
    return rows[0] ? connectionFromRow(rows[0]) : null;
  }

  async setSecretReference(connectionUuid: string, secretReference: string, at: Date): Promise<ProviderConnection> {
    let rows: Row[];
    try {
      rows = await this.em.execute(
        `update provider_connections set secret_reference = ?, updated_at = greatest(updated_at, ?)
          where connection_uuid = ? returning ${CONNECTION_COLUMNS}`,
        [secretReference, at, connectionUuid],
      );
    } catch (error) {
      throw withoutValues(error, "update provider_connections");
    }
    if (!rows[0]) throw new Error("provider connection vanished while locked");
    return connectionFromRow(rows[0]);
  }
}
