import type { Permission } from "@payin/permissions";
import type { Role } from "./permissions.js";

/** A merchant's server acting through its machine credential. */
export interface MachinePrincipal {
  kind: "machine";
  merchantUuid: string;
  credentialUuid: string;
  permissions: readonly Permission[];
}

/** How a session's token travels: an HttpOnly cookie or an Authorization header. */
export type Transport = "cookie" | "bearer";

/** A person acting through a live session. */
export interface HumanPrincipal {
  kind: "human";
  identityUuid: string;
  sessionUuid: string;
  roles: readonly Role[];
  permissions: readonly Permission[];
  /** Holds an administrative permission: may act only after completing MFA. */
  privileged: boolean;
  mfaSatisfied: boolean;
  /** When MFA was completed in this session; null when it was not. */
  mfaAuthenticatedAt: Date | null;
  /** Until when that MFA is recent (RECENT_MFA_MS after it), as the operations that change trust need; null without MFA. */
  mfaRecentUntil: Date | null;
  /** Must accompany state-changing cookie requests; not a credential on its own. */
  csrfToken: string;
  transport: Transport;
}

/** Who a request acts for. */
export type Principal = MachinePrincipal | HumanPrincipal;
