/**
 * Every capability the platform knows: what a rule allows or denies in a
 * jurisdiction and what a provider is bound to serve for a merchant
 * (docs/platform-api.md, "Rules, policies, profiles, providers"). A closed list:
 * the merchants service refuses a rule or binding naming any other, and the
 * gateways check it before calling, from this one list.
 */
export const CAPABILITIES = ["crypto.payin"] as const;

export type Capability = (typeof CAPABILITIES)[number];

/** The capability a pay-in needs: a rule allowing it for the jurisdiction, a provider bound for it. */
export const PAYIN_CAPABILITY: Capability = "crypto.payin";

/** True for a capability this platform knows (exact, case-sensitive). */
export function isCapability(value: string): value is Capability {
  return (CAPABILITIES as readonly string[]).includes(value);
}

/** What a refusal of an unknown capability says: the known ones. */
export const UNKNOWN_CAPABILITY_MESSAGE = `capability must be one of the known capabilities: ${CAPABILITIES.join(", ")}`;
