import type { Logger } from "@payin/logging";
import type { SecurityEvent } from "../domain/security-events.js";

const MESSAGES: Record<SecurityEvent["event"], string> = {
  "auth.login.succeeded": "sign-in succeeded",
  "auth.login.failed": "sign-in failed",
  "auth.mfa.succeeded": "second factor succeeded",
  "auth.mfa.failed": "second factor failed",
  "auth.reauth.failed": "current password check failed",
  "auth.throttled": "sign-in attempt throttled",
};

/**
 * Writes sign-in security events as structured log lines, with snake_case
 * fields an operator can query (`event`, `identity_uuid`, `client_ip`, …); the
 * logger's mixin adds the request id. Throttling is a warning: it means
 * someone is guessing.
 */
export function securityEventLog(logger: Logger): (event: SecurityEvent) => void {
  return (e) => {
    const fields: Record<string, unknown> = { event: e.event, identity_uuid: e.identityUuid, client_ip: e.clientIp };
    switch (e.event) {
      case "auth.login.succeeded":
        fields.mfa_required = e.mfaRequired;
        break;
      case "auth.login.failed":
        fields.reason = e.reason;
        break;
      case "auth.reauth.failed":
        fields.purpose = e.purpose;
        break;
      case "auth.throttled":
        Object.assign(fields, { step: e.step, limit: e.limit, retry_after_seconds: e.retryAfterSeconds });
        break;
      default:
        break;
    }
    if (e.event === "auth.throttled") logger.warn(fields, MESSAGES[e.event]);
    else logger.info(fields, MESSAGES[e.event]);
  };
}
