import { isUniqueViolation, type EntityManager } from "@payin/db";
import type { Rule, RuleStore } from "../domain/rule.js";
import type { Effect, Page } from "../domain/validation.js";
import { ConcurrentVersionWrite } from "../domain/versioning.js";
import { date, dateOrNull, lockKey, type Row } from "./rows.js";

/** The partial unique index that keeps one open version per (capability, jurisdiction). */
export const ONE_OPEN_RULE = "rules_one_open_idx";
/** The unique key that keeps version numbers from repeating. */
export const RULE_VERSION_KEY = "rules_version_key";

const COLUMNS = `rule_uuid, capability, jurisdiction, effect, version, valid_from, valid_to`;

function fromRow(row: Row): Rule {
  return {
    ruleUuid: row.rule_uuid as string,
    capability: row.capability as string,
    jurisdiction: row.jurisdiction as string,
    effect: row.effect as Effect,
    version: Number(row.version),
    validFrom: date(row.valid_from),
    validTo: dateOrNull(row.valid_to),
  };
}

/** RuleStore on PostgreSQL. */
export class RuleRepository implements RuleStore {
  constructor(private readonly em: EntityManager) {}

  async lockOpen(capability: string, jurisdiction: string): Promise<Rule | null> {
    // The advisory lock serialises writers of the pair even when no version
    // exists yet (there is no row to lock then); the row lock guards against
    // anything that bypasses it. Two statements: the select must take its
    // snapshot after the lock is held.
    await this.em.execute(`select pg_advisory_xact_lock(hashtextextended(?, 0))`, [lockKey("rule", capability, jurisdiction)]);
    const rows = await this.em.execute(
      `select ${COLUMNS} from rules where capability = ? and jurisdiction = ? and valid_to is null for update`,
      [capability, jurisdiction],
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async close(ruleUuid: string, at: Date): Promise<void> {
    await this.em.execute(`update rules set valid_to = ? where rule_uuid = ? and valid_to is null`, [at, ruleUuid]);
  }

  async insert(rule: Rule): Promise<void> {
    const { ruleUuid, capability, jurisdiction, effect, version, validFrom, validTo } = rule;
    try {
      await this.em.execute(`insert into rules (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?)`, [
        ruleUuid,
        capability,
        jurisdiction,
        effect,
        version,
        validFrom,
        validTo,
      ]);
    } catch (error) {
      if (isUniqueViolation(error, ONE_OPEN_RULE) || isUniqueViolation(error, RULE_VERSION_KEY)) throw new ConcurrentVersionWrite();
      throw error;
    }
  }

  async find(ruleUuid: string): Promise<Rule | null> {
    const rows = await this.em.execute(`select ${COLUMNS} from rules where rule_uuid = ?`, [ruleUuid]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async list(includeClosed: boolean, page?: Page): Promise<{ rules: Rule[]; total: number }> {
    const condition = includeClosed ? "" : "where valid_to is null";
    // Page and exact total in one round trip; rules are few (a capability per jurisdiction, and their versions).
    const rows = await this.em.execute(
      `select (select count(*) from rules ${condition}) as total, page.*
         from (select 1) one
         left join lateral (
           select ${COLUMNS} from rules ${condition}
            order by capability, jurisdiction, version limit ? offset ?
         ) page on true`,
      [page?.limit ?? null, page?.offset ?? 0],
    );
    return { rules: rows.filter((row: Row) => row.rule_uuid !== null).map(fromRow), total: Number(rows[0]?.total ?? 0) };
  }
}
