import { AddressPool } from "./migration-2026-11-21-address-pool.js";
import { ChainObservation } from "./migration-2026-11-25-chain-observation.js";
import { ChainTrust } from "./migration-2026-11-27-chain-trust.js";
import { InitialAllocation } from "./migration-2026-11-21-initial.js";
import { AuditOutbox } from "./migration-2026-11-27-audit-outbox.js";

/** Every migration of the allocation schema, oldest first. Never edit a shipped one. */
export const migrations = [
  { name: "2026-11-21-initial", class: InitialAllocation },
  { name: "2026-11-21-address-pool", class: AddressPool },
  { name: "2026-11-25-chain-observation", class: ChainObservation },
  { name: "2026-11-27-chain-trust", class: ChainTrust },
  { name: "2026-11-27-audit-outbox", class: AuditOutbox },
];
