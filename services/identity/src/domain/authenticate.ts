import { authenticateMachineToken, invalidToken, type MachineCredentialStore } from "./machine-credential.js";
import { hasMachinePrefix } from "./machine-token.js";
import type { Principal } from "./principal.js";

/** Storage every kind of authentication needs; session storage joins it later. */
export interface AuthenticationStores {
  machineCredentials: MachineCredentialStore;
}

/**
 * Turns a bearer token into a principal. A token with the machine prefix is only
 * ever checked as a machine token (spec "Authentication" 4). Human session tokens
 * are not issued yet, so every other token fails, with the same AUTH_INVALID_TOKEN.
 */
export async function authenticate(
  stores: AuthenticationStores,
  token: string,
  options: { now: Date; onBackgroundError: (error: unknown, credentialUuid: string) => void },
): Promise<Principal> {
  if (hasMachinePrefix(token)) return authenticateMachineToken(stores.machineCredentials, token, options);
  throw invalidToken();
}
