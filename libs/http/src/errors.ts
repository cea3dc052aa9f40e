/**
 * The public error codes: the one closed list of what `error.code` can be in an
 * answer of a gateway, each with the one HTTP status it is answered with. A code
 * is never written apart from its status (ApiError takes the code only), and a
 * service reason outside this list never reaches a client (publicCodeFor).
 *
 * Pure: no Koa, no transport; services may import it (`@payin/http/errors`).
 */
export const PUBLIC_ERRORS = {
  // 400
  VALIDATION_ERROR: 400,
  MALFORMED_JSON: 400,
  AUTH_AMBIGUOUS: 400,
  IDEMPOTENCY_KEY_INVALID: 400,
  IDEMPOTENCY_KEY_REUSED: 400,
  /** The HTTP layer's refusal without a code of its own; see httpLayerCode for its other statuses. */
  BAD_REQUEST: 400,
  WALLET_XPUB_INVALID: 400,
  TOTP_CODE_INVALID: 400,
  /** An event handed to the notifications service is malformed (a fault of the sender; never a merchant's). */
  EVENT_INVALID: 400,
  WEBHOOK_URL_INVALID: 400,
  WEBHOOK_EVENT_TYPES_INVALID: 400,
  // 401: the contract's one code; the message tells the cases apart.
  AUTH_INVALID_CREDENTIALS: 401,
  // 403
  FORBIDDEN: 403,
  MFA_REQUIRED: 403,
  MFA_RECENT_REQUIRED: 403,
  CSRF_TOKEN_INVALID: 403,
  PAYIN_NOT_ALLOWED: 403,
  // 404
  NOT_FOUND: 404,
  PAY_IN_INTENT_NOT_FOUND: 404,
  MERCHANT_NOT_FOUND: 404,
  IDENTITY_NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  CREDENTIAL_NOT_FOUND: 404,
  WALLET_NOT_FOUND: 404,
  PROVIDER_NOT_FOUND: 404,
  CONNECTION_NOT_FOUND: 404,
  MEMBER_NOT_FOUND: 404,
  RULE_NOT_FOUND: 404,
  POLICY_NOT_FOUND: 404,
  BINDING_NOT_FOUND: 404,
  EVENT_NOT_FOUND: 404,
  WEBHOOK_ENDPOINT_NOT_FOUND: 404,
  // 405
  METHOD_NOT_ALLOWED: 405,
  // 409
  CONFLICT: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  MERCHANT_NOT_ACTIVE: 409,
  OPERATING_PROFILE_MISSING: 409,
  WALLET_NOT_READY: 409,
  /** Pay-in create: the (merchant, pair) fails a readiness reason no code above covers; the message names the reasons. */
  PAYIN_NOT_READY: 409,
  WALLET_XPUB_IN_USE: 409,
  MERCHANT_CLOSED: 409,
  MERCHANT_TRANSITION_NOT_ALLOWED: 409,
  RULE_UNCHANGED: 409,
  POLICY_UNCHANGED: 409,
  PROVIDER_NAME_TAKEN: 409,
  CONNECTION_EXISTS: 409,
  SECRET_REFERENCE_UNCHANGED: 409,
  CONCURRENT_CHANGE: 409,
  CREDENTIAL_ALREADY_ACTIVE: 409,
  CREDENTIAL_ALREADY_REVOKED: 409,
  NO_ACTIVE_CREDENTIAL: 409,
  IDENTITY_EMAIL_TAKEN: 409,
  IDENTITY_ALREADY_DISABLED: 409,
  IDENTITY_ALREADY_LOCKED: 409,
  IDENTITY_ALREADY_ACTIVE: 409,
  ROLE_NOT_HELD: 409,
  LAST_PLATFORM_ADMIN: 409,
  ADMIN_EXISTS: 409,
  TOTP_ALREADY_ENROLLED: 409,
  TOTP_NOT_PENDING: 409,
  WEBHOOK_ENDPOINT_LIMIT: 409,
  WEBHOOK_ENDPOINT_DISABLED: 409,
  // Other 4xx
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  // 5xx
  INTERNAL_ERROR: 500,
  NOT_IMPLEMENTED: 501,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type PublicErrorCode = keyof typeof PUBLIC_ERRORS;

/** True for a code of the catalogue. */
export function isPublicErrorCode(value: string): value is PublicErrorCode {
  return Object.hasOwn(PUBLIC_ERRORS, value);
}

/** The code an answer with `status` gets when nothing more specific is known. */
const GENERIC_CODES: Readonly<Record<number, PublicErrorCode>> = {
  400: "VALIDATION_ERROR",
  401: "AUTH_INVALID_CREDENTIALS",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  429: "RATE_LIMITED",
  503: "SERVICE_UNAVAILABLE",
};

/**
 * The public code of a service's reasoned 4xx answer. A reason of the catalogue
 * with the status the service answered is passed on; services call a generic bad
 * field INVALID_ARGUMENT (public: VALIDATION_ERROR), and every 401 is the
 * contract's AUTH_INVALID_CREDENTIALS. Any other reason — new, misspelt, or
 * answered with a status the catalogue does not give it — is the generic code of
 * the status (VALIDATION_ERROR for a 4xx without one), never the reason itself.
 */
export function publicCodeFor(reason: string, status: number): PublicErrorCode {
  if (status === 401) return "AUTH_INVALID_CREDENTIALS";
  if (reason === "INVALID_ARGUMENT" && status === 400) return "VALIDATION_ERROR";
  if (isPublicErrorCode(reason) && PUBLIC_ERRORS[reason] === status) return reason;
  return GENERIC_CODES[status] ?? (status >= 500 ? "INTERNAL_ERROR" : "BAD_REQUEST");
}

/**
 * The code of a refusal of the HTTP layer itself (the Node parser's 400, 408 and
 * 431, an http-errors 4xx): the status stays the layer's, the code is the generic
 * one of the status, else BAD_REQUEST. The one place a code goes with a status
 * other than its own, as the contract documents (408 / 431 BAD_REQUEST).
 */
export function httpLayerCode(status: number): PublicErrorCode {
  return GENERIC_CODES[status] ?? "BAD_REQUEST";
}

/** An error a gateway answers as-is: a public code (its status from the catalogue) and a safe message. */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: PublicErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.status = PUBLIC_ERRORS[code];
  }
}

/** 400 VALIDATION_ERROR: a body field, query parameter or header value is wrong. */
export const validationError = (message: string) => new ApiError("VALIDATION_ERROR", message);
export const forbidden = (message = "the credential may not perform this operation") => new ApiError("FORBIDDEN", message);
