import type { ChangeActor, NotificationsStores, UnitOfWork } from "./model.js";

/** What the operations of this service need from the outside world. */
export interface Deps {
  uow: UnitOfWork;
  now(): Date;
  newUuid(): string;
  /** How long events are kept (and listed), in days. */
  retentionDays: number;
  /** How many webhook endpoints one merchant may have. */
  endpointLimit: number;
  /** The key endpoints' signing secrets are sealed with (WEBHOOK_SECRET_KEY). */
  sealingKey: Buffer;
  /** Whether a URL may receive webhooks (the SSRF guard, webhook-url.ts); on success its normalised form. */
  checkUrl(url: string): Promise<{ ok: true; url: URL } | { ok: false; reason: string }>;
}

const DAY_MS = 24 * 3600 * 1000;

/** The oldest creation time of an event still kept at `now`. */
export function retentionStart(deps: Pick<Deps, "retentionDays">, now: Date): Date {
  return new Date(now.getTime() - deps.retentionDays * DAY_MS);
}

/** Writes the audit record of a change into the outbox, in the change's own transaction. */
export async function recordChange(
  stores: NotificationsStores,
  deps: Pick<Deps, "newUuid">,
  actor: ChangeActor,
  change: { action: string; targetType: string; targetUuid: string | null; at: Date },
): Promise<void> {
  await stores.audit.insert({
    eventUuid: deps.newUuid(),
    ...actor,
    action: change.action,
    targetType: change.targetType,
    targetUuid: change.targetUuid,
    occurredAt: change.at,
  });
}
