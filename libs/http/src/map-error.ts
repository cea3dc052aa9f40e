/**
 * The public answer to any failure: pure (no Koa), so what is not a gateway —
 * payinctl, through @payin/operations' audit rule — decides a refusal as the
 * gateways answer it (`@payin/http/map-error`).
 */
import { ConnectError, Code, httpStatusForCode, reasonOf, retryAfterOf } from "@payin/rpc";
import { ApiError, httpLayerCode, publicCodeFor, type PublicErrorCode } from "./errors.js";

/** The public answer to a failure. */
export interface MappedError {
  status: number;
  code: PublicErrorCode;
  message: string;
  headers?: Record<string, string>;
}

/**
 * Maps any thrown value to the public answer. Nothing internal leaks: a
 * service's reason reaches the client only when it is a code of the catalogue
 * (publicCodeFor), and anything unexpected is a 500 with a generic message.
 */
export function mapError(error: unknown): MappedError {
  if (error instanceof ApiError) return { status: error.status, code: error.code, message: error.message, headers: error.headers };
  if (error instanceof ConnectError) {
    // A bare Aborted is a call cut off in transit ("socket hang up", ECONNRESET:
    // the service went away mid-call); domain Aborted answers carry a reason.
    const cutOff = error.code === Code.Aborted && !reasonOf(error);
    if (error.code === Code.Unavailable || error.code === Code.DeadlineExceeded || cutOff) {
      return {
        status: 503,
        code: "SERVICE_UNAVAILABLE",
        message: "the service is temporarily unavailable; retry with backoff",
        headers: { "retry-after": "1" },
      };
    }
    const reason = reasonOf(error);
    const status = httpStatusForCode(error.code);
    // Only a reasoned 4xx is a domain answer; a bare one (e.g. a refused service
    // credential) is a fault of ours and is masked like any other.
    if (reason && reason !== "INTERNAL" && status < 500) {
      const code = publicCodeFor(reason, status);
      // A refusal that lifts by itself says when: the service's time, else a second.
      if (status === 429) return { status, code, message: error.rawMessage, headers: { "retry-after": String(retryAfterOf(error) ?? 1) } };
      return { status, code, message: error.rawMessage };
    }
  }
  const httpError = error as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof httpError?.status === "number" && httpError.status >= 400 && httpError.status < 500 && httpError.expose) {
    return { status: httpError.status, code: httpLayerCode(httpError.status), message: String(httpError.message) };
  }
  return { status: 500, code: "INTERNAL_ERROR", message: "an unexpected error occurred" };
}
