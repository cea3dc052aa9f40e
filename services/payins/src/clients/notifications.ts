import type { Client } from "@connectrpc/connect";
import type { notificationsV1 } from "@payin/proto";
import type { RecordEvents } from "../events/relay.js";

/**
 * Hands events to the notifications service: RecordEvents, idempotent by
 * event uuid, so a batch sent again after a lost answer or a crash records
 * nothing twice.
 */
export function eventRecorder(client: Pick<Client<typeof notificationsV1.NotificationsService>, "recordEvents">): RecordEvents {
  return async (events) => {
    await client.recordEvents({ events });
  };
}
