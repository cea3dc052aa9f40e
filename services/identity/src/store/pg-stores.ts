import { AuditOutboxRepository, type Database, type Queryable } from "@payin/db";
import type { Stores } from "../domain/stores.js";
import { IdentityRepository } from "./identity-repository.js";
import { LoginAttemptRepository } from "./login-attempt-repository.js";
import { MachineCredentialRepository } from "./machine-credential-repository.js";
import { SessionRepository } from "./session-repository.js";

/** The repositories on one Queryable: the pool (a statement each) or one transaction's connection. */
function storesOn(db: Queryable, transaction: Stores["transaction"]): Stores {
  return {
    identities: new IdentityRepository(db),
    sessions: new SessionRepository(db),
    attempts: new LoginAttemptRepository(db),
    machineCredentials: new MachineCredentialRepository(db),
    outbox: new AuditOutboxRepository(db),
    transaction,
  };
}

/**
 * Every store on the identity schema's Database. `transaction` runs work on
 * stores bound to one transaction of it; inside one, `transaction` joins it
 * (nothing nests transactions).
 */
export function pgStores(db: Database): Stores {
  const transaction: Stores["transaction"] = (work) =>
    db.transaction((tx) => {
      const inside: Stores = storesOn(tx, (nested) => nested(inside));
      return work(inside);
    });
  return storesOn(db, transaction);
}
