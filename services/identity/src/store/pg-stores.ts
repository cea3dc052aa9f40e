import type { EntityManager } from "@payin/db";
import type { Stores } from "../domain/stores.js";
import { IdentityRepository } from "./identity-repository.js";
import { LoginAttemptRepository } from "./login-attempt-repository.js";
import { MachineCredentialRepository } from "./machine-credential-repository.js";
import { SessionRepository } from "./session-repository.js";

/**
 * Every store on one EntityManager (a fork per request). `transaction` runs work
 * on stores bound to a new transaction of that EntityManager.
 */
export function pgStores(em: EntityManager): Stores {
  return {
    identities: new IdentityRepository(em),
    sessions: new SessionRepository(em),
    attempts: new LoginAttemptRepository(em),
    machineCredentials: new MachineCredentialRepository(em),
    transaction: (work) => em.transactional((tx) => work(pgStores(tx))),
  };
}
