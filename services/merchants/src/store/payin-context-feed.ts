import { randomBytes } from "node:crypto";
import { listenForNotifications, type NotificationListener } from "@payin/db";
import { isUuid } from "@payin/ids";

/**
 * The PostgreSQL channel on which the merchants schema's triggers (migration
 * 2026-11-22-payin-context-changes) announce every change to what a pay-in
 * context is made of. Payload: the merchant's uuid (lower case), or `*` for
 * every merchant. Private to this service: other services follow the feed
 * (WatchPayinContextChanges), never the channel.
 */
export const PAYIN_CONTEXT_CHANNEL = "merchants_payin_context";

/** One event of a subscription: the first is always `synced`. */
export type FeedEvent =
  | { kind: "synced"; feedId: string; sequence: bigint }
  /** `merchantUuid` null: every merchant. */
  | { kind: "change"; sequence: bigint; merchantUuid: string | null };

/** The feed cannot vouch for its changes at the moment (not listening, or the check failed). */
export class FeedUnavailableError extends Error {
  constructor(message = "the pay-in context feed is unavailable") {
    super(message);
    this.name = "FeedUnavailableError";
  }
}

/** Events a subscriber has not read yet, at most; past it, its stream ends (it follows again from a fresh sync). */
const MAX_QUEUED = 10_000;

interface Subscriber {
  queue: FeedEvent[];
  wake: (() => void) | undefined;
  error: Error | undefined;
}

export interface PayinContextFeedOptions {
  /** The merchants database (direct or session-pooled: LISTEN needs its own session). */
  url: string;
  /** Called when the feed stops or starts being able to vouch for its changes. */
  onLost?: (error: Error, first: boolean) => void;
  onListening?: () => void;
  /** Wait before listening again after a failure (default 1 s). */
  retryMs?: number;
  applicationName?: string;
}

/**
 * The change feed of pay-in contexts (WatchPayinContextChanges,
 * GetPayinContextFeedPosition): this service listens to its own schema's
 * announcements and numbers them, in the order PostgreSQL delivers them (commit
 * order), within a feed id that changes whenever listening starts again (what
 * was announced meanwhile is unknown). While not listening it vouches for
 * nothing: subscriptions end and the position is unavailable.
 */
export class PayinContextFeed {
  private readonly listener: NotificationListener;
  private readonly subscribers = new Set<Subscriber>();
  private feedId = "";
  private sequence = 0n;
  private live = false;

  constructor(options: PayinContextFeedOptions) {
    this.listener = listenForNotifications({
      url: options.url,
      channel: PAYIN_CONTEXT_CHANNEL,
      applicationName: options.applicationName ?? "merchants: payin context feed",
      retryMs: options.retryMs,
      onNotification: (payload) => this.announce(payload),
      onListening: () => {
        this.feedId = randomBytes(9).toString("base64url");
        this.sequence = 0n;
        this.live = true;
        options.onListening?.();
      },
      onLost: (error, first) => {
        this.live = false;
        this.endAll(new FeedUnavailableError(`the pay-in context feed was interrupted: ${error.message}`));
        options.onLost?.(error, first);
      },
    });
  }

  /**
   * The feed id and the sequence number of its last change, every change
   * committed before the call included (one round trip on the listening
   * session, shared by the calls of one turn).
   */
  async position(): Promise<{ feedId: string; sequence: bigint }> {
    const feedId = this.feedId;
    if (!this.live || !(await this.listener.sync()) || !this.live || feedId !== this.feedId) throw new FeedUnavailableError();
    return { feedId, sequence: this.sequence };
  }

  /** The feed's events from now on, `synced` first, until `signal` aborts or the feed is interrupted (then it throws FeedUnavailableError). */
  async *subscribe(signal: AbortSignal): AsyncGenerator<FeedEvent> {
    if (!this.live) throw new FeedUnavailableError();
    const subscriber: Subscriber = { queue: [{ kind: "synced", feedId: this.feedId, sequence: this.sequence }], wake: undefined, error: undefined };
    const wake = () => subscriber.wake?.();
    this.subscribers.add(subscriber);
    signal.addEventListener("abort", wake);
    try {
      for (;;) {
        while (subscriber.queue.length > 0) {
          if (signal.aborted) return;
          yield subscriber.queue.shift()!;
        }
        if (subscriber.error) throw subscriber.error;
        if (signal.aborted) return;
        await new Promise<void>((resolve) => (subscriber.wake = resolve));
        subscriber.wake = undefined;
      }
    } finally {
      signal.removeEventListener("abort", wake);
      this.subscribers.delete(subscriber);
    }
  }

  /** Stops listening and ends every subscription. */
  async close(): Promise<void> {
    this.live = false;
    await this.listener.close();
    this.endAll(new FeedUnavailableError("the merchants service is stopping"));
  }

  private announce(payload: string): void {
    if (!this.live) return;
    this.sequence++;
    const event: FeedEvent = { kind: "change", sequence: this.sequence, merchantUuid: isUuid(payload) ? payload : null };
    for (const subscriber of this.subscribers) {
      if (subscriber.error) continue;
      if (subscriber.queue.length >= MAX_QUEUED) {
        this.end(subscriber, new FeedUnavailableError("the subscriber fell too far behind the pay-in context feed"));
        continue;
      }
      subscriber.queue.push(event);
      subscriber.wake?.();
    }
  }

  private endAll(error: Error): void {
    for (const subscriber of this.subscribers) this.end(subscriber, error);
  }

  private end(subscriber: Subscriber, error: Error): void {
    subscriber.error ??= error;
    subscriber.wake?.();
  }
}
