import { EVENT_TYPE_INFO, type DeadlineOutcome, type EventType, type TransferFlag } from "./catalogue.js";
import type { CheckoutView, IntentView, TransferView } from "./views.js";

/**
 * An event's `data`: the event's identity and order, and the resource as a
 * read showed it when the event happened (plus the transfer that caused it).
 * This is what the events API answers and what a webhook delivers under
 * `data`.
 */
export interface EventData {
  /** The event's id (UUIDv7); also the `webhook-id` of every delivery of it. */
  id: string;
  type: EventType;
  /** The version of this type's data (EVENT_TYPE_INFO). */
  version: number;
  created_at: string;
  merchant_uuid: string;
  /** Per resource (intent; checkout for checkout events) from 1, with no gaps: sort by it to order a resource's events. */
  sequence: number;
  pay_in_intent?: IntentView;
  transfer?: TransferView;
  checkout?: CheckoutView;
  /** transfer_flagged: why the transfer does not count. */
  flag?: TransferFlag;
  /** deadline_passed: unpaid or underpaid. */
  outcome?: DeadlineOutcome;
  /** deadline_passed: how much had settled (a decimal string). */
  received_amount?: string;
}

export interface EventFacts {
  id: string;
  type: EventType;
  createdAt: Date;
  merchantUuid: string;
  sequence: number;
  intent?: IntentView;
  transfer?: TransferView;
  checkout?: CheckoutView;
  flag?: TransferFlag;
  outcome?: DeadlineOutcome;
  receivedAmount?: string;
}

/** Builds an event's data from what the change knew; fields that do not apply are left out. */
export function eventData(facts: EventFacts): EventData {
  const data: EventData = {
    id: facts.id,
    type: facts.type,
    version: EVENT_TYPE_INFO[facts.type].version,
    created_at: facts.createdAt.toISOString(),
    merchant_uuid: facts.merchantUuid,
    sequence: facts.sequence,
  };
  if (facts.intent) data.pay_in_intent = facts.intent;
  if (facts.transfer) data.transfer = facts.transfer;
  if (facts.checkout) data.checkout = facts.checkout;
  if (facts.flag) data.flag = facts.flag;
  if (facts.outcome) data.outcome = facts.outcome;
  if (facts.receivedAmount !== undefined) data.received_amount = facts.receivedAmount;
  return data;
}

/**
 * A delivery's body, as Standard Webhooks has it: `{type, timestamp, data}`,
 * `timestamp` being when the event happened. The same bytes on every attempt.
 */
export function webhookBody(type: string, createdAt: Date, dataJson: string): string {
  return `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(createdAt.toISOString())},"data":${dataJson}}`;
}
