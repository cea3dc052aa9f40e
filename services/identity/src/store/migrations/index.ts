import { MachineCredentials } from "./migration-2026-11-21-machine-credentials.js";
import { HumanIdentities } from "./migration-2026-11-22-human-identities.js";
import { SignInThrottling } from "./migration-2026-11-23-sign-in-throttling.js";
import { RecoveryCodeSalts } from "./migration-2026-11-24-recovery-code-salts.js";
import { AuditOutbox } from "./migration-2026-11-27-audit-outbox.js";

/** Every migration of the identity schema, oldest first. Never edit a shipped one. */
export const migrations = [
  { name: "2026-11-21-machine-credentials", class: MachineCredentials },
  { name: "2026-11-22-human-identities", class: HumanIdentities },
  { name: "2026-11-23-sign-in-throttling", class: SignInThrottling },
  { name: "2026-11-24-recovery-code-salts", class: RecoveryCodeSalts },
  { name: "2026-11-27-audit-outbox", class: AuditOutbox },
];
