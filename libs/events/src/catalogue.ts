/**
 * Every event a merchant can be told of: the one list (types, their payload
 * version, what each means and what its data carries). Payins writes them,
 * notifications keeps and delivers them, the API documents and filters by
 * them; a type not listed here does not exist.
 *
 * Types are `<resource>.<change>`. A type's payload version rises when its
 * data changes in a way a receiver could notice; additions of fields do not
 * raise it (receivers ignore fields they do not know).
 */
export const EVENT_TYPES = [
  "pay_in_intent.created",
  "pay_in_intent.awaiting_payment",
  "pay_in_intent.transfer_detected",
  "pay_in_intent.transfer_settled",
  "pay_in_intent.transfer_orphaned",
  "pay_in_intent.transfer_flagged",
  "pay_in_intent.paid",
  "pay_in_intent.deadline_passed",
  "checkout.created",
  "checkout.started",
  "checkout.disabled",
  "checkout.paid",
  "webhook.test",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The resource an event is about: what its sequence counts, and which view its data holds. */
export type EventResource = "pay_in_intent" | "checkout" | "webhook";

export interface EventTypeInfo {
  /** The version of this type's data. */
  version: number;
  resource: EventResource;
  /** Whether its data holds the transfer that caused it. */
  withTransfer: boolean;
  /** What happened, for the OpenAPI document and docs/webhooks.md. */
  description: string;
}

/** What each type means; compiler-complete, so a new type needs its entry. */
export const EVENT_TYPE_INFO: Readonly<Record<EventType, EventTypeInfo>> = {
  "pay_in_intent.created": {
    version: 1,
    resource: "pay_in_intent",
    withTransfer: false,
    description: "A pay-in intent was created (over the API, or by a payer starting a checkout).",
  },
  "pay_in_intent.awaiting_payment": {
    version: 1,
    resource: "pay_in_intent",
    withTransfer: false,
    description: "The intent's address is watched on its chain: a payment sent now is seen.",
  },
  "pay_in_intent.transfer_detected": {
    version: 1,
    resource: "pay_in_intent",
    withTransfer: true,
    description: "A transfer to the intent's address was seen on chain and is waiting for confirmations (pending).",
  },
  "pay_in_intent.transfer_settled": {
    version: 1,
    resource: "pay_in_intent",
    withTransfer: true,
    description: "A transfer reached the settlement point of its chain: it can no longer be reorganised away.",
  },
  "pay_in_intent.transfer_orphaned": {
    version: 1,
    resource: "pay_in_intent",
    withTransfer: true,
    description: "A transfer seen before left the chain in a reorganisation: it no longer counts.",
  },
  "pay_in_intent.transfer_flagged": {
    version: 1,
    resource: "pay_in_intent",
    withTransfer: true,
    description:
      "A transfer arrived that does not count toward the intent: `flag` says why (late, wrong_network, wrong_token, dust, after_paid). Money that arrived after paid is the merchant's to give back.",
  },
  "pay_in_intent.paid": {
    version: 1,
    resource: "pay_in_intent",
    withTransfer: true,
    description: "Settled transfers reached the expected amount: the intent is paid (final). The transfer is the one that completed it.",
  },
  "pay_in_intent.deadline_passed": {
    version: 1,
    resource: "pay_in_intent",
    withTransfer: false,
    description:
      "The intent's deadline passed before it was paid: `outcome` is unpaid (nothing settled) or underpaid (part settled). The status does not change; a payment still on its way is watched for a while.",
  },
  "checkout.created": {
    version: 1,
    resource: "checkout",
    withTransfer: false,
    description: "A checkout link was created.",
  },
  "checkout.started": {
    version: 1,
    resource: "checkout",
    withTransfer: false,
    description: "A payer started the checkout: its pay-in intent exists (checkout.intent_uuid).",
  },
  "checkout.disabled": {
    version: 1,
    resource: "checkout",
    withTransfer: false,
    description: "The checkout link was disabled: it can no longer be started.",
  },
  "checkout.paid": {
    version: 1,
    resource: "checkout",
    withTransfer: false,
    description: "The checkout's pay-in intent was paid.",
  },
  "webhook.test": {
    version: 1,
    resource: "webhook",
    withTransfer: false,
    description: "A test event a merchant sent to one endpoint; it concerns no pay-in and is not listed among the merchant's events.",
  },
};

/** True for a type this platform knows (exact, case-sensitive). */
export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** Why a transfer does not count, as `transfer_flagged` says it. */
export const TRANSFER_FLAGS = ["late", "wrong_network", "wrong_token", "dust", "after_paid"] as const;

export type TransferFlag = (typeof TRANSFER_FLAGS)[number];

/** How an intent stood when its deadline passed unpaid. */
export const DEADLINE_OUTCOMES = ["unpaid", "underpaid"] as const;

export type DeadlineOutcome = (typeof DEADLINE_OUTCOMES)[number];
