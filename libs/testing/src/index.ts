export * from "./database.js";
export * from "./platform.js";
