export { freePort } from "@payin/db-embedded";
export * from "./database.js";
export * from "./platform.js";
export * from "./service-harness.js";
export * from "./service-server.js";
export * from "./totp.js";
export * from "./public-codes.js";
export * from "./wait-for.js";
export * from "./operator.js";
