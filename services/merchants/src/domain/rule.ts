import { DomainError } from "@payin/errors";
import { isUuid } from "@payin/ids";
import { optionalActor, type ActorInput } from "./audit.js";
import { MerchantsReason } from "./reasons.js";
import { recordChange, type Deps } from "./unit-of-work.js";
import { checkCapability, checkEffect, checkJurisdiction, optionalPage, type Page } from "./validation.js";
import { nextVersion, withVersionRetry, type Versioned } from "./versioning.js";

/** One version of a platform rule: whether a capability is allowed in a jurisdiction. */
export interface Rule extends Versioned {
  ruleUuid: string;
  capability: string;
  jurisdiction: string;
}

/** Storage of rule versions. */
export interface RuleStore {
  /**
   * Serialises writers of (capability, jurisdiction) until the transaction ends
   * and returns the open version, if any.
   */
  lockOpen(capability: string, jurisdiction: string): Promise<Rule | null>;
  close(ruleUuid: string, at: Date): Promise<void>;
  /** Throws ConcurrentVersionWrite when a unique index refuses the version. */
  insert(rule: Rule): Promise<void>;
  /**
   * Open versions (and closed ones when asked), by capability, jurisdiction and
   * version: one page when `page` is given, else all; and how many there are.
   */
  list(includeClosed: boolean, page?: Page): Promise<{ rules: Rule[]; total: number }>;
  find(ruleUuid: string): Promise<Rule | null>;
}

/**
 * Closes the open version of the rule for (capability, jurisdiction) and opens
 * the next one with `effect`, in one transaction, auditing it as `rule.create`.
 * RULE_UNCHANGED when the open version already has that effect.
 */
export async function createRule(
  deps: Deps,
  input: { capability: string; jurisdiction: string; effect: string; actor?: ActorInput },
): Promise<Rule> {
  const capability = checkCapability(input.capability);
  const jurisdiction = checkJurisdiction(input.jurisdiction);
  const effect = checkEffect(input.effect);
  const actor = optionalActor(input.actor);
  return withVersionRetry(() =>
    deps.uow.transaction(async (stores) => {
      const open = await stores.rules.lockOpen(capability, jurisdiction);
      const next = nextVersion(
        open,
        effect,
        deps.now(),
        () => new DomainError(MerchantsReason.RuleUnchanged, `the open rule for ${capability} in ${jurisdiction} is already ${effect}`),
      );
      if (open) await stores.rules.close(open.ruleUuid, next.validFrom);
      const rule: Rule = { ruleUuid: deps.newUuid(), capability, jurisdiction, effect, ...next, validTo: null };
      await stores.rules.insert(rule);
      await recordChange(stores, deps, actor, { action: "rule.create", targetType: "rule", targetUuid: rule.ruleUuid });
      return rule;
    }),
  );
}

/** Open rule versions, and closed ones too when asked; one page of them when a limit is given. */
export async function listRules(
  store: RuleStore,
  input: { includeClosed: boolean; limit?: number; offset: number },
): Promise<{ rules: Rule[]; total: number }> {
  return store.list(input.includeClosed, optionalPage(input.limit, input.offset));
}

/** One rule version, open or closed. RULE_NOT_FOUND for an unknown or malformed uuid. */
export async function getRule(store: RuleStore, ruleUuid: string): Promise<Rule> {
  const rule = isUuid(ruleUuid) ? await store.find(ruleUuid) : null;
  if (!rule) throw new DomainError(MerchantsReason.RuleNotFound, "rule not found");
  return rule;
}
