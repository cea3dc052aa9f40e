/**
 * The OpenAPI 3.1 description of the gateway. Routes are declared once here
 * with their schemas; a test checks that the gateway serves exactly these.
 */

import { READINESS_REASON_CODES } from "../routes/admin/readiness-reasons.js";

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str = (extra: Schema = {}): Schema => ({ type: "string", ...extra });
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: "null" }] });
const uuid = str({ format: "uuid" });
const dateTime = str({ format: "date-time" });
const int = (extra: Schema = {}): Schema => ({ type: "integer", ...extra });
const jurisdiction = str({ pattern: "^[A-Z]{2}$", description: "ISO 3166-1 alpha-2, upper case" });

/** An object whose listed properties are all present and nothing else is allowed. */
function object(properties: Record<string, Schema>, optional: string[] = []): Schema {
  return {
    type: "object",
    additionalProperties: false,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    properties,
  };
}

const envelope = (item: string): Schema =>
  object({ data: { type: "array", items: ref(item) }, pagination: ref("Pagination") });

const schemas: Record<string, Schema> = {
  Error: object({
    error: object({ code: str({ description: "machine reason, e.g. VALIDATION_ERROR" }), message: str(), request_id: str() }),
  }),
  Pagination: object({ total: int({ minimum: 0 }), limit: int({ minimum: 1, maximum: 100 }), offset: int({ minimum: 0 }) }),
  Health: object({ status: str({ enum: ["ok"] }), request_id: str() }),
  PayInIntentCreateRequest: object(
    {
      asset: str({ enum: ["usdt", "usdc"] }),
      amount: str({ pattern: "^\\d+(\\.\\d+)?$", description: "> 0, at most 6 decimals after trimming, at most 1000000000" }),
      jurisdiction,
      expires_at: str({ format: "date-time", description: "in UTC (Z or +00:00); must lie in the future" }),
      reference: nullable(str({ maxLength: 255 })),
    },
    ["reference"],
  ),
  PayInIntentCreated: object({
    intent_uuid: uuid,
    status: str({ enum: ["created"] }),
    asset: str(),
    rail: str({ enum: ["bep20", "erc20"] }),
    expected_amount: str({ description: "canonical decimal" }),
    address: str(),
    allocation_reference: nullable(str()),
    expires_at: dateTime,
  }),
  PayInIntent: object({
    intent_uuid: uuid,
    merchant_uuid: uuid,
    status: str({ enum: ["created", "awaiting_payment", "paid"] }),
    asset: str(),
    rail: str(),
    expected_amount: str(),
    address: nullable(str()),
    reference: nullable(str()),
    created_at: dateTime,
    expires_at: dateTime,
    updated_at: dateTime,
  }),
  PayInIntentListItem: object({
    intent_uuid: uuid,
    status: str({ enum: ["created", "awaiting_payment", "paid"] }),
    asset: str(),
    rail: str(),
    expected_amount: str(),
    reference: nullable(str()),
    created_at: dateTime,
    expires_at: dateTime,
  }),
  PayInIntentList: envelope("PayInIntentListItem"),
  PayInTransfer: object({
    chain_id: int({ minimum: 1 }),
    rail: str({ enum: ["bep20", "erc20"], description: "the rail it happened on" }),
    asset: str({ enum: ["usdt", "usdc"], description: "the token sent" }),
    tx_hash: str({ pattern: "^0x[0-9a-f]{64}$" }),
    log_index: int({ minimum: 0 }),
    block_number: int({ minimum: 0 }),
    block_time: { ...dateTime, description: "timestamp of the including block; lateness is judged by it" },
    from_address: str({ pattern: "^0x[0-9a-f]{40}$" }),
    amount: str({ description: "canonical decimal in token units" }),
    state: str({
      enum: ["pending", "settled", "orphaned"],
      description: "pending: seen in a block not yet settled; settled: final; orphaned: its block was reorganised out (kept as evidence)",
    }),
    flags: object({
      late: { type: "boolean", description: "block time after expires_at: never pays" },
      wrong_network: { type: "boolean", description: "on the other rail than the intent's: never pays" },
      wrong_token: { type: "boolean", description: "another watched token than the intent's asset: never pays" },
      dust: { type: "boolean", description: "below the rail's dust threshold, or zero: never counted" },
    }),
  }),
  PayInTransferList: object({
    intent_uuid: uuid,
    asset: str(),
    rail: str(),
    expected_amount: str({ description: "canonical decimal" }),
    received_amount: str({ description: "settled transfers that count toward expected_amount, canonical decimal" }),
    pending_amount: str({ description: "seen, not yet settled, transfers that would count, canonical decimal" }),
    data: { type: "array", description: "every transfer seen for the intent, oldest block first", items: ref("PayInTransfer") },
  }),
  Identity: object({ uuid, email: str({ format: "email" }), status: str(), roles: { type: "array", items: str() } }),
  LoginRequest: object({
    email: str({ format: "email" }),
    password: str({ minLength: 12, maxLength: 128 }),
    transport: str({ enum: ["cookie", "bearer"] }),
  }),
  Authenticated: object({
    status: str({ enum: ["authenticated"] }),
    identity: ref("Identity"),
    roles: { type: "array", items: str() },
    transport: str({ enum: ["cookie", "bearer"] }),
    csrf_token: str(),
    token: str(),
    token_type: str({ enum: ["Bearer"] }),
  }),
  MfaRequired: object({ status: str({ enum: ["mfa_required"] }), mfa_challenge_token: str() }),
  /** Login's 200: a session, or (identity with TOTP) a challenge for POST /auth/mfa — no cookie, no token. */
  LoginResult: { oneOf: [ref("Authenticated"), ref("MfaRequired")] },
  MfaRequest: object({ mfa_challenge_token: str(), code: str({ description: "TOTP or recovery code" }) }),
  Session: object({
    identity: ref("Identity"),
    roles: { type: "array", items: str() },
    expires_at: dateTime,
    absolute_expires_at: dateTime,
    mfa_satisfied: { type: "boolean" },
    primary_authenticated_at: dateTime,
    csrf_token: str(),
  }),
  PasswordChange: object({ current_password: str(), new_password: str({ minLength: 12, maxLength: 128 }) }),
  Merchant: object({
    uuid,
    display_name: str({ minLength: 1, maxLength: 150 }),
    legal_name: nullable(str({ minLength: 1, maxLength: 255 })),
    status: str({ enum: ["inactive", "active", "suspended", "closed"] }),
    created_at: dateTime,
    updated_at: dateTime,
  }),
  MerchantEnvelope: object({ merchant: ref("Merchant") }),
  MerchantCreate: object(
    { display_name: str({ minLength: 1, maxLength: 150 }), legal_name: nullable(str({ minLength: 1, maxLength: 255 })) },
    ["legal_name"],
  ),
  MerchantList: envelope("Merchant"),
  MachineCredential: {
    type: "object",
    required: ["credential_uuid", "merchant_uuid", "key_id", "status", "created_at"],
    properties: {
      credential_uuid: uuid,
      merchant_uuid: uuid,
      key_id: str({ pattern: "^[0-9a-f]{32}$" }),
      status: str({ enum: ["active", "revoked"] }),
      created_at: dateTime,
      last_used_at: nullable(dateTime),
      revoked_at: nullable(dateTime),
      replaced_by_uuid: nullable(uuid),
    },
  },
  IssuedMachineCredential: object({
    credential_uuid: uuid,
    merchant_uuid: uuid,
    key_id: str({ pattern: "^[0-9a-f]{32}$" }),
    status: str({ enum: ["active"] }),
    created_at: dateTime,
    token: str({ description: "the plaintext token, returned once" }),
  }),
  IssuedMachineCredentialEnvelope: object({ credential: ref("IssuedMachineCredential") }),
  MachineCredentialEnvelope: object({ credential: ref("MachineCredential") }),
  MachineCredentialList: object({ credentials: { type: "array", items: ref("MachineCredential") } }),
  SessionListItem: object({
    session_uuid: uuid,
    expires_at: dateTime,
    absolute_expires_at: dateTime,
    mfa_satisfied: { type: "boolean" },
    primary_authenticated_at: dateTime,
    created_at: dateTime,
    current: { type: "boolean" },
    transport: str({ enum: ["cookie", "bearer"] }),
  }),
  SessionList: object({ sessions: { type: "array", items: ref("SessionListItem") } }),
  TotpEnrollment: object({ otpauth_uri: str({ description: "otpauth://totp/… shown once" }) }),
  TotpConfirm: object({ code: str() }),
  TotpEnrollmentRequest: object({ current_password: str() }),
  RecoveryCodes: object({ recovery_codes: { type: "array", items: str(), minItems: 10, maxItems: 10 } }),
  IdentityCreate: object({
    email: str({ format: "email" }),
    password: str({ minLength: 12, maxLength: 128 }),
    roles: { type: "array", items: str({ enum: ["platform_admin", "platform_operator", "merchant_admin", "merchant_member"] }) },
  }),
  IdentityEnvelope: object({ identity: ref("Identity") }),
  SignInFailuresReset: object({ identity: ref("Identity"), forgiven_failures: int({ minimum: 0 }) }),
  IdentityList: envelope("Identity"),
  MemberRequest: object({ identity_uuid: uuid }),
  MembershipEnvelope: object({ membership: object({ merchant_uuid: uuid, identity_uuid: uuid, created_at: dateTime }) }),
  RuleCreate: object({ capability: str({ description: "e.g. crypto.payin" }), jurisdiction, effect: str({ enum: ["allow", "deny"] }) }),
  Rule: object({
    rule_uuid: uuid,
    capability: str(),
    jurisdiction: str(),
    effect: str({ enum: ["allow", "deny"] }),
    version: int({ minimum: 1 }),
    valid_from: dateTime,
    valid_to: nullable(dateTime),
  }),
  RuleEnvelope: object({ rule: ref("Rule") }),
  RuleList: object({ rules: { type: "array", items: ref("Rule") } }),
  OperatingProfileRequest: object({ operating_mode: str({ enum: ["non_custodial", "platform_custody", "hybrid"] }) }),
  OperatingProfileEnvelope: object({
    operating_profile: object({ merchant_uuid: uuid, operating_mode: str(), created_at: dateTime, updated_at: dateTime }),
  }),
  PolicyCreate: object({ scope: str({ enum: ["payin", "payout", "custody", "settlement"] }), effect: str({ enum: ["allow", "deny"] }) }),
  PolicyEnvelope: object({
    policy: object({
      policy_uuid: uuid,
      merchant_uuid: uuid,
      scope: str(),
      effect: str(),
      version: int({ minimum: 1 }),
      valid_from: dateTime,
      valid_to: nullable(dateTime),
    }),
  }),
  Provider: object({ provider_uuid: uuid, name: str(), created_at: dateTime }),
  ProviderCreate: object({ name: str({ minLength: 1, maxLength: 100 }) }),
  ProviderEnvelope: object({ provider: ref("Provider") }),
  ProviderList: object({ providers: { type: "array", items: ref("Provider") } }),
  ProviderBindingRequest: object({ provider_uuid: uuid, capability: str(), jurisdiction }),
  ProviderBindingEnvelope: object({
    provider_binding: object({
      binding_uuid: uuid,
      merchant_uuid: uuid,
      provider_uuid: uuid,
      capability: str(),
      jurisdiction: str(),
      created_at: dateTime,
    }),
  }),
  ProviderConnectionRequest: object(
    { provider_uuid: uuid, secret_reference: nullable(str({ maxLength: 255, description: "scheme:path, never a secret" })) },
    ["secret_reference"],
  ),
  SecretReferenceRotation: object({ secret_reference: str({ maxLength: 255 }) }),
  ProviderConnectionEnvelope: object({
    provider_connection: object({
      connection_uuid: uuid,
      merchant_uuid: uuid,
      provider_uuid: uuid,
      secret_reference: nullable(str()),
      created_at: dateTime,
      updated_at: dateTime,
    }),
  }),
  WalletRequest: object({ xpub: str({ description: "account-level xpub of m/44'/60'/N', any hardened account N" }) }),
  WalletEnvelope: object({
    wallet: object({ merchant_uuid: uuid, xpub: str(), next_index: int({ minimum: 0 }), created_at: dateTime, updated_at: dateTime }),
  }),
  ReadinessEnvelope: object({
    readiness: object({
      merchant_uuid: uuid,
      pairs: {
        type: "array",
        description: "one entry per (asset, rail) pair the platform serves",
        items: object({
          asset: str(),
          rail: str(),
          ready: { type: "boolean" },
          reasons: {
            type: "array",
            description: "every failing reason, in this order",
            items: str({ enum: [...READINESS_REASON_CODES] }),
          },
        }),
      },
    }),
  }),
  AuditEvent: {
    type: "object",
    required: ["event_uuid", "actor", "action", "target_type", "target_uuid", "outcome", "occurred_at"],
    properties: {
      event_uuid: uuid,
      actor: object({ kind: str(), uuid: nullable(uuid) }),
      action: str(),
      target_type: str(),
      target_uuid: nullable(uuid),
      outcome: str({ enum: ["succeeded", "failed"] }),
      error_code: nullable(str()),
      request_id: nullable(str()),
      occurred_at: dateTime,
    },
  },
  AuditEventList: envelope("AuditEvent"),
};

