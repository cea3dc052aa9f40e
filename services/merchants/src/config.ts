import { actorAssertionVerifyingKey, port, serviceBase } from "@payin/config";

export const configSchema = {
  ...serviceBase,
  MERCHANTS_PORT: port(50052),
  /** Identity's public key for actor assertions (base64url, 32 bytes): every change's actor is verified with it. */
  ACTOR_ASSERTION_PUBLIC_KEY: actorAssertionVerifyingKey(),
};
