import { InitialAllocation } from "./migration-2026-11-21-initial.js";

/** Every migration of the allocation schema, oldest first. Never edit a shipped one. */
export const migrations = [{ name: "2026-11-21-initial", class: InitialAllocation }];
