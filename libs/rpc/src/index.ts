export * from "./auth.js";
export * from "./client.js";
export * from "./context.js";
export * from "./errors.js";
export * from "./health.js";
export * from "./server.js";
export * from "./timestamps.js";
export * from "./run.js";
