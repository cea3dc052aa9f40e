import { sqlClient, type EntityManager, type MikroORM } from "@payin/db";
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

/** Every repository bound to one EntityManager (and so to its transaction, if any). */
function storesOn(em: EntityManager): MerchantsStores {
  return {
    merchants: new MerchantRepository(em),
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
  /** Prepared on the pool: no EntityManager to fork on the create path. */
  readonly payinContexts: PayinContextReader;

  constructor(private readonly orm: MikroORM) {
    this.payinContexts = new PayinContextRepository(sqlClient(orm));
  }

  transaction<T>(work: (stores: MerchantsStores) => Promise<T>): Promise<T> {
    return this.orm.em.fork().transactional((em) => work(storesOn(em)));
  }

  read(): MerchantsStores {
    return storesOn(this.orm.em.fork());
  }
}
