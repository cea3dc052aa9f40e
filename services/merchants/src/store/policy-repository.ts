import { isUniqueViolation, type EntityManager } from "@payin/db";
import type { Policy, PolicyScope, PolicyStore } from "../domain/policy.js";
import type { Effect } from "../domain/validation.js";
import { ConcurrentVersionWrite } from "../domain/versioning.js";
import { date, dateOrNull, lockKey, type Row } from "./rows.js";

/** The partial unique index that keeps one open version per (merchant, scope). */
export const ONE_OPEN_POLICY = "policies_one_open_idx";
/** The unique key that keeps version numbers from repeating. */
export const POLICY_VERSION_KEY = "policies_version_key";

const COLUMNS = `policy_uuid, merchant_uuid, scope, effect, version, valid_from, valid_to`;

function fromRow(row: Row): Policy {
  return {
    policyUuid: row.policy_uuid as string,
    merchantUuid: row.merchant_uuid as string,
    scope: row.scope as PolicyScope,
    effect: row.effect as Effect,
    version: Number(row.version),
    validFrom: date(row.valid_from),
    validTo: dateOrNull(row.valid_to),
  };
}

/** PolicyStore on PostgreSQL; versioned exactly like rules. */
export class PolicyRepository implements PolicyStore {
  constructor(private readonly em: EntityManager) {}

  async lockOpen(merchantUuid: string, scope: PolicyScope): Promise<Policy | null> {
    // See RuleRepository.lockOpen: lock first, then read with a fresh snapshot.
    await this.em.execute(`select pg_advisory_xact_lock(hashtextextended(?, 0))`, [lockKey("policy", merchantUuid, scope)]);
    const rows = await this.em.execute(
      `select ${COLUMNS} from policies where merchant_uuid = ? and scope = ? and valid_to is null for update`,
      [merchantUuid, scope],
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async find(merchantUuid: string, policyUuid: string): Promise<Policy | null> {
    const rows = await this.em.execute(`select ${COLUMNS} from policies where policy_uuid = ? and merchant_uuid = ?`, [policyUuid, merchantUuid]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async close(policyUuid: string, at: Date): Promise<void> {
    await this.em.execute(`update policies set valid_to = ? where policy_uuid = ? and valid_to is null`, [at, policyUuid]);
  }

  async insert(policy: Policy): Promise<void> {
    const { policyUuid, merchantUuid, scope, effect, version, validFrom, validTo } = policy;
    try {
      await this.em.execute(`insert into policies (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?)`, [
        policyUuid,
        merchantUuid,
        scope,
        effect,
        version,
        validFrom,
        validTo,
      ]);
    } catch (error) {
      if (isUniqueViolation(error, ONE_OPEN_POLICY) || isUniqueViolation(error, POLICY_VERSION_KEY)) {
        throw new ConcurrentVersionWrite();
      }
      throw error;
    }
  }
}