interface Op {
  summary: string;
  /** What the operation's refusals mean, when more than the status says. */
  description?: string;
  security?: "none" | "any";
  body?: string;
  responses: Record<string, string | null>;
  query?: Schema[];
}

const param = (name: string, schema: Schema, where: "path" | "query" = "path") => ({
  name,
  in: where,
  required: where === "path",
  schema,
});

/** Every operation: "METHOD /path" (paths relative to the server root). */
const OPERATIONS: Record<string, Op> = {
  "GET /health": { summary: "Liveness (unversioned)", security: "none", responses: { 200: "Health" } },
  "GET /api/v1/openapi.json": { summary: "This document", security: "none", responses: { 200: null } },
  "POST /api/v1/merchants/{merchant_uuid}/pay-in-intents": {
    summary: "Create a pay-in intent (Idempotency-Key required)",
    description:
      "403 PAYIN_NOT_ALLOWED: no allowing crypto.payin rule for the jurisdiction, or no allowing payin policy. " +
      "409 IDEMPOTENCY_KEY_IN_USE, MERCHANT_NOT_ACTIVE, OPERATING_PROFILE_MISSING, WALLET_NOT_READY, and PAYIN_NOT_READY " +
      "when the merchant is not ready for the pair for another configuration reason of its readiness, named in the message " +
      "(e.g. provider_not_ready: no provider bound for crypto.payin with a connection to it). A lagging chain observer refuses no create.",
    body: "PayInIntentCreateRequest",
    responses: { 201: "PayInIntentCreated", 400: "Error", 401: "Error", 403: "Error", 409: "Error", 413: "Error", 415: "Error", 500: "Error" },
  },
  "GET /api/v1/merchants/{merchant_uuid}/pay-in-intents": {
    summary: "List pay-in intents, newest first",
    query: [
      param("limit", int({ minimum: 1, maximum: 100, default: 20 }), "query"),
      param("offset", int({ minimum: 0, default: 0 }), "query"),
      param("status", str({ enum: ["created", "awaiting_payment", "paid"] }), "query"),
      param("asset", str({ enum: ["usdt", "usdc"] }), "query"),
    ],
    responses: { 200: "PayInIntentList", 400: "Error", 401: "Error", 403: "Error" },
  },
  "GET /api/v1/merchants/{merchant_uuid}/pay-in-intents/{intent_uuid}": {
    summary: "Read a pay-in intent",
    responses: { 200: "PayInIntent", 401: "Error", 403: "Error", 404: "Error" },
  },
  "GET /api/v1/merchants/{merchant_uuid}/pay-in-intents/{intent_uuid}/transfers": {
    summary: "List the transfers seen for a pay-in intent (evidence)",
    description:
      "Every transfer seen to the intent's address, oldest block first, with received_amount (settled transfers that count) and " +
      "pending_amount (seen, not settled, that would count). The intent is paid only from settled transfers of its token on its rail, " +
      "none late or dust. Same access and 404 as reading the intent.",
    responses: { 200: "PayInTransferList", 401: "Error", 403: "Error", 404: "Error" },
  },
  "POST /api/v1/auth/login": {
    summary: "Sign in (cookie or bearer transport)",
    security: "none",
    body: "LoginRequest",
    responses: { 200: "LoginResult", 400: "Error", 401: "Error", 429: "Error" },
  },
  "POST /api/v1/auth/mfa": {
    summary: "Complete an MFA challenge",
    security: "none",
    body: "MfaRequest",
    responses: { 200: "Authenticated", 400: "Error", 401: "Error", 429: "Error" },
  },
  "GET /api/v1/auth/session": { summary: "Read the current session", responses: { 200: "Session", 401: "Error" } },
  "POST /api/v1/auth/logout": { summary: "End the current session", responses: { 204: null, 400: "Error", 401: "Error", 403: "Error" } },
  "POST /api/v1/auth/password": {
    summary: "Change password (revokes other sessions)",
    description:
      "403 MFA_REQUIRED or MFA_RECENT_REQUIRED: the identity holds an administrative permission and the session did not complete MFA, " +
      "or completed it more than 15 minutes ago. 403 CSRF_TOKEN_INVALID: a cookie session without its X-CSRF-Token.",
    body: "PasswordChange",
    responses: { 204: null, 400: "Error", 401: "Error", 403: "Error", 429: "Error" },
  },
  "GET /api/v1/auth/sessions": {
    summary: "List own sessions",
    description: "403 MFA_REQUIRED: the identity holds an administrative permission and the session has not completed MFA.",
    responses: { 200: "SessionList", 401: "Error", 403: "Error" },
  },
  "DELETE /api/v1/auth/sessions/{uuid}": {
    summary: "Revoke one own session",
    description: "403 MFA_REQUIRED: the identity holds an administrative permission and the session has not completed MFA. 403 CSRF_TOKEN_INVALID: a cookie session without its X-CSRF-Token.",
    responses: { 204: null, 401: "Error", 403: "Error", 404: "Error" },
  },
  "POST /api/v1/auth/mfa/totp": {
    summary: "Start TOTP enrolment (current password required)",
    description: "403 CSRF_TOKEN_INVALID: a cookie session without its X-CSRF-Token.",
    body: "TotpEnrollmentRequest",
    responses: { 200: "TotpEnrollment", 400: "Error", 401: "Error", 403: "Error", 409: "Error", 429: "Error" },
  },
  "POST /api/v1/auth/mfa/totp/confirm": {
    summary: "Confirm TOTP enrolment (recovery codes shown once; ends the other sessions)",
    description: "403 CSRF_TOKEN_INVALID: a cookie session without its X-CSRF-Token.",
    body: "TotpConfirm",
    responses: { 200: "RecoveryCodes", 400: "Error", 401: "Error", 403: "Error", 409: "Error" },
  },
  "POST /api/v1/admin/identities": {
    summary: "Create an identity (identity.create, recent MFA)",
    body: "IdentityCreate",
    responses: { 201: "IdentityEnvelope", 400: "Error", 401: "Error", 403: "Error", 409: "Error" },
  },
  "GET /api/v1/admin/identities": { summary: "List identities", responses: { 200: "IdentityList", 401: "Error", 403: "Error" } },
  "POST /api/v1/admin/identities/{uuid}/disable": { summary: "Disable an identity", responses: { 200: "IdentityEnvelope", 403: "Error", 404: "Error", 409: "Error" } },
  "POST /api/v1/admin/identities/{uuid}/lock": { summary: "Lock an identity", responses: { 200: "IdentityEnvelope", 403: "Error", 404: "Error", 409: "Error" } },
  "POST /api/v1/admin/identities/{uuid}/activate": {
    summary: "Restore a disabled or locked identity (identity.manage, recent MFA)",
    responses: { 200: "IdentityEnvelope", 403: "Error", 404: "Error", 409: "Error" },
  },
  "POST /api/v1/admin/identities/{uuid}/sign-in-failures/reset": {
    summary: "Forgive an identity's counted sign-in failures (identity.manage, recent MFA)",
    description:
      "Lifts the account's sign-in delays and cap and the limit per email and client address; the failures still count toward " +
      "their client address's own limit. Answers the identity and how many failures were forgiven (0 when none).",
    responses: { 200: "SignInFailuresReset", 401: "Error", 403: "Error", 404: "Error" },
  },
  "DELETE /api/v1/admin/identities/{uuid}/roles/{role}": {
    summary: "Remove a role",
    responses: { 200: "IdentityEnvelope", 403: "Error", 404: "Error", 409: "Error" },
  },
  "GET /api/v1/admin/merchants": {
    summary: "List merchants (merchant.read)",
    query: [
      param("status", str({ enum: ["inactive", "active", "suspended", "closed"] }), "query"),
      param("uuid", uuid, "query"),
      param("display_name", str(), "query"),
      param("limit", int({ minimum: 1, maximum: 100, default: 20 }), "query"),
      param("offset", int({ minimum: 0, default: 0 }), "query"),
    ],
    responses: { 200: "MerchantList", 400: "Error", 401: "Error", 403: "Error" },
  },
  "POST /api/v1/admin/merchants": {
    summary: "Create a merchant (always inactive)",
    body: "MerchantCreate",
    responses: { 201: "MerchantEnvelope", 400: "Error", 401: "Error", 403: "Error" },
  },
  "GET /api/v1/admin/merchants/{uuid}": { summary: "Read a merchant (closed included)", responses: { 200: "MerchantEnvelope", 404: "Error" } },
  "POST /api/v1/admin/merchants/{uuid}/activate": { summary: "Activate", responses: { 200: "MerchantEnvelope", 404: "Error", 409: "Error" } },
  "POST /api/v1/admin/merchants/{uuid}/deactivate": { summary: "Deactivate", responses: { 200: "MerchantEnvelope", 404: "Error", 409: "Error" } },
  "POST /api/v1/admin/merchants/{uuid}/suspend": { summary: "Suspend", responses: { 200: "MerchantEnvelope", 404: "Error", 409: "Error" } },
  "POST /api/v1/admin/merchants/{uuid}/close": { summary: "Close (terminal)", responses: { 200: "MerchantEnvelope", 404: "Error", 409: "Error" } },
  "PUT /api/v1/admin/merchants/{uuid}/members": {
    summary: "Attach an identity as member (idempotent)",
    body: "MemberRequest",
    responses: { 200: "MembershipEnvelope", 201: "MembershipEnvelope", 400: "Error", 404: "Error" },
  },
  "GET /api/v1/admin/merchants/{uuid}/machine-credentials": {
    summary: "List machine credentials (platform_admin with MFA)",
    responses: { 200: "MachineCredentialList", 401: "Error", 403: "Error", 404: "Error" },
  },
  "POST /api/v1/admin/merchants/{uuid}/machine-credentials": {
    summary: "Create a machine credential (token returned once)",
    responses: { 201: "IssuedMachineCredentialEnvelope", 401: "Error", 403: "Error", 404: "Error", 409: "Error" },
  },
  "POST /api/v1/admin/merchants/{uuid}/machine-credentials/rotate": {
    summary: "Rotate the active credential atomically",
    responses: { 200: "IssuedMachineCredentialEnvelope", 401: "Error", 403: "Error", 404: "Error", 409: "Error" },
  },
  "POST /api/v1/admin/merchants/{uuid}/machine-credentials/{credential_uuid}/revoke": {
    summary: "Revoke a credential",
    responses: { 200: "MachineCredentialEnvelope", 401: "Error", 403: "Error", 404: "Error", 409: "Error" },
  },
  "POST /api/v1/admin/rules": {
    summary: "Close the open rule version and create a new one",
    body: "RuleCreate",
    responses: { 201: "RuleEnvelope", 400: "Error", 403: "Error", 409: "Error" },
  },
  "GET /api/v1/admin/rules": { summary: "List rules", responses: { 200: "RuleList", 403: "Error" } },
  "PUT /api/v1/admin/merchants/{uuid}/operating-profile": {
    summary: "Ensure the operating profile",
    body: "OperatingProfileRequest",
    responses: { 200: "OperatingProfileEnvelope", 400: "Error", 404: "Error", 409: "Error" },
  },
  "POST /api/v1/admin/merchants/{uuid}/policies": {
    summary: "Close the open policy for a scope and create a new version",
    body: "PolicyCreate",
    responses: { 201: "PolicyEnvelope", 400: "Error", 404: "Error", 409: "Error" },
  },
  "PUT /api/v1/admin/merchants/{uuid}/provider-bindings": {
    summary: "Ensure a provider binding",
    body: "ProviderBindingRequest",
    responses: { 200: "ProviderBindingEnvelope", 201: "ProviderBindingEnvelope", 400: "Error", 404: "Error" },
  },
  "PUT /api/v1/admin/merchants/{uuid}/provider-connections": {
    summary: "Ensure a provider connection (secret reference only)",
    body: "ProviderConnectionRequest",
    responses: { 200: "ProviderConnectionEnvelope", 201: "ProviderConnectionEnvelope", 400: "Error", 404: "Error", 409: "Error" },
  },
  "POST /api/v1/admin/merchants/{uuid}/provider-connections/{connection_uuid}/rotate-secret": {
    summary: "Rotate a connection's secret reference",
    body: "SecretReferenceRotation",
    responses: { 200: "ProviderConnectionEnvelope", 400: "Error", 404: "Error", 409: "Error" },
  },
  "GET /api/v1/admin/providers": { summary: "List the provider registry", responses: { 200: "ProviderList", 403: "Error" } },
  "POST /api/v1/admin/providers": { summary: "Register a provider", body: "ProviderCreate", responses: { 201: "ProviderEnvelope", 400: "Error", 409: "Error" } },
  "PUT /api/v1/admin/merchants/{uuid}/wallet": {
    summary: "Set the receiving wallet (account xpub of m/44'/60'/N')",
    body: "WalletRequest",
    responses: { 200: "WalletEnvelope", 400: "Error", 404: "Error", 409: "Error" },
  },
  "GET /api/v1/admin/merchants/{uuid}/readiness": {
    summary: "Pay-in readiness of each (asset, rail) pair, with every failing reason (merchant.read)",
    responses: { 200: "ReadinessEnvelope", 401: "Error", 403: "Error", 404: "Error" },
  },
  "GET /api/v1/admin/audit-events": {
    summary: "Read the audit log (audit.read)",
    query: [param("limit", int({ minimum: 1, maximum: 100, default: 20 }), "query"), param("offset", int({ minimum: 0 }), "query")],
    responses: { 200: "AuditEventList", 401: "Error", 403: "Error" },
  },
};

