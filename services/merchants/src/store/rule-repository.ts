import { dateOrNull, found, isUniqueViolation, sql, type Nullable, type Queryable } from "@payin/db";
import type { Rule, RuleStore } from "../domain/rule.js";
import type { Effect, Page } from "../domain/validation.js";
import { ConcurrentVersionWrite } from "../domain/versioning.js";
import { lockKey } from "./rows.js";

/** The partial unique index that keeps one open version per (capability, jurisdiction). */
export const ONE_OPEN_RULE = "rules_one_open_idx";
/** The unique key that keeps version numbers from repeating. */
export const RULE_VERSION_KEY = "rules_version_key";

const COLUMNS = `rule_uuid, capability, jurisdiction, effect, version, valid_from, valid_to`;

interface RuleRow {
  rule_uuid: string;
  capability: string;
  jurisdiction: string;
  effect: Effect;
  version: number;
  valid_from: string;
  valid_to: string | null;
}

function fromRow(row: RuleRow): Rule {
  return {
    ruleUuid: row.rule_uuid,
    capability: row.capability,
    jurisdiction: row.jurisdiction,
    effect: row.effect,
    version: row.version,
    validFrom: new Date(row.valid_from),
    validTo: dateOrNull(row.valid_to),
  };
}

const ADVISORY_LOCK = sql(`select pg_advisory_xact_lock(hashtextextended($1, 0))`);
const LOCK_OPEN = sql<RuleRow>(`select ${COLUMNS} from rules where capability = $1 and jurisdiction = $2 and valid_to is null for update`);
const CLOSE = sql(`update rules set valid_to = $1 where rule_uuid = $2 and valid_to is null`);
const INSERT = sql(`insert into rules (${COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7)`);
const FIND = sql<RuleRow>(`select ${COLUMNS} from rules where rule_uuid = $1`);

/** Page and exact total in one round trip; rules are few (a capability per jurisdiction, and their versions). */
function listStatement(includeClosed: boolean) {
  const condition = includeClosed ? "" : "where valid_to is null";
  return sql<Nullable<RuleRow> & { total: string }>(`select (select count(*) from rules ${condition}) as total, page.*
         from (select 1) one
         left join lateral (
           select ${COLUMNS} from rules ${condition}
            order by capability, jurisdiction, version limit $1 offset $2
         ) page on true`);
}
const LIST_OPEN = listStatement(false);
const LIST_ALL = listStatement(true);

/** RuleStore on PostgreSQL. */
export class RuleRepository implements RuleStore {
  constructor(private readonly db: Queryable) {}

  async lockOpen(capability: string, jurisdiction: string): Promise<Rule | null> {
    // The advisory lock serialises writers of the pair even when no version
    // exists yet (there is no row to lock then); the row lock guards against
    // anything that bypasses it. Two statements: the select must take its
    // snapshot after the lock is held.
    await this.db.query(ADVISORY_LOCK, [lockKey("rule", capability, jurisdiction)]);
    const [row] = await this.db.query(LOCK_OPEN, [capability, jurisdiction]);
    return row ? fromRow(row) : null;
  }

  async close(ruleUuid: string, at: Date): Promise<void> {
    await this.db.query(CLOSE, [at, ruleUuid]);
  }

  async insert(rule: Rule): Promise<void> {
    const { ruleUuid, capability, jurisdiction, effect, version, validFrom, validTo } = rule;
    try {
      await this.db.query(INSERT, [ruleUuid, capability, jurisdiction, effect, version, validFrom, validTo]);
    } catch (error) {
      if (isUniqueViolation(error, ONE_OPEN_RULE) || isUniqueViolation(error, RULE_VERSION_KEY)) throw new ConcurrentVersionWrite();
      throw error;
    }
  }

  async find(ruleUuid: string): Promise<Rule | null> {
    const [row] = await this.db.query(FIND, [ruleUuid]);
    return row ? fromRow(row) : null;
  }

  async list(includeClosed: boolean, page?: Page): Promise<{ rules: Rule[]; total: number }> {
    const rows = await this.db.query(includeClosed ? LIST_ALL : LIST_OPEN, [page?.limit ?? null, page?.offset ?? 0]);
    return { rules: rows.filter(found<RuleRow>("rule_uuid")).map(fromRow), total: Number(rows[0]?.total ?? 0) };
  }
}
