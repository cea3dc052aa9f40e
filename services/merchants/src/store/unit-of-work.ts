import type { EntityManager, MikroORM } from "@payin/db";
import type { MerchantsStores, UnitOfWork } from "../domain/unit-of-work.js";
import { AuditRepository } from "./audit-repository.js";
import { MembershipRepository } from "./membership-repository.js";
import { MerchantRepository } from "./merchant-repository.js";
import { OperatingProfileRepository } from "./operating-profile-repository.js";
import { PolicyRepository } from "./policy-repository.js";
import { ProviderBindingRepository, ProviderConnectionRepository, ProviderRepository } from "./provider-repository.js";
import { RuleRepository } from "./rule-repository.js";

/** Every repository bound to one EntityManager (and so to its transaction, if any). */
export function storesOn(em: EntityManager): MerchantsStores {
  const merchants = new MerchantRepository(em);
  return {
    merchants,
    payinContexts: merchants,
    memberships: new MembershipRepository(em),
    rules: new RuleRepository(em),
    profiles: new OperatingProfileRepository(em),
    policies: new PolicyRepository(em),
    providers: new ProviderRepository(em),
    bindings: new ProviderBindingRepository(em),
    connections: new ProviderConnectionRepository(em),
    audit: new AuditRepository(em),
  };
}

/** UnitOfWork on PostgreSQL: each transaction runs on its own forked EntityManager. */
export class PgUnitOfWork implements UnitOfWork {
  constructor(private readonly orm: MikroORM) {}

  transaction<T>(work: (stores: MerchantsStores) => Promise<T>): Promise<T> {
    return this.orm.em.fork().transactional((em) => work(storesOn(em)));
  }

  read(): MerchantsStores {
    return storesOn(this.orm.em.fork());
  }
}
