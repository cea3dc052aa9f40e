/**
 * The OpenAPI 3.1 description of the gateway, complete enough to generate a
 * client from: every operation with its operationId, tag, parameters, body and
 * every status it can answer. The admin routes are declared as tables in
 * routes/admin/* (method, path, permission, MFA, query, body), and their entries
 * here follow from those declarations; the other routes are described below,
 * with the limits read from the constants their validation uses and the value
 * sets from the code that decides them (value-sets.ts).
 * Tests check that the gateway serves exactly these routes, that each accepts
 * exactly the query parameters documented, that every answer the gateway's
 * end-to-end tests get from an operation is one documented for it — status,
 * content type, headers and body (test/documented-answers.ts) — and that
 * Redocly's linter finds nothing wrong.
 */

import { MAX_BODY_BYTES, MAX_IDEMPOTENCY_KEY_LENGTH, MAX_REFERENCE_LENGTH } from "@payin/http";
import { EMAIL_MAX_LENGTH } from "@payin/ids";
import { MAX_AMOUNT, MAX_FRACTION_DIGITS } from "@payin/money";
import { REQUEST_ID_PATTERN } from "@payin/rpc";
import { AUDIT_ROUTES } from "../routes/admin/audit.js";
import { CONFIGURATION_ROUTES, OPERATING_MODES, POLICY_SCOPES } from "../routes/admin/configuration.js";
import { CREDENTIAL_ROUTES } from "../routes/admin/credentials.js";
import { IDENTITY_ROUTES } from "../routes/admin/identities.js";
import { MERCHANT_ROUTES } from "../routes/admin/merchants.js";
import { ADMIN_PREFIX, bodySchema, querySchema, type AdminRoute } from "../routes/admin/table.js";
import { CHALLENGE_TOKEN_MAX, CODE_MAX, PASSWORD_MAX, PASSWORD_MIN, TRANSPORTS } from "../routes/auth.js";
import { DELIVERY_STATUSES, LISTED_EVENT_TYPES } from "../routes/webhooks/input.js";
import { eventSchemas, WEBHOOK_HEADER_PARAMETERS, webhooksSection } from "./events.js";
import { asset, dateTime, int, jurisdiction, nullable, object, oneOf, rail, ref, str, uuid, type Schema } from "./schema.js";
import { ERROR_CODES, IDENTITY_STATUSES, MERCHANT_ROLES, MERCHANT_STATUSES, PAY_IN_STATUSES, READINESS_REASONS, ROLES, TRANSFER_STATES } from "./value-sets.js";

/** Every admin route declared as a table (routes/admin/table.ts). */
const ADMIN_TABLE: readonly AdminRoute[] = [...IDENTITY_ROUTES, ...MERCHANT_ROUTES, ...CREDENTIAL_ROUTES, ...CONFIGURATION_ROUTES, ...AUDIT_ROUTES];

const payInStatus = () => oneOf(PAY_IN_STATUSES);
const role = () => oneOf(ROLES);
const transport = () => oneOf(TRANSPORTS);
const effect = () => oneOf(["allow", "deny"]);
/** The largest offset a list takes: the largest whole number JSON carries exactly. */
const MAX_OFFSET = Number.MAX_SAFE_INTEGER;
/** An email as identity accepts it (@payin/ids' isEmailAddress): every one is a JSON Schema `format: email`. */
const email = (extra: Schema = {}) => str({ format: "email", maxLength: EMAIL_MAX_LENGTH, ...extra });

const envelope = (item: string): Schema =>
  object({ data: { type: "array", items: ref(item) }, pagination: ref("Pagination") });

