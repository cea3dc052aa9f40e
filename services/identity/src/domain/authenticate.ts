import { authenticateMachineToken, type MachineCredentialStore } from "./machine-credential.js";
import { hasMachinePrefix } from "./machine-token.js";
import type { Principal } from "./principal.js";
import { humanPrincipal, resolveSession } from "./session.js";
import type { SessionStore } from "./stores.js";

/** Storage every kind of authentication needs. */
export interface AuthenticationStores {
  machineCredentials: MachineCredentialStore;
  sessions: SessionStore;
}

/**
 * Turns a bearer token into a principal. A token with the machine prefix is only
 * ever checked as a machine token (docs/api.md, "Authentication"); any other token is
 * looked up as a human session. Every failure is the same AUTH_INVALID_TOKEN.
 */
export async function authenticate(
  stores: AuthenticationStores,
  token: string,
  options: { now: Date; onBackgroundError: (error: unknown, credentialUuid: string) => void },
): Promise<Principal> {
  if (hasMachinePrefix(token)) return authenticateMachineToken(stores.machineCredentials, token, options);
  return humanPrincipal(await resolveSession(stores.sessions, token, options.now));
}
