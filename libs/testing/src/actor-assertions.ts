/**
 * Actor assertions for tests: what identity would sign, made with a key the
 * test holds (a fresh one, or the one a platform derives from its master
 * secret), so a service under test can be given a person to act for.
 */
import { randomBytes, type KeyObject } from "node:crypto";
import { assertionPublicKeyOf, assertionSigningKey, assertionVerifyingKey, deriveAssertionSeed } from "@payin/config";
import { ASSERTION_TTL_MS, signActorAssertion, type ActorClaims } from "@payin/rpc";

export interface TestAssertions {
  /** The key a service under test verifies with. */
  verifyingKey: KeyObject;
  /** Signs claims as identity would. */
  sign(claims: ActorClaims): string;
  /** An assertion for the person `uuid` (with `permissions`; MFA recent unless told otherwise), good for five minutes. */
  identity(uuid: string, options?: { permissions?: readonly string[]; mfaRecent?: boolean }): string;
}

/** Test assertions from a seed: random, or the platform's (`fromMaster`). */
export function testAssertions(seed: Buffer = randomBytes(32)): TestAssertions {
  const signingKey = assertionSigningKey(seed);
  const sign = (claims: ActorClaims) => signActorAssertion(signingKey, claims);
  return {
    verifyingKey: assertionVerifyingKey(assertionPublicKeyOf(seed)),
    sign,
    identity: (uuid, options = {}) =>
      sign({
        kind: "identity",
        uuid,
        permissions: options.permissions ?? [],
        mfaRecentUntil: options.mfaRecent === false ? null : Date.now() + ASSERTION_TTL_MS,
        expiresAt: Date.now() + ASSERTION_TTL_MS,
      }),
  };
}

/** The assertions a platform launched with `master` (SERVICE_TOKEN) accepts. */
export function platformAssertions(master: string): TestAssertions {
  return testAssertions(deriveAssertionSeed(master));
}
