import { InitialPayins } from "./migration-2026-11-21-initial.js";
import { StatementCounts } from "./migration-2026-11-21-statement-counts.js";
import { ReleasedKeys } from "./migration-2026-11-22-released-keys.js";
import { Transfers } from "./migration-2026-11-25-transfers.js";
import { CheckoutSessions } from "./migration-2026-11-25-checkout-sessions.js";
import { AfterPaidTransfers } from "./migration-2026-11-27-after-paid-transfers.js";
import { VanishedTransfers } from "./migration-2026-11-27-vanished-transfers.js";
import { EventOutbox } from "./migration-2026-11-27-event-outbox.js";
import { EventOutboxRefused } from "./migration-2026-11-27-event-outbox-refused.js";

/** Every migration of the payins schema, oldest first. Never edit a shipped one. */
export const migrations = [
  { name: "2026-11-21-initial", class: InitialPayins },
  { name: "2026-11-21-statement-counts", class: StatementCounts },
  { name: "2026-11-22-released-keys", class: ReleasedKeys },
  { name: "2026-11-25-transfers", class: Transfers },
  { name: "2026-11-25-checkout-sessions", class: CheckoutSessions },
  { name: "2026-11-27-after-paid-transfers", class: AfterPaidTransfers },
  { name: "2026-11-27-vanished-transfers", class: VanishedTransfers },
  { name: "2026-11-27-event-outbox", class: EventOutbox },
  { name: "2026-11-27-event-outbox-refused", class: EventOutboxRefused },
];
