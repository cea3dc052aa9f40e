export * from "./errors.js";
export * from "./orm.js";
export { EntitySchema } from "@mikro-orm/postgresql";
export { Migration } from "@mikro-orm/migrations";
export * from "./database.js";
export * from "./audit-outbox.js";
export * from "./notifications.js";
export * from "./url.js";
