export * from "./database.js";
export * from "./platform.js";
export * from "./service-harness.js";
export * from "./service-server.js";
