import { checkoutView, eventData, intentReadView, transferView, type EventType } from "@payin/events";
import { uuidv7 } from "@payin/ids";
import type { CheckoutRecord } from "../domain/checkout-session.js";
import type { DeadlineOutcome, IntentEvent } from "../domain/intent-events.js";
import type { PayInIntent } from "../domain/pay-in-intent.js";
import type { ReportedTransfer } from "../domain/record-observations.js";
import type { TransferEvidence } from "../domain/settlement.js";
import { checkoutSessionToPb, payInIntentToPb, transferToPb } from "../rpc/mappers.js";

/**
 * An event as payins writes it into its outbox (`event_outbox`), in the
 * change's transaction, and as the relay hands it to notifications'
 * RecordEvents. `data` is its JSON text, built once here and never again.
 */
export interface OutboxEvent {
  eventUuid: string;
  merchantUuid: string;
  type: EventType;
  /** Per intent (checkout for checkout events) from 1, with no gaps. */
  sequence: number;
  intentUuid: string | null;
  checkoutUuid: string | null;
  createdAt: Date;
  data: string;
}

/** A transfer as recorded, with everything its public view shows. */
export type RecordedTransfer = ReportedTransfer & TransferEvidence;

/**
 * An intent's event: its data holds the intent as a read shows it after the
 * change (`intent`), and the transfer that caused it, as the transfers
 * listing shows it.
 */
export function intentOutboxEvent(
  intent: PayInIntent,
  sequence: number,
  createdAt: Date,
  event: IntentEvent<RecordedTransfer> | { type: "pay_in_intent.created" } | ({ type: "pay_in_intent.deadline_passed" } & DeadlineOutcome),
): OutboxEvent {
  const eventUuid = uuidv7();
  const transfer = "transfer" in event && event.transfer ? transferView(transferToPb(intent, event.transfer)) : undefined;
  const data = eventData({
    id: eventUuid,
    type: event.type,
    createdAt,
    merchantUuid: intent.merchantUuid,
    sequence,
    intent: intentReadView(payInIntentToPb(intent)),
    transfer,
    flag: "flag" in event ? event.flag : undefined,
    outcome: "outcome" in event ? event.outcome : undefined,
    receivedAmount: "receivedAmount" in event ? event.receivedAmount : undefined,
  });
  return {
    eventUuid,
    merchantUuid: intent.merchantUuid,
    type: event.type,
    sequence,
    intentUuid: intent.intentUuid,
    checkoutUuid: null,
    createdAt,
    data: JSON.stringify(data),
  };
}

/** The events of one change of an intent, numbered on from `lastSequence` (the intent's count so far). */
export function intentOutboxEvents(intent: PayInIntent, lastSequence: number, createdAt: Date, events: readonly IntentEvent<RecordedTransfer>[]): OutboxEvent[] {
  return events.map((event, i) => intentOutboxEvent(intent, lastSequence + i + 1, createdAt, event));
}

export type CheckoutEventType = "checkout.created" | "checkout.started" | "checkout.disabled" | "checkout.paid";

/** A checkout's event: its data holds the checkout as the merchant reads it after the change. */
export function checkoutOutboxEvent(record: CheckoutRecord, type: CheckoutEventType, sequence: number, createdAt: Date): OutboxEvent {
  const eventUuid = uuidv7();
  const { session } = record;
  const data = eventData({
    id: eventUuid,
    type,
    createdAt,
    merchantUuid: session.merchantUuid,
    sequence,
    checkout: checkoutView(checkoutSessionToPb(record)),
  });
  return {
    eventUuid,
    merchantUuid: session.merchantUuid,
    type,
    sequence,
    intentUuid: session.intentUuid,
    checkoutUuid: session.checkoutUuid,
    createdAt,
    data: JSON.stringify(data),
  };
}
