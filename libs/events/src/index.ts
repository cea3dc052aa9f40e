/**
 * The events merchants are told of: the catalogue of types (one list), the
 * resources' public views, and the data every event carries.
 */
export * from "./catalogue.js";
export * from "./views.js";
export * from "./payload.js";
