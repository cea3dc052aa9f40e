import type { Database, Queryable } from "@payin/db";
import type { PayinContextReader } from "../domain/payin-context.js";
import type { MerchantsStores, UnitOfWork } from "../domain/unit-of-work.js";
import { AuditRepository } from "./audit-repository.js";
import { MembershipRepository } from "./membership-repository.js";
import { MerchantRepository } from "./merchant-repository.js";
import { OperatingProfileRepository } from "./operating-profile-repository.js";
import { PayinContextRepository } from "./payin-context-repository.js";
import { PolicyRepository } from "./policy-repository.js";
import { ProviderBindingRepository, ProviderConnectionRepository, ProviderRepository } from "./provider-repository.js";
import { RuleRepository } from "./rule-repository.js";

/** Every repository on one Queryable: a transaction's connection, or the pool (a statement each). */
function storesOn(db: Queryable): MerchantsStores {
  return {
    merchants: new MerchantRepository(db),
    memberships: new MembershipRepository(db),
    rules: new RuleRepository(db),
    profiles: new OperatingProfileRepository(db),
    policies: new PolicyRepository(db),
    providers: new ProviderRepository(db),
    bindings: new ProviderBindingRepository(db),
    connections: new ProviderConnectionRepository(db),
    audit: new AuditRepository(db),
  };
}

/** The UnitOfWork over the merchants schema's Database: its transactions are the Database's. */
export function unitOfWork(db: Database): UnitOfWork {
  const pooled = storesOn(db);
  // Prepared on the pool: on every pay-in create.
  const payinContexts: PayinContextReader = new PayinContextRepository(db);
  return {
    transaction: (work) => db.transaction((tx) => work(storesOn(tx))),
    read: () => pooled,
    payinContexts,
  };
}
