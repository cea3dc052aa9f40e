/**
 * The closed value sets the OpenAPI document gives as enums, each read from the
 * code that decides it, so a value added there is in the document with no
 * edit here: assets and rails from routing (@payin/money), statuses and
 * readiness reasons from the protobuf enums (@payin/proto's name tables),
 * roles and identity statuses from @payin/permissions, error codes
 * from the public catalogue (@payin/http/errors).
 */
import { PUBLIC_ERRORS, type PublicErrorCode } from "@payin/http/errors";
import { ASSETS, RAILS } from "@payin/money";
import { IDENTITY_STATUSES, MERCHANT_ROLES, ROLES } from "@payin/permissions";
import { MERCHANT_STATUS_NAMES, PAY_IN_STATUS_NAMES, READINESS_REASON_NAMES, TRANSFER_STATE_NAMES } from "@payin/proto";

export { ASSETS, IDENTITY_STATUSES, MERCHANT_ROLES, RAILS, ROLES };


export const PAY_IN_STATUSES: readonly string[] = PAY_IN_STATUS_NAMES;
export const TRANSFER_STATES: readonly string[] = TRANSFER_STATE_NAMES;
export const MERCHANT_STATUSES: readonly string[] = MERCHANT_STATUS_NAMES;
export const READINESS_REASONS: readonly string[] = READINESS_REASON_NAMES;

/** Every `error.code` an answer can carry. */
export const ERROR_CODES = Object.keys(PUBLIC_ERRORS) as PublicErrorCode[];