/** "METHOD /path" of every documented operation. */
export function documentedOperations(): string[] {
  return Object.keys(OPERATIONS);
}

function operation(key: string, op: Op): Schema {
  const path = key.slice(key.indexOf(" ") + 1);
  const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => param(m[1]!, /uuid$/.test(m[1]!) ? uuid : str()));
  const headers = key.startsWith("POST /api/v1/merchants/")
    ? [{ name: "Idempotency-Key", in: "header", required: true, schema: str({ minLength: 1, maxLength: 64 }) }]
    : [];
  const responses: Record<string, Schema> = {};
  // Any authenticated operation answers 400 to ambiguous credentials or an unknown query parameter.
  const answers = op.security === "none" ? op.responses : { 400: "Error", ...op.responses };
  for (const [status, schema] of Object.entries(answers)) {
    responses[status] = schema
      ? { description: status, content: { "application/json": { schema: ref(schema) } } }
      : { description: status };
    if (status === "429") {
      responses[status]!.headers = {
        "Retry-After": { description: "whole seconds until an attempt can succeed", required: true, schema: int({ minimum: 1 }) },
      };
    }
  }
  return {
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.security === "none" ? { security: [] } : {}),
    parameters: [...pathParams, ...(op.query ?? []), ...headers],
    ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: ref(op.body) } } } } : {}),
    responses,
  };
}

/** Builds the document. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const [key, op] of Object.entries(OPERATIONS)) {
    const [method, path] = key.split(" ") as [string, string];
    (paths[path] ??= {})[method.toLowerCase()] = operation(key, op);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Merchant pay-in platform API",
      version: "0.9.0",
      description: "Merchant pay-in intents and platform administration. Errors are {error:{code,message,request_id}}.",
    },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }, { session: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "machine credential (mpk_…) or human session token" },
        session: { type: "apiKey", in: "cookie", name: "__Host-payin_session" },
      },
    },
  };
}
