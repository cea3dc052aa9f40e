import { MachineCredentials } from "./migration-2026-11-21-machine-credentials.js";
import { HumanIdentities } from "./migration-2026-11-22-human-identities.js";

/** Every migration of the identity schema, oldest first. Never edit a shipped one. */
export const migrations = [
  { name: "2026-11-21-machine-credentials", class: MachineCredentials },
  { name: "2026-11-22-human-identities", class: HumanIdentities },
];
