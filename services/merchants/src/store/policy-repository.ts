import { dateOrNull, isUniqueViolation, sql, type Queryable } from "@payin/db";
import type { Policy, PolicyScope, PolicyStore } from "../domain/policy.js";
import type { Effect } from "../domain/validation.js";
import { ConcurrentVersionWrite } from "../domain/versioning.js";
import { lockKey } from "./rows.js";

/** The partial unique index that keeps one open version per (merchant, scope). */
export const ONE_OPEN_POLICY = "policies_one_open_idx";
/** The unique key that keeps version numbers from repeating. */
export const POLICY_VERSION_KEY = "policies_version_key";

const COLUMNS = `policy_uuid, merchant_uuid, scope, effect, version, valid_from, valid_to`;

interface PolicyRow {
  policy_uuid: string;
  merchant_uuid: string;
  scope: PolicyScope;
  effect: Effect;
  version: number;
  valid_from: string;
  valid_to: string | null;
}

function fromRow(row: PolicyRow): Policy {
  return {
    policyUuid: row.policy_uuid,
    merchantUuid: row.merchant_uuid,
    scope: row.scope,
    effect: row.effect,
    version: row.version,
    validFrom: new Date(row.valid_from),
    validTo: dateOrNull(row.valid_to),
  };
}

const ADVISORY_LOCK = sql(`select pg_advisory_xact_lock(hashtextextended($1, 0))`);
const LOCK_OPEN = sql<PolicyRow>(`select ${COLUMNS} from policies where merchant_uuid = $1 and scope = $2 and valid_to is null for update`);
const FIND = sql<PolicyRow>(`select ${COLUMNS} from policies where policy_uuid = $1 and merchant_uuid = $2`);
const CLOSE = sql(`update policies set valid_to = $1 where policy_uuid = $2 and valid_to is null`);
const INSERT = sql(`insert into policies (${COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7)`);

/** PolicyStore on PostgreSQL; versioned exactly like rules. */
export class PolicyRepository implements PolicyStore {
  constructor(private readonly db: Queryable) {}

  async lockOpen(merchantUuid: string, scope: PolicyScope): Promise<Policy | null> {
    // See RuleRepository.lockOpen: lock first, then read with a fresh snapshot.
    await this.db.query(ADVISORY_LOCK, [lockKey("policy", merchantUuid, scope)]);
    const [row] = await this.db.query(LOCK_OPEN, [merchantUuid, scope]);
    return row ? fromRow(row) : null;
  }

  async find(merchantUuid: string, policyUuid: string): Promise<Policy | null> {
    const [row] = await this.db.query(FIND, [policyUuid, merchantUuid]);
    return row ? fromRow(row) : null;
  }

  async close(policyUuid: string, at: Date): Promise<void> {
    await this.db.query(CLOSE, [at, policyUuid]);
  }

  async insert(policy: Policy): Promise<void> {
    const { policyUuid, merchantUuid, scope, effect, version, validFrom, validTo } = policy;
    try {
      await this.db.query(INSERT, [policyUuid, merchantUuid, scope, effect, version, validFrom, validTo]);
    } catch (error) {
      if (isUniqueViolation(error, ONE_OPEN_POLICY) || isUniqueViolation(error, POLICY_VERSION_KEY)) {
        throw new ConcurrentVersionWrite();
      }
      throw error;
    }
  }
}
