/** A person the route and document tests act as (not loaded by the gateway itself). */
import { PERMISSIONS } from "@payin/permissions";
import type { HumanPrincipal } from "./authenticator.js";

/** A signed-in platform admin holding `permissions` (every one unless given), with recent MFA unless `over` says otherwise. */
export function testPerson(over: Partial<HumanPrincipal> = {}, permissions: readonly string[] = PERMISSIONS): HumanPrincipal {
  return {
    kind: "human",
    merchantUuid: null,
    permissions: new Set(permissions),
    identityUuid: "01a2008d-7400-7000-8000-00000000000b",
    roles: ["platform_admin"],
    sessionToken: "session-token",
    sessionUuid: "01a2008d-7400-7000-8000-00000000000c",
    transport: "bearer",
    privileged: true,
    mfaSatisfied: true,
    mfaAuthenticatedAt: new Date(),
    mfaRecent: true,
    actorAssertion: "pa1.test-person",
    ...over,
  };
}
