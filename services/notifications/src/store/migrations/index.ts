import { EventPositions } from "./migration-2026-11-27-event-positions.js";
import { InitialNotifications } from "./migration-2026-11-27-initial.js";

/** Every migration of the notifications schema, oldest first. Never edit a shipped one. */
export const migrations = [
  { name: "2026-11-27-initial", class: InitialNotifications },
  { name: "2026-11-27-event-positions", class: EventPositions },
];
