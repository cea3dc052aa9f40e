/**
 * Where the audit outboxes of identity and allocation deliver: the merchants
 * service's audit log (AppendAuditEvents), which keeps each record once by its
 * uuid, with its own time and actor.
 */
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import type { merchantsV1 } from "@payin/proto";

/** A record of an audit outbox (@payin/db's OutboxEvent). */
export interface OutboxRecord {
  eventUuid: string;
  actorKind: string;
  actorUuid: string | null;
  actorOsUser: string | null;
  requestId: string | null;
  action: string;
  targetType: string;
  targetUuid: string | null;
  occurredAt: Date;
}

/** An outbox record as merchants' AuditEvent. */
export function outboxRecordToPb(e: OutboxRecord) {
  return {
    eventUuid: e.eventUuid,
    actor: { kind: e.actorKind, uuid: e.actorUuid ?? "", requestId: e.requestId ?? "", osUser: e.actorOsUser ?? "" },
    action: e.action,
    targetType: e.targetType,
    targetUuid: e.targetUuid ?? "",
    outcome: "succeeded",
    errorCode: "",
    occurredAt: timestampFromDate(e.occurredAt),
  };
}

/** The relay's delivery: appends `events` to merchants' audit log. */
export function appendToAuditLog(merchants: Pick<Client<typeof merchantsV1.MerchantsService>, "appendAuditEvents">) {
  return async (events: readonly OutboxRecord[]): Promise<void> => {
    await merchants.appendAuditEvents({ events: events.map(outboxRecordToPb) });
  };
}
