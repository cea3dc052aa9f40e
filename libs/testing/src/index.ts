export * from "./database.js";
