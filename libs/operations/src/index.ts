/**
 * @payin/operations: operations that span services, and the admin JSON views
 * and audit rule, once — the API gateway, the checkout gateway and payinctl
 * call them with their own service clients and actor (docs/architecture.md).
 */
export * from "./audit.js";
export * from "./checkouts.js";
export * from "./configuration.js";
export * from "./identities.js";
export * from "./machine-credentials.js";
export * from "./merchant-access.js";
export * from "./merchant-state.js";
export * from "./merchants.js";
export * from "./ports.js";
export * from "./receiving-wallet.js";
export * from "./views.js";
