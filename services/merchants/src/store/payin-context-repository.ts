import { prepared, type Queryable } from "@payin/db";
import type { MerchantStatus } from "../domain/merchant.js";
import type { OperatingMode } from "../domain/operating-profile.js";
import type { PayinContext, PayinContextReader, ReadinessInputs } from "../domain/payin-context.js";
import type { Effect } from "../domain/validation.js";

/**
 * Whether merchant `m` has a provider bound for the capability (parameter $1)
 * with a connection to that same provider, the binding also matching `where`
 * (a jurisdiction, or none: any). Index lookups on the bindings' and
 * connections' unique keys (merchant first).
 */
const providerConnected = (where: string, as: string) => `exists (select 1 from provider_bindings b
                        join provider_connections c
                          on c.merchant_uuid = b.merchant_uuid and c.provider_uuid = b.provider_uuid
                       where b.merchant_uuid = m.uuid and b.capability = $1${where}) as ${as}`;

/** Bound (in any jurisdiction) and connected: the merchant-wide view, the same in both statements. */
const PROVIDER_CONNECTED = providerConnected("", "provider_connected");

/**
 * One statement, each part an index lookup: the merchant's primary key, the
 * open-rule and open-policy partial unique indexes, the profile's primary key,
 * the bindings' and connections' unique keys. Every table it reads announces
 * its changes (the pay-in context triggers of the migrations).
 */
/** What both statements answer of the merchant. */
interface ReadinessRow {
  status: MerchantStatus;
  payin_policy_effect: Effect | null;
  operating_mode: OperatingMode | null;
  provider_connected: boolean;
}

const PAYIN_CONTEXT = prepared<ReadinessRow & { rule_effect: Effect | null; provider_connected_in_jurisdiction: boolean }>(
  "merchants.payin-context",
  `select m.status,
              (select r.effect from rules r
                where r.capability = $1 and r.jurisdiction = $2 and r.valid_to is null) as rule_effect,
              (select p.effect from policies p
                where p.merchant_uuid = m.uuid and p.scope = 'payin' and p.valid_to is null) as payin_policy_effect,
              (select o.operating_mode from operating_profiles o where o.merchant_uuid = m.uuid) as operating_mode,
              ${PROVIDER_CONNECTED},
              ${providerConnected(" and b.jurisdiction = $2", "provider_connected_in_jurisdiction")}
         from merchants m
        where m.uuid = $3`,
);

const READINESS_INPUTS = prepared<ReadinessRow>(
  "merchants.readiness-inputs",
  `select m.status,
              (select p.effect from policies p
                where p.merchant_uuid = m.uuid and p.scope = 'payin' and p.valid_to is null) as payin_policy_effect,
              (select o.operating_mode from operating_profiles o where o.merchant_uuid = m.uuid) as operating_mode,
              ${PROVIDER_CONNECTED}
         from merchants m
        where m.uuid = $2`,
);

/** PayinContextReader on PostgreSQL: on every pay-in create, so a prepared statement. */
export class PayinContextRepository implements PayinContextReader {
  constructor(private readonly db: Queryable) {}

  async payinContext(merchantUuid: string, capability: string, jurisdiction: string | null): Promise<PayinContext | null> {
    const [row] = await this.db.query(PAYIN_CONTEXT, [capability, jurisdiction, merchantUuid]);
    if (!row) return null;
    return {
      status: row.status,
      ruleEffect: row.rule_effect,
      payinPolicyEffect: row.payin_policy_effect,
      operatingMode: row.operating_mode,
      providerConnected: row.provider_connected === true,
      providerConnectedInJurisdiction: row.provider_connected_in_jurisdiction === true,
    };
  }

  async readinessInputs(merchantUuid: string, capability: string): Promise<ReadinessInputs | null> {
    const [row] = await this.db.query(READINESS_INPUTS, [capability, merchantUuid]);
    if (!row) return null;
    return {
      status: row.status,
      payinPolicyEffect: row.payin_policy_effect,
      operatingMode: row.operating_mode,
      providerConnected: row.provider_connected === true,
    };
  }
}
