import { AuditOutboxRepository, type Database, type Queryable } from "@payin/db";
import type { NotificationsStores, UnitOfWork } from "../domain/model.js";
import { DeliveryRepository } from "./delivery-repository.js";
import { EndpointRepository } from "./endpoint-repository.js";
import { EventRepository } from "./event-repository.js";
import { GraphileJobQueue } from "./job-queue.js";

/** Every store on one Queryable: a transaction's connection, or the pool (a statement each). */
function storesOn(db: Queryable): NotificationsStores {
  return {
    events: new EventRepository(db),
    endpoints: new EndpointRepository(db),
    deliveries: new DeliveryRepository(db),
    jobs: new GraphileJobQueue(db),
    audit: new AuditOutboxRepository(db),
  };
}

/** The UnitOfWork over the notifications schema's Database: its transactions are the Database's. */
export function unitOfWork(db: Database): UnitOfWork {
  const pooled = storesOn(db);
  return {
    transaction: (work) => db.transaction((tx) => work(storesOn(tx))),
    read: () => pooled,
  };
}
