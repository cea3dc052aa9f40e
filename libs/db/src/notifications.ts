import pg from "pg";

/**
 * The channel on which the merchants schema announces changes to what a
 * merchant's pay-in context is made of (status, rules, payin policy, operating
 * profile). Payload: the merchant's uuid (lower case), or `*` for every
 * merchant. Sent by triggers of the merchants schema; payins listens to drop
 * the contexts it caches.
 */
export const PAYIN_CONTEXT_CHANNEL = "merchants_payin_context";

/** What a listener reports; every callback runs on the caller's event loop and must not throw. */
export interface NotificationHandlers {
  /** A notification on the channel, with its payload. */
  onNotification(payload: string): void;
  /**
   * LISTEN is in effect (at start, and again after a reconnect): every
   * notification committed from now on arrives. Any committed while no
   * connection listened were missed.
   */
  onListening(): void;
  /** The connection is gone: notifications are missed until the next onListening. */
  onLost(error: Error): void;
}

export interface ListenOptions extends NotificationHandlers {
  /** PostgreSQL connection URL. */
  url: string;
  /** A channel name: lower-case letters, digits and underscores. */
  channel: string;
  /** Wait before connecting again after a failure (default 1 s). */
  retryMs?: number;
  /** Sets `application_name`, to tell the connection apart in pg_stat_activity. */
  applicationName?: string;
}

export interface NotificationListener {
  /**
   * Catches up: resolves true once every notification committed before the
   * call has been passed to onNotification, false when that cannot be known
   * (not listening at the moment, or the connection failed meanwhile). Calls
   * made in one turn of the event loop share one round trip.
   */
  sync(): Promise<boolean>;
  /** Stops listening and closes the connection; no callback runs after it resolves. */
  close(): Promise<void>;
}

const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Listens on a PostgreSQL channel on a connection of its own (LISTEN needs a
 * session; a pooled connection would lose it), connecting again after any
 * failure. Callers that keep state derived from notifications must treat
 * onLost as "anything may have changed" and trust notifications again only
 * after onListening.
 *
 * Why `sync` works: a committing transaction queues its notifications and
 * signals the listening sessions before its client hears of the commit, and a
 * listening session that was signalled delivers what is queued before it
 * answers its next query (at the latest before ReadyForQuery, which is what
 * resolves a query here). So once a query sent after the commit was answered,
 * the notification has passed through onNotification.
 */
export function listenForNotifications(options: ListenOptions): NotificationListener {
  if (!CHANNEL_NAME.test(options.channel)) throw new Error(`not a channel name: ${options.channel}`);
  const retryMs = options.retryMs ?? 1_000;
  let closed = false;
  let client: pg.Client | undefined;
  /** The client while LISTEN is in effect on it. */
  let live: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  /** The round trip the calls of this turn share; sent once they have all asked. */
  let pendingSync: Promise<boolean> | undefined;

  const connect = async (): Promise<void> => {
    const current = new pg.Client({ connectionString: options.url, application_name: options.applicationName, keepAlive: true });
    client = current;
    let lost = false;
    const lose = (error: Error) => {
      if (lost) return;
      lost = true;
      if (live === current) live = undefined;
      current.removeAllListeners("notification");
      current.end().catch(() => {});
      if (closed) return;
      options.onLost(error);
      retry = setTimeout(() => void connect(), retryMs);
      retry.unref();
    };
    current.on("error", lose);
    current.on("end", () => lose(new Error("the connection closed")));
    current.on("notification", (message) => {
      if (message.channel === options.channel) options.onNotification(message.payload ?? "");
    });
    try {
      await current.connect();
      await current.query(`listen ${options.channel}`);
    } catch (error) {
      lose(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (lost || closed) return;
    live = current;
    options.onListening();
  };

  const roundTrip = async (): Promise<boolean> => {
    const current = live;
    if (!current) return false;
    try {
      // An empty query: the least a session can answer, and it answers only when ready.
      await current.query("");
    } catch {
      return false;
    }
    // Still the same listening session: nothing was missed in between.
    return live === current;
  };

  void connect();
  return {
    sync() {
      if (!pendingSync) {
        // Sent in a microtask, after every caller of this turn asked: a round
        // trip shared with a later caller would not prove its commits arrived.
        pendingSync = new Promise<void>((resolve) => queueMicrotask(resolve)).then(() => {
          pendingSync = undefined;
          return roundTrip();
        });
      }
      return pendingSync;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
