import type { Permission } from "./permissions.js";

/** A merchant's server acting through its machine credential. */
export interface MachinePrincipal {
  kind: "machine";
  merchantUuid: string;
  credentialUuid: string;
  permissions: readonly Permission[];
}

/** Who a request acts for. Human principals join this union with sessions. */
export type Principal = MachinePrincipal;