const schemas: Record<string, Schema> = {
  Error: object({
    error: object({
      code: oneOf(ERROR_CODES, { description: "machine reason, one of the public catalogue; each is answered with one status (see the operation's responses)" }),
      message: str({ description: "for people; may change, never parse it" }),
      request_id: str({ pattern: REQUEST_ID_PATTERN.source, description: "the answer's X-Request-Id" }),
    }),
  }),
  Pagination: object({ total: int({ minimum: 0 }), limit: int({ minimum: 1, maximum: 100 }), offset: int({ minimum: 0, maximum: MAX_OFFSET }) }),
  Health: object({ status: str({ enum: ["ok"] }), request_id: str({ pattern: REQUEST_ID_PATTERN.source }) }),
  OpenApiDocument: { type: "object", description: "this OpenAPI 3.1 document" },
  PayInIntentCreateRequest: object(
    {
      asset: asset(),
      amount: str({
        pattern: "^\\d+(\\.\\d+)?$",
        description:
          `> 0, at most ${MAX_FRACTION_DIGITS} decimals after trimming, at most ${MAX_AMOUNT}; and payable on the asset's rail: at least the rail's dust ` +
          "threshold (0.001 unless the deployment configures another) and a whole number of the token's smallest unit, else 400 " +
          "VALIDATION_ERROR naming the minimum (a smaller transfer is dust and never counts)",
      }),
      jurisdiction,
      expires_at: str({ format: "date-time", description: "in UTC (Z or +00:00); must lie in the future" }),
      reference: nullable(str({ maxLength: MAX_REFERENCE_LENGTH })),
    },
    ["reference"],
  ),
  PayInIntentCreated: object({
    intent_uuid: uuid,
    status: str({ enum: ["created"], description: "always created, on a replay too (the first answer; read the intent for its status now)" }),
    asset: asset(),
    rail: rail(),
    expected_amount: str({ description: "canonical decimal" }),
    address: str(),
    allocation_reference: nullable(str()),
    expires_at: dateTime,
  }),
  PayInIntent: object({
    intent_uuid: uuid,
    merchant_uuid: uuid,
    status: payInStatus(),
    asset: asset(),
    rail: rail(),
    expected_amount: str(),
    address: nullable(str()),
    reference: nullable(str()),
    created_at: dateTime,
    expires_at: dateTime,
    updated_at: dateTime,
  }),
  PayInIntentListItem: object({
    intent_uuid: uuid,
    status: payInStatus(),
    asset: asset(),
    rail: rail(),
    expected_amount: str(),
    reference: nullable(str()),
    created_at: dateTime,
    expires_at: dateTime,
  }),
  PayInIntentList: envelope("PayInIntentListItem"),
  PayInTransfer: object({
    chain_id: int({ minimum: 1 }),
    rail: rail({ description: "the rail it happened on" }),
    asset: asset({ description: "the token sent" }),
    tx_hash: str({ pattern: "^0x[0-9a-f]{64}$" }),
    log_index: int({ minimum: 0 }),
    block_number: int({ minimum: 0 }),
    block_time: { ...dateTime, description: "timestamp of the including block; lateness is judged by it" },
    from_address: str({ pattern: "^0x[0-9a-f]{40}$" }),
    amount: str({ description: "canonical decimal in token units" }),
    state: str({
      enum: [...TRANSFER_STATES],
      description: "pending: seen in a block not yet settled; settled: final; orphaned: its block was reorganised out (kept as evidence)",
    }),
    flags: object({
      late: { type: "boolean", description: "block time after expires_at: never pays" },
      wrong_network: { type: "boolean", description: "on the other rail than the intent's: never pays" },
      wrong_token: { type: "boolean", description: "another watched token than the intent's asset: never pays" },
      dust: { type: "boolean", description: "below the rail's dust threshold, or zero: never counted" },
      after_paid: {
        type: "boolean",
        description: "first seen once the intent was already paid (a second payment, a top-up): never counted, never changes the status; money to give back",
      },
      vanished: {
        type: "boolean",
        description:
          "it had settled, then a reorganisation of the chain below its settled point took it off the chain (state orphaned): no longer counted; an intent it paid stays paid",
      },
    }),
  }),
  PayInTransferList: object({
    intent_uuid: uuid,
    asset: asset(),
    rail: rail(),
    expected_amount: str({ description: "canonical decimal" }),
    received_amount: str({ description: "settled transfers that count toward expected_amount, canonical decimal" }),
    pending_amount: str({ description: "seen, not yet settled, transfers that would count, canonical decimal" }),
    after_paid_amount: str({
      description:
        "settled transfers of the intent's token on its rail flagged after_paid and not dust (late ones included), canonical decimal: " +
        "what the merchant gives back",
    }),
    dust_count: int({ minimum: 0, description: "transfers flagged dust among all of them (pagination.total), listed only page by page" }),
    data: { type: "array", description: "the page of the transfers seen for the intent, oldest block first", items: ref("PayInTransfer") },
    pagination: ref("Pagination"),
  }),
  Identity: object({ uuid, email: email({ description: "lower case" }), status: oneOf(IDENTITY_STATUSES), roles: { type: "array", items: role() } }),
  LoginRequest: object({
    email: email(),
    password: str({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
    transport: str({ ...transport(), description: "cookie: the __Host-payin_session cookie (browsers; state-changing requests then need X-CSRF-Token); bearer: the token, sent as Authorization: Bearer" }),
  }),
  Authenticated: object({
    status: str({ enum: ["authenticated"] }),
    identity: ref("Identity"),
    roles: { type: "array", items: role() },
    transport: transport(),
    csrf_token: str({ description: "send as X-CSRF-Token on state-changing requests made with the cookie" }),
    token: str(),
    token_type: str({ enum: ["Bearer"] }),
  }),
  MfaRequired: object({ status: str({ enum: ["mfa_required"] }), mfa_challenge_token: str() }),
  /** Login's 200: a session, or (identity with TOTP) a challenge for POST /auth/mfa — no cookie, no token. */
  LoginResult: { oneOf: [ref("Authenticated"), ref("MfaRequired")] },
  MfaRequest: object({
    mfa_challenge_token: str({ minLength: 1, maxLength: CHALLENGE_TOKEN_MAX }),
    code: str({ minLength: 1, maxLength: CODE_MAX, description: "TOTP or recovery code" }),
  }),
  Session: object({
    identity: ref("Identity"),
    roles: { type: "array", items: role() },
    expires_at: dateTime,
    absolute_expires_at: dateTime,
    mfa_satisfied: { type: "boolean" },
    primary_authenticated_at: dateTime,
    csrf_token: str(),
  }),
  PasswordChange: object({ current_password: str(), new_password: str({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }) }),
  Merchant: object({
    uuid,
    display_name: str({ minLength: 1, maxLength: 150 }),
    legal_name: nullable(str({ minLength: 1, maxLength: 255 })),
    status: oneOf(MERCHANT_STATUSES),
    created_at: dateTime,
    updated_at: dateTime,
  }),
  MerchantEnvelope: object({ merchant: ref("Merchant") }),
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
    transport: transport(),
  }),
  SessionList: envelope("SessionListItem"),
  TotpEnrollment: object({ otpauth_uri: str({ description: "otpauth://totp/… shown once" }) }),
  TotpConfirm: object({ code: str({ minLength: 1, maxLength: CODE_MAX }) }),
  TotpEnrollmentRequest: object({ current_password: str() }),
  RecoveryCodes: object({ recovery_codes: { type: "array", items: str(), minItems: 10, maxItems: 10 } }),
  IdentityEnvelope: object({ identity: ref("Identity") }),
  SignInFailuresReset: object({ identity: ref("Identity"), forgiven_failures: int({ minimum: 0 }) }),
  IdentityList: envelope("Identity"),
  Membership: object({
    merchant_uuid: uuid,
    identity_uuid: uuid,
    created_at: dateTime,
    role: nullable(
      oneOf(MERCHANT_ROLES, {
        description:
          "the member's role for this merchant: for it, the person has that role's merchant permissions, whatever merchant roles the identity holds; " +
          "null: the membership names none, and the identity's own merchant roles apply",
      }),
    ),
  }),
  MembershipEnvelope: object({ membership: ref("Membership") }),
  Rule: object({
    rule_uuid: uuid,
    capability: str({ description: "a known capability (rules written before the list was closed may hold others)" }),
    jurisdiction,
    effect: effect(),
    version: int({ minimum: 1 }),
    valid_from: dateTime,
    valid_to: nullable(dateTime),
  }),
  RuleEnvelope: object({ rule: ref("Rule") }),
  RuleList: envelope("Rule"),
  OperatingProfile: object({ merchant_uuid: uuid, operating_mode: oneOf(OPERATING_MODES), created_at: dateTime, updated_at: dateTime }),
  OperatingProfileEnvelope: object({ operating_profile: ref("OperatingProfile") }),
  Policy: object({
    policy_uuid: uuid,
    merchant_uuid: uuid,
    scope: oneOf(POLICY_SCOPES),
    effect: effect(),
    version: int({ minimum: 1 }),
    valid_from: dateTime,
    valid_to: nullable(dateTime),
  }),
  PolicyEnvelope: object({ policy: ref("Policy") }),
  Provider: object({ provider_uuid: uuid, name: str(), created_at: dateTime }),
  ProviderEnvelope: object({ provider: ref("Provider") }),
  ProviderList: envelope("Provider"),
  ProviderBinding: object({
    binding_uuid: uuid,
    merchant_uuid: uuid,
    provider_uuid: uuid,
    capability: str(),
    jurisdiction,
    created_at: dateTime,
  }),
  ProviderBindingEnvelope: object({ provider_binding: ref("ProviderBinding") }),
  ProviderConnection: object({
    connection_uuid: uuid,
    merchant_uuid: uuid,
    provider_uuid: uuid,
    secret_reference: nullable(str()),
    created_at: dateTime,
    updated_at: dateTime,
  }),
  ProviderConnectionEnvelope: object({ provider_connection: ref("ProviderConnection") }),
  Wallet: object({
    merchant_uuid: uuid,
    xpub: str(),
    next_index: int({ minimum: 0, description: "the next address index to hand out" }),
    created_at: dateTime,
    updated_at: dateTime,
  }),
  WalletEnvelope: object({ wallet: ref("Wallet") }),
  ReadinessEnvelope: object({
    readiness: object({
      merchant_uuid: uuid,
      pairs: {
        type: "array",
        description: "one entry per (asset, rail) pair the platform serves",
        items: object({
          asset: asset(),
          rail: rail(),
          ready: { type: "boolean" },
          reasons: {
            type: "array",
            description: "every failing reason, in this order",
            items: oneOf(READINESS_REASONS),
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
      // Stamped by the service: the person or machine credential identity vouched for, or the operator CLI; os_user is the operating-system user the CLI ran as.
      actor: object({ kind: str({ enum: ["identity", "machine_credential", "operator_cli", "system"] }), uuid: nullable(uuid), os_user: nullable(str()) }),
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
  // Events, webhook endpoints, deliveries and every event type's data and webhook payload (events.ts).
  ...eventSchemas(),
  // The request bodies of the admin routes declared as a table, from their declarations.
  ...Object.fromEntries(
    ADMIN_TABLE.flatMap((route) => (route.body && route.body !== "empty" ? [[route.body.name, bodySchema(route.body)]] : [])),
  ),
};

type Tag = "health" | "pay-ins" | "events" | "webhook-endpoints" | "webhooks" | "auth" | "identities" | "merchants" | "machine-credentials" | "configuration" | "audit";

const TAGS: { name: Tag; description: string }[] = [
  { name: "health", description: "Liveness and this document" },
  { name: "pay-ins", description: "A merchant's pay-in intents and the transfers seen for them (machine credential or member)" },
  { name: "events", description: "A merchant's events, oldest first: what webhooks deliver, to read or poll (machine credential or member, merchant.payin.read)" },
  {
    name: "webhook-endpoints",
    description: "Where a merchant's events are sent, their signing secrets, deliveries and redelivery (a signed-in person holding webhook.manage, or a platform admin)",
  },
  { name: "auth", description: "Sign-in, MFA, the caller's own session, sessions, password and TOTP enrolment" },
  { name: "identities", description: "People's accounts and roles (platform administration)" },
  { name: "merchants", description: "Merchants, their lifecycle, members and pay-in readiness (platform administration)" },
  { name: "machine-credentials", description: "A merchant's machine credentials (platform_admin with MFA)" },
  { name: "configuration", description: "Rules, policies, operating profiles, providers, bindings, connections and the receiving wallet" },
  { name: "audit", description: "The platform audit log" },
  { name: "webhooks", description: "What the platform POSTs to a webhook endpoint: one entry per event type (the document's webhooks section)" },
];

/** Statuses an operation answers only where it says so; the others follow from what it reads (see operation()). */
type Refusal = 401 | 404 | 409 | 429;

interface Op {
  /** Unique, camelCase. */
  id: string;
  tag: Tag;
  summary: string;
  /** What the operation's refusals mean, when more than the status says. */
  description?: string;
  /**
   * `credential`: needs a machine credential or a session (401 without one, 403
   * without the permission, MFA or CSRF token). `session`: a session that may
   * be refused nothing else (the session read). `none`: nothing. `static`: the
   * gateway answers alone (no service, no query check).
   */
  auth: "credential" | "session" | "none" | "static";
  /** The JSON body it reads, or "empty": none or `{}` (anything else is refused like a body). */
  body?: string;
  /** The body may be left out (every field of it then takes its default). */
  optionalBody?: boolean;
  /** Takes an Idempotency-Key (required) and may answer a replay (Idempotent-Replayed). */
  idempotent?: boolean;
  query?: Schema[];
  /** Success statuses and their body schema (null: no body). */
  ok: Record<number, string | null>;
  refusals?: Refusal[];
  /** The 201 answer names the new resource in Location. */
  location?: string;
  /** The permission it needs and whether MFA must be recent (the admin routes' table says; others name them in the summary). */
  permission?: string;
  mfa?: "recent" | "any" | "none";
}

/**
 * The entries of routes declared as a table: parameters, body and permission
 * from the declaration (the checks the handler makes), the rest from its doc.
 */
function tableOperations(routes: readonly AdminRoute[]): Record<string, Op> {
  return Object.fromEntries(
    routes.map((route) => [
      `${route.method} ${ADMIN_PREFIX}${route.path}`,
      {
        ...route.doc,
        tag: route.doc.tag as Tag,
        summary: `${route.doc.summary} (${route.permission}${route.mfa === "recent" ? ", recent MFA" : route.mfa === "any" ? ", MFA" : ""})`,
        auth: "credential",
        ...(route.body ? { body: route.body === "empty" ? "empty" : route.body.name } : {}),
        query: [
          ...Object.entries(route.query ?? {}).map(([name, kind]) => queryParam(name, querySchema(kind), "description" in kind ? kind.description : undefined)),
          ...(route.paged ? PAGE : []),
        ],
        permission: route.permission,
        mfa: route.mfa ?? "none",
      } satisfies Op,
    ]),
  );
}

const queryParam = (name: string, schema: Schema, description?: string): Schema => ({
  name,
  in: "query",
  required: false,
  ...(description ? { description } : {}),
  schema,
});
const PAGE = [{ $ref: "#/components/parameters/limit" }, { $ref: "#/components/parameters/offset" }];

/** Who may use the webhook-endpoint operations, as their descriptions say. */
const WEBHOOK_MANAGERS =
  "A signed-in person holding webhook.manage for the merchant (a member whose role grants it), or a platform admin (merchant.manage; the merchant must " +
  "exist, else 404 MERCHANT_NOT_FOUND); a machine credential is refused 403, whatever it holds.";
/** The deliveries lists' query. */
const DELIVERY_QUERY = [
  queryParam("status", oneOf(DELIVERY_STATUSES), "only deliveries in this status"),
  queryParam("before", uuid, "a delivery uuid: only deliveries older than it (the previous answer's next_before)"),
  { $ref: "#/components/parameters/limit" },
];

/** Every operation: "METHOD /path" (paths relative to the server root). */
const OPERATIONS: Record<string, Op> = {
  "GET /health": { id: "getHealth", tag: "health", summary: "Liveness (unversioned)", auth: "static", ok: { 200: "Health" } },
  "GET /api/v1/openapi.json": { id: "getOpenApiDocument", tag: "health", summary: "This document", auth: "static", ok: { 200: "OpenApiDocument" } },
  "POST /api/v1/merchants/{merchant_uuid}/pay-in-intents": {
    id: "createPayInIntent",
    tag: "pay-ins",
    summary: "Create a pay-in intent (Idempotency-Key required)",
    description:
      "400 IDEMPOTENCY_KEY_INVALID or IDEMPOTENCY_KEY_REUSED besides body errors. " +
      "403 PAYIN_NOT_ALLOWED: no allowing crypto.payin rule for the jurisdiction, or no allowing payin policy. " +
      "409 IDEMPOTENCY_KEY_IN_USE, MERCHANT_NOT_ACTIVE, OPERATING_PROFILE_MISSING, WALLET_NOT_READY, and PAYIN_NOT_READY " +
      "when the merchant is not ready for the pair for another configuration reason of its readiness, named in the message " +
      "(e.g. provider_not_ready: no provider bound for crypto.payin in the jurisdiction with a connection to it). A lagging chain observer refuses no create. " +
      "A replay (same key, same payload) answers 201 with the first answer, field for field (status created, whatever the intent's status now), and Idempotent-Replayed: true.",
    auth: "credential",
    idempotent: true,
    body: "PayInIntentCreateRequest",
    ok: { 201: "PayInIntentCreated" },
    refusals: [409],
    location: "the intent's path",
  },
  "GET /api/v1/merchants/{merchant_uuid}/pay-in-intents": {
    id: "listPayInIntents",
    tag: "pay-ins",
    summary: "List pay-in intents, newest first",
    auth: "credential",
    query: [...PAGE, queryParam("status", payInStatus()), queryParam("asset", asset())],
    ok: { 200: "PayInIntentList" },
  },
  "GET /api/v1/merchants/{merchant_uuid}/pay-in-intents/{intent_uuid}": {
    id: "getPayInIntent",
    tag: "pay-ins",
    summary: "Read a pay-in intent",
    description: "404 PAY_IN_INTENT_NOT_FOUND: no such intent, a malformed intent_uuid, or another merchant's intent.",
    auth: "credential",
    ok: { 200: "PayInIntent" },
    refusals: [404],
  },
  "GET /api/v1/merchants/{merchant_uuid}/pay-in-intents/{intent_uuid}/transfers": {
    id: "listPayInTransfers",
    tag: "pay-ins",
    summary: "List the transfers seen for a pay-in intent (evidence)",
    description:
      "Every transfer seen to the intent's address, oldest block first, with received_amount (settled transfers that count) and " +
      "pending_amount (seen, not settled, that would count). The intent is paid only from settled transfers of its token on its rail, " +
      "none late, dust or after_paid. after_paid_amount sums the settled transfers of its token on its rail that arrived once it was " +
      "already paid: the amount to give back. The amounts and dust_count cover every transfer; data is a page of them (limit, offset), " +
      "pagination.total counts them all. Same access and 404 as reading the intent.",
    auth: "credential",
    query: [...PAGE],
    ok: { 200: "PayInTransferList" },
    refusals: [404],
  },
  "GET /api/v1/merchants/{merchant_uuid}/events": {
    id: "listEvents",
    tag: "events",
    summary: "List events, oldest first (merchant.payin.read)",
    description:
      "The merchant's events kept for the retention period (at least 30 days), oldest first; each is the object a webhook delivers as its `data`. " +
      "Page with `after`: send the answer's next_after. When has_more is false, the same next_after later answers the events listed since, so a " +
      "client can poll instead of (or besides) receiving webhooks. Events are listed in the order they were recorded (not always that of their ids), so " +
      "the cursor never skips one: polling from the last next_after misses nothing. `type` is one type or a comma-separated list of types (each once; the parameter itself once). " +
      "Same access as the pay-in reads: 403 for another merchant's credential, before any lookup. webhook.test events are never listed.",
    auth: "credential",
    query: [
      queryParam("after", { ...uuid, description: "an event id: only events after it" }, "an event id: only events recorded after it (the previous answer's next_after)"),
      queryParam(
        "type",
        str({ pattern: `^(${LISTED_EVENT_TYPES.map((t) => t.replace(/\./g, "\\.")).join("|")})(,(${LISTED_EVENT_TYPES.map((t) => t.replace(/\./g, "\\.")).join("|")}))*$` }),
        `only events of these types: one, or a comma-separated list of: ${LISTED_EVENT_TYPES.join(", ")}`,
      ),
      queryParam("intent_uuid", uuid, "only the events of this pay-in intent"),
      { $ref: "#/components/parameters/limit" },
    ],
    ok: { 200: "EventList" },
  },
  "GET /api/v1/merchants/{merchant_uuid}/events/{event_id}": {
    id: "getEvent",
    tag: "events",
    summary: "Read an event (merchant.payin.read)",
    description: "404 EVENT_NOT_FOUND: no such event, a malformed id, another merchant's event, one older than the retention period, or a webhook.test event.",
    auth: "credential",
    ok: { 200: "Event" },
    refusals: [404],
  },
  "GET /api/v1/merchants/{merchant_uuid}/events/{event_id}/deliveries": {
    id: "listEventDeliveries",
    tag: "webhook-endpoints",
    summary: "List the deliveries of an event, newest first (webhook.manage)",
    description: `${WEBHOOK_MANAGERS} 404 EVENT_NOT_FOUND.`,
    auth: "credential",
    query: DELIVERY_QUERY,
    ok: { 200: "DeliveryList" },
    refusals: [404],
  },
  "POST /api/v1/merchants/{merchant_uuid}/events/{event_id}/resend": {
    id: "resendEvent",
    tag: "webhook-endpoints",
    summary: "Send an event again (webhook.manage)",
    description:
      `${WEBHOOK_MANAGERS} To one endpoint (endpoint_uuid), or to every enabled endpoint that receives its type; the webhook-id stays the event's id. ` +
      "404 EVENT_NOT_FOUND, WEBHOOK_ENDPOINT_NOT_FOUND. 409 WEBHOOK_ENDPOINT_DISABLED: the endpoint named is disabled.",
    auth: "credential",
    body: "EventResendRequest",
    optionalBody: true,
    ok: { 202: "DeliveryBatch" },
    refusals: [404, 409],
  },
  "POST /api/v1/merchants/{merchant_uuid}/webhook-endpoints": {
    id: "createWebhookEndpoint",
    tag: "webhook-endpoints",
    summary: "Add a webhook endpoint; its signing secret is answered this once (webhook.manage)",
    description:
      `${WEBHOOK_MANAGERS} 400 WEBHOOK_URL_INVALID: not https, credentials in it, a name that does not resolve, or an address that is not public ` +
      "(private, loopback, link-local, metadata…); WEBHOOK_EVENT_TYPES_INVALID: an unknown type, one named twice, webhook.test, or an empty list. " +
      "409 WEBHOOK_ENDPOINT_LIMIT: the merchant has as many endpoints as it may.",
    auth: "credential",
    body: "WebhookEndpointCreateRequest",
    ok: { 201: "WebhookEndpointWithSecret" },
    refusals: [409],
    location: "the endpoint's path",
  },
  "GET /api/v1/merchants/{merchant_uuid}/webhook-endpoints": {
    id: "listWebhookEndpoints",
    tag: "webhook-endpoints",
    summary: "List the webhook endpoints, oldest first, never their secrets (webhook.manage)",
    description: WEBHOOK_MANAGERS,
    auth: "credential",
    ok: { 200: "WebhookEndpointList" },
    refusals: [404],
  },
  "GET /api/v1/merchants/{merchant_uuid}/webhook-endpoints/{endpoint_uuid}": {
    id: "getWebhookEndpoint",
    tag: "webhook-endpoints",
    summary: "Read a webhook endpoint, never its secret (webhook.manage)",
    description: `${WEBHOOK_MANAGERS} 404 WEBHOOK_ENDPOINT_NOT_FOUND: no such endpoint, a malformed uuid, or another merchant's.`,
    auth: "credential",
    ok: { 200: "WebhookEndpoint" },
    refusals: [404],
  },
  "PATCH /api/v1/merchants/{merchant_uuid}/webhook-endpoints/{endpoint_uuid}": {
    id: "updateWebhookEndpoint",
    tag: "webhook-endpoints",
    summary: "Change a webhook endpoint's URL, types, description or whether it is enabled (webhook.manage)",
    description: `${WEBHOOK_MANAGERS} 400 as on create; VALIDATION_ERROR for an empty body. 404 WEBHOOK_ENDPOINT_NOT_FOUND.`,
    auth: "credential",
    body: "WebhookEndpointUpdateRequest",
    ok: { 200: "WebhookEndpoint" },
    refusals: [404],
  },
  "DELETE /api/v1/merchants/{merchant_uuid}/webhook-endpoints/{endpoint_uuid}": {
    id: "deleteWebhookEndpoint",
    tag: "webhook-endpoints",
    summary: "Remove a webhook endpoint, its pending deliveries and its log (webhook.manage)",
    description: `${WEBHOOK_MANAGERS} 404 WEBHOOK_ENDPOINT_NOT_FOUND.`,
    auth: "credential",
    body: "empty",
    ok: { 204: null },
    refusals: [404],
  },
  "POST /api/v1/merchants/{merchant_uuid}/webhook-endpoints/{endpoint_uuid}/rotate-secret": {
    id: "rotateWebhookSecret",
    tag: "webhook-endpoints",
    summary: "Replace the signing secret; the new one is answered this once (webhook.manage)",
    description:
      `${WEBHOOK_MANAGERS} Until previous_secret_expires_at (grace_seconds, default 24 hours, at most 7 days) deliveries carry two signatures, ` +
      "one with each secret, so receivers can switch without losing one. 404 WEBHOOK_ENDPOINT_NOT_FOUND.",
    auth: "credential",
    body: "WebhookSecretRotateRequest",
    optionalBody: true,
    ok: { 200: "WebhookEndpointWithSecret" },
    refusals: [404],
  },
  "POST /api/v1/merchants/{merchant_uuid}/webhook-endpoints/{endpoint_uuid}/test": {
    id: "sendTestWebhook",
    tag: "webhook-endpoints",
    summary: "Send a webhook.test event to the endpoint (webhook.manage)",
    description:
      `${WEBHOOK_MANAGERS} Answers the test event; its delivery shows in the endpoint's deliveries. It is sent to this endpoint only and never listed among the events. ` +
      "404 WEBHOOK_ENDPOINT_NOT_FOUND. 409 WEBHOOK_ENDPOINT_DISABLED.",
    auth: "credential",
    body: "empty",
    ok: { 202: "WebhookTestEvent" },
    refusals: [404, 409],
  },
  "GET /api/v1/merchants/{merchant_uuid}/webhook-endpoints/{endpoint_uuid}/deliveries": {
    id: "listWebhookDeliveries",
    tag: "webhook-endpoints",
    summary: "List an endpoint's deliveries with every attempt, newest first (webhook.manage)",
    description: `${WEBHOOK_MANAGERS} Page with \`before\`: send the answer's next_before. 404 WEBHOOK_ENDPOINT_NOT_FOUND.`,
    auth: "credential",
    query: DELIVERY_QUERY,
    ok: { 200: "DeliveryList" },
    refusals: [404],
  },
  "POST /api/v1/merchants/{merchant_uuid}/webhook-endpoints/{endpoint_uuid}/resend-failed": {
    id: "resendFailedWebhookDeliveries",
    tag: "webhook-endpoints",
    summary: "Send again every failed delivery of the endpoint since a time (webhook.manage)",
    description:
      `${WEBHOOK_MANAGERS} Every delivery of an event created at or after \`since\` that failed (given up, or waiting for a retry) is queued again at once. ` +
      "404 WEBHOOK_ENDPOINT_NOT_FOUND. 409 WEBHOOK_ENDPOINT_DISABLED.",
    auth: "credential",
    body: "FailedDeliveriesResendRequest",
    ok: { 202: "ResentDeliveries" },
    refusals: [404, 409],
  },
  "POST /api/v1/auth/login": {
    id: "login",
    tag: "auth",
    summary: "Sign in (cookie or bearer transport)",
    description:
      "401 AUTH_INVALID_CREDENTIALS: wrong password or unknown email, alike. 429 RATE_LIMITED: sign-in throttling (Retry-After). " +
      "400 AUTH_AMBIGUOUS: both the session cookie and an Authorization header, as on every operation. " +
      "A session the request presents (one of them) ends once the password is accepted.",
    auth: "none",
    body: "LoginRequest",
    ok: { 200: "LoginResult" },
    refusals: [401, 429],
  },
  "POST /api/v1/auth/mfa": {
    id: "completeMfa",
    tag: "auth",
    summary: "Complete an MFA challenge",
    description:
      "401: a wrong, spent or expired challenge or code. 429 RATE_LIMITED: throttling (Retry-After). " +
      "400 AUTH_AMBIGUOUS: both the session cookie and an Authorization header. A session the request presents ends once the MFA succeeds.",
    auth: "none",
    body: "MfaRequest",
    ok: { 200: "Authenticated" },
    refusals: [401, 429],
  },
  "GET /api/v1/auth/session": { id: "getSession", tag: "auth", summary: "Read the current session", auth: "session", ok: { 200: "Session" } },
  "POST /api/v1/auth/logout": { id: "logout", tag: "auth", summary: "End the current session", auth: "credential", ok: { 204: null } },
  "POST /api/v1/auth/password": {
    id: "changePassword",
    tag: "auth",
    summary: "Change password (revokes other sessions)",
    description:
      "401 AUTH_INVALID_CREDENTIALS \"current password is incorrect\": counted like a failed sign-in. " +
      "403 MFA_REQUIRED or MFA_RECENT_REQUIRED: the identity holds an administrative permission and the session did not complete MFA, " +
      "or completed it more than 15 minutes ago. 403 CSRF_TOKEN_INVALID: a cookie session without its X-CSRF-Token. " +
      "429 RATE_LIMITED: too many wrong current passwords (Retry-After).",
    auth: "credential",
    body: "PasswordChange",
    ok: { 204: null },
    refusals: [429],
  },
  "GET /api/v1/auth/sessions": {
    id: "listSessions",
    tag: "auth",
    summary: "List own sessions, newest first",
    description: "403 MFA_REQUIRED: the identity holds an administrative permission and the session has not completed MFA.",
    auth: "credential",
    query: PAGE,
    ok: { 200: "SessionList" },
  },
  "DELETE /api/v1/auth/sessions/{uuid}": {
    id: "revokeSession",
    tag: "auth",
    summary: "Revoke one own session",
    description:
      "403 MFA_REQUIRED: the identity holds an administrative permission and the session has not completed MFA. " +
      "403 CSRF_TOKEN_INVALID: a cookie session without its X-CSRF-Token. 404 SESSION_NOT_FOUND: not one of the caller's sessions.",
    auth: "credential",
    ok: { 204: null },
    refusals: [404],
  },
  "POST /api/v1/auth/mfa/totp": {
    id: "startTotpEnrollment",
    tag: "auth",
    summary: "Start TOTP enrolment (current password required)",
    description:
      "401 \"current password is incorrect\". 403 CSRF_TOKEN_INVALID: a cookie session without its X-CSRF-Token. " +
      "409 TOTP_ALREADY_ENROLLED. 429 RATE_LIMITED: too many wrong current passwords (Retry-After).",
    auth: "credential",
    body: "TotpEnrollmentRequest",
    ok: { 200: "TotpEnrollment" },
    refusals: [409, 429],
  },
  "POST /api/v1/auth/mfa/totp/confirm": {
    id: "confirmTotpEnrollment",
    tag: "auth",
    summary: "Confirm TOTP enrolment (recovery codes shown once; ends the other sessions)",
    description: "400 TOTP_CODE_INVALID. 403 CSRF_TOKEN_INVALID: a cookie session without its X-CSRF-Token. 409 TOTP_NOT_PENDING.",
    auth: "credential",
    body: "TotpConfirm",
    ok: { 200: "RecoveryCodes" },
    refusals: [409],
  },
  ...tableOperations(IDENTITY_ROUTES),
  ...tableOperations(MERCHANT_ROUTES),
  ...tableOperations(CREDENTIAL_ROUTES),
  ...tableOperations(CONFIGURATION_ROUTES),
  ...tableOperations(AUDIT_ROUTES),
};

/** "METHOD /path" of every documented operation. */
export function documentedOperations(): string[] {
  return Object.keys(OPERATIONS);
}

const errorBody = { "application/json": { schema: ref("Error") } };
const retryAfter = (description: string) => ({ description, required: true, schema: int({ minimum: 1 }) });
/** Every answer carries X-Request-Id. */
const requestIdHeader = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } };

/** The error answers, one per status, shared by every operation that can give it. */
const ERROR_RESPONSES: Record<number, { name: string; response: Schema }> = {
  400: {
    name: "BadRequest",
    response: {
      description:
        "VALIDATION_ERROR, MALFORMED_JSON (a body that is not UTF-8, does not parse or gives a name twice in one object), " +
        "AUTH_AMBIGUOUS (both the session cookie and a bearer token) or another 400 code of the operation",
      content: errorBody,
    },
  },
  401: {
    name: "Unauthorized",
    response: {
      description: "AUTH_INVALID_CREDENTIALS: no credential, or one that is malformed, unknown, expired or revoked",
      headers: { "WWW-Authenticate": { description: 'Bearer realm="payin"', required: true, schema: str({ enum: ['Bearer realm="payin"'] }) } },
      content: errorBody,
    },
  },
  403: { name: "Forbidden", response: { description: "FORBIDDEN, MFA_REQUIRED, MFA_RECENT_REQUIRED, CSRF_TOKEN_INVALID or another 403 code of the operation", content: errorBody } },
  404: { name: "NotFound", response: { description: "the resource the path names does not exist (the code names it)", content: errorBody } },
  409: { name: "Conflict", response: { description: "the state of the resource refuses the operation (the code says why)", content: errorBody } },
  413: { name: "PayloadTooLarge", response: { description: `PAYLOAD_TOO_LARGE: the body is over ${MAX_BODY_BYTES / 1024} KiB`, content: errorBody } },
  415: {
    name: "UnsupportedMediaType",
    response: { description: "UNSUPPORTED_MEDIA_TYPE: the body is not application/json in UTF-8 without content coding", content: errorBody },
  },
  429: {
    name: "TooManyRequests",
    response: { description: "RATE_LIMITED", headers: { "Retry-After": retryAfter("whole seconds until an attempt can succeed") }, content: errorBody },
  },
  500: { name: "InternalError", response: { description: "INTERNAL_ERROR: an unexpected failure; nothing internal is shown", content: errorBody } },
  503: {
    name: "ServiceUnavailable",
    response: {
      description: "SERVICE_UNAVAILABLE: a service is down or timed out; retry with backoff",
      headers: { "Retry-After": retryAfter("seconds to wait before retrying") },
      content: errorBody,
    },
  },
};

/** Every status an operation can answer: its own, and those that follow from what it reads and who it needs. */
export function answeredStatuses(op: Op): number[] {
  const statuses = new Set<number>(Object.keys(op.ok).map(Number));
  if (op.auth !== "static") for (const status of [400, 500, 503]) statuses.add(status);
  if (op.auth === "credential" || op.auth === "session") statuses.add(401);
  if (op.auth === "credential") statuses.add(403);
  if (op.body) for (const status of [413, 415]) statuses.add(status);
  for (const status of op.refusals ?? []) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}

/** An error answer with the header every answer carries. */
function withRequestId(response: Schema): Schema {
  return { ...response, headers: { ...requestIdHeader, ...(response.headers as Schema | undefined) } };
}

function successResponse(key: string, op: Op, status: number, schema: string | null): Schema {
  const headers: Record<string, Schema> = { ...requestIdHeader };
  if (status === 201 && op.location) {
    headers.Location = { description: `${op.location}, under /api/v1`, required: true, schema: str({ format: "uri-reference" }) };
  }
  if (op.idempotent) {
    headers["Idempotent-Replayed"] = { description: "true when the answer replays the create of the same key", schema: str({ enum: ["true"] }) };
  }
  return {
    description: schema ? `${status} ${schema}` : String(status),
    headers,
    ...(schema ? { content: { "application/json": { schema: ref(schema) } } } : {}),
  };
}

function operation(key: string, op: Op): Schema {
  const path = key.slice(key.indexOf(" ") + 1);
  const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1]!,
    in: "path",
    required: true,
    schema: /(uuid|_id)$/.test(m[1]!) ? uuid : str(),
  }));
  const method = key.slice(0, key.indexOf(" "));
  const headers: Schema[] = [{ $ref: "#/components/parameters/requestId" }];
  if (op.idempotent) {
    headers.push({
      name: "Idempotency-Key",
      in: "header",
      required: true,
      description: "sent once; the same key and payload replay the first answer",
      schema: str({ minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH }),
    });
  }
  // The authenticator asks a state-changing request made with the session cookie for it.
  if (op.auth === "credential" && method !== "GET") headers.push({ $ref: "#/components/parameters/csrfToken" });
  const responses: Record<string, Schema> = {};
  for (const status of answeredStatuses(op)) {
    const schema = op.ok[status];
    responses[status] = schema !== undefined ? successResponse(key, op, status, schema) : { $ref: `#/components/responses/${ERROR_RESPONSES[status]!.name}` };
  }
  const emptyBody = op.body === "empty";
  const optional = emptyBody || op.optionalBody === true;
  return {
    operationId: op.id,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.auth === "none" || op.auth === "static" ? { security: [] } : {}),
    ...(op.permission ? { "x-permission": op.permission, "x-mfa": op.mfa ?? "none" } : {}),
    parameters: [...pathParams, ...(op.query ?? []), ...headers],
    ...(op.body
      ? {
          requestBody: {
            required: !optional,
            ...(emptyBody ? { description: "none, or an empty JSON object" } : op.optionalBody ? { description: "optional: none is the same as an empty JSON object" } : {}),
            content: { "application/json": { schema: emptyBody ? object({}) : ref(op.body) } },
          },
        }
      : {}),
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
  const used = new Set(Object.values(OPERATIONS).flatMap(answeredStatuses));
  return {
    openapi: "3.1.0",
    info: {
      title: "Merchant pay-in platform API",
      version: "0.8.0",
      description:
        "Merchant pay-in intents and platform administration. Errors are {error:{code,message,request_id}}; every answer carries " +
        "X-Request-Id. Lists answer {data, pagination:{total, limit, offset}} and take limit (1 to 100, default 20) and offset (>= 0); " +
        "the event and delivery logs, which grow while they are read, are paged by cursor instead: {data, has_more, next_after} " +
        "(events, oldest first) and {data, has_more, next_before} (deliveries, newest first), with limit (1 to 100, default 20).\n\n" +
        "Events: what happens to a merchant's pay-ins and checkouts is recorded as events (GET …/events), and sent to its webhook " +
        "endpoints signed per Standard Webhooks 1.0; the webhooks section documents each type's payload.\n\n" +
        "Authentication: each request uses exactly one of the two security schemes, never both. A merchant's server sends its " +
        "machine credential as `Authorization: Bearer mpk_…` (bearer). A person signs in with POST /api/v1/auth/login choosing a " +
        "transport: bearer (send the answered token as `Authorization: Bearer`) or cookie (the __Host-payin_session cookie, for " +
        "browsers; POST, PUT, PATCH and DELETE then need X-CSRF-Token, the session's csrf_token). A request carrying both the cookie and " +
        "an Authorization header is refused with 400 AUTH_AMBIGUOUS: a generated client must be configured with one scheme only.",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/" }],
    // Either scheme, never both (AUTH_AMBIGUOUS): two requirements, each with one scheme.
    security: [{ bearer: [] }, { session: [] }],
    tags: TAGS,
    paths,
    webhooks: webhooksSection(),
    components: {
      schemas,
      parameters: {
        limit: queryParam("limit", int({ minimum: 1, maximum: 100, default: 20 }), "page size"),
        offset: queryParam("offset", int({ minimum: 0, maximum: MAX_OFFSET, default: 0 }), "items to skip"),
        requestId: {
          name: "X-Request-Id",
          in: "header",
          required: false,
          description: "the caller's own id for the request: when it matches the pattern it is logged as client_request_id beside the platform's id, and used for nothing else; the answer's X-Request-Id is always the platform's",
          schema: str({ pattern: REQUEST_ID_PATTERN.source }),
        },
        ...WEBHOOK_HEADER_PARAMETERS,
        csrfToken: {
          name: "X-CSRF-Token",
          in: "header",
          required: false,
          description:
            "with the session cookie (security scheme session), required: the session's csrf_token (from login or GET /api/v1/auth/session), " +
            "else 403 CSRF_TOKEN_INVALID; a bearer request needs none",
          schema: str({ minLength: 1 }),
        },
      },
      headers: {
        RequestId: {
          description: "the request's id, always made by the platform (never the caller's X-Request-Id): the request_id of an error body and of the audit records of the request",
          required: true,
          schema: str({ pattern: REQUEST_ID_PATTERN.source }),
        },
      },
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES)
          .filter(([status]) => used.has(Number(status)))
          .map(([, { name, response }]) => [name, withRequestId(response)]),
      ),
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "a machine credential (mpk_…) or a person's session token (login with transport bearer). Never together with the session cookie (400 AUTH_AMBIGUOUS).",
        },
        session: {
          type: "apiKey",
          in: "cookie",
          name: "__Host-payin_session",
          description:
            "a person's session cookie (login with transport cookie); state-changing requests also send X-CSRF-Token. Never together with an Authorization header (400 AUTH_AMBIGUOUS).",
        },
      },
    },
  };
}
