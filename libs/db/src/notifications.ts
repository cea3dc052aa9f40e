import net from "node:net";
import pg from "pg";

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
  /**
   * Notifications may be missed from now on (the connection failed, or a
   * reconnect attempt did), until the next onListening. Called on every
   * failure: `first` is true on the first one after listening (or of the
   * first attempt), false on the failed retries that follow it.
   */
  onLost(error: Error, first: boolean): void;
}

/** Runs a query on the listening session (for `verify`). */
export type SessionQuery = (text: string) => Promise<Record<string, unknown>[]>;

export interface ListenOptions extends NotificationHandlers {
  /** PostgreSQL connection URL: a direct or session-pooled connection (LISTEN needs its own session). */
  url: string;
  /** A channel name: lower-case letters, digits and underscores. */
  channel: string;
  /** Wait before connecting again after a failure (default 1 s). */
  retryMs?: number;
  /**
   * Longest wait for a sync round trip (default 500 ms): past it, sync answers
   * false, so a connection that stopped answering never holds up the callers.
   */
  syncTimeoutMs?: number;
  /**
   * A round trip still unanswered this long (default 5 s) drops the connection,
   * which is then made again; so does a connect, LISTEN and `verify` taking
   * longer. Longer than syncTimeoutMs: a stall of this process (its timers run
   * before it reads sockets) must not cost the connection.
   */
  dropAfterMs?: number;
  /** Sets `application_name`, to tell the connection apart in pg_stat_activity. */
  applicationName?: string;
  /**
   * Checked on the session after LISTEN and before onListening: throws (with
   * the reason) when the notifications cannot be trusted to be sent, e.g. the
   * triggers sending them are missing; the listener then counts as lost and
   * tries again later.
   */
  verify?: (query: SessionQuery) => Promise<void>;
}

export interface NotificationListener {
  /**
   * Catches up: resolves true once every notification committed before the
   * call has been passed to onNotification, false when that cannot be known
   * (not listening at the moment, the session changed, the round trip failed
   * or took longer than `syncTimeoutMs`). Calls made before the round trip is
   * sent (in the same synchronous run and its microtasks) share it; later ones
   * get their own.
   */
  sync(): Promise<boolean>;
  /** Stops listening and closes the connection; no callback runs after it resolves. */
  close(): Promise<void>;
}

const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** TCP keepalive probes start after this much silence, so a vanished peer is noticed in about a minute, not two hours. */
const KEEPALIVE_DELAY_MS = 10_000;

/** Query the round trip sends: it also names the server process, so a pooler switching sessions is noticed. */
const SESSION_PID = "select pg_backend_pid() as pid";

/** A client whose socket this module holds (pg's `stream` option), so it can be cut. */
interface CuttableClient {
  client: pg.Client;
  socket: net.Socket;
}

function cuttableClient(config: pg.ClientConfig): CuttableClient {
  const socket = new net.Socket();
  return { client: new pg.Client({ ...config, stream: () => socket }), socket };
}

/** Ends a client at once: its socket is destroyed, so nothing waits for the server. */
function cut({ client, socket }: CuttableClient): void {
  socket.destroy();
  client.end().catch(() => {});
}

/**
 * Listens on a PostgreSQL channel on a connection of its own (LISTEN needs a
 * session; a pooled connection would lose it), connecting again after any
 * failure. Callers that keep state derived from notifications must treat
 * onLost as "anything may have changed" and trust notifications again only
 * after onListening.
 *
 * Why `sync` works (PostgreSQL 15 to 18; an implementation property, not a
 * documented one, so re-check it on a major upgrade): a committing transaction
 * queues its notifications and signals the listening sessions before its
 * client hears of the commit, and a listening session that was signalled
 * delivers what is queued before it answers its next query (at the latest
 * before ReadyForQuery, which is what resolves a query here). So once a query
 * sent after the commit was answered on the listening session itself (same
 * server process as at LISTEN), the notification has passed through
 * onNotification.
 */
export function listenForNotifications(options: ListenOptions): NotificationListener {
  if (!CHANNEL_NAME.test(options.channel)) throw new Error(`not a channel name: ${options.channel}`);
  const retryMs = options.retryMs ?? 1_000;
  const syncTimeoutMs = options.syncTimeoutMs ?? 500;
  const dropAfterMs = Math.max(options.dropAfterMs ?? 5_000, syncTimeoutMs);
  let closed = false;
  let client: CuttableClient | undefined;
  /** The client while LISTEN is in effect on it, with the server process it listens in. */
  let live: { client: pg.Client; pid: number; drop: (error: Error) => void } | undefined;
  /** Whether the outage under way was already reported. */
  let reported = false;
  let retry: NodeJS.Timeout | undefined;
  /** The round trip the callers so far share; sent once they have all asked. */
  let pendingSync: Promise<boolean> | undefined;

  const connect = async (): Promise<void> => {
    const held = cuttableClient({
      connectionString: options.url,
      application_name: options.applicationName,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
      connectionTimeoutMillis: dropAfterMs,
    });
    const current = held.client;
    client = held;
    let lost = false;
    const lose = (error: Error) => {
      if (lost) return;
      lost = true;
      if (live?.client === current) live = undefined;
      current.removeAllListeners("notification");
      cut(held);
      if (closed) return;
      options.onLost(error, !reported);
      reported = true;
      retry = setTimeout(() => void connect(), retryMs);
      retry.unref();
    };
    current.on("error", lose);
    current.on("end", () => lose(new Error("the connection closed")));
    current.on("notification", (message) => {
      if (message.channel === options.channel) options.onNotification(message.payload ?? "");
    });
    let pid: number;
    // Connecting, LISTEN and the check must finish in time too: a server or
    // pooler that accepts and then never answers would leave nobody listening.
    const stalled = setTimeout(() => lose(new Error(`connecting and listening took longer than ${dropAfterMs} ms`)), dropAfterMs);
    try {
      await current.connect();
      // One query: LISTEN and the pid come from the same server process.
      const results = (await current.query(`listen ${options.channel}; ${SESSION_PID}`)) as unknown as pg.QueryResult[];
      pid = Number(results[1]?.rows[0]?.pid);
      await options.verify?.(async (text) => (await current.query(text)).rows);
    } catch (error) {
      lose(error instanceof Error ? error : new Error(String(error)));
      return;
    } finally {
      clearTimeout(stalled);
    }
    if (lost || closed) return;
    live = { client: current, pid, drop: lose };
    reported = false;
    options.onListening();
  };

  const roundTrip = async (): Promise<boolean> => {
    const session = live;
    if (!session) return false;
    let settled = false;
    const answer = session.client.query(SESSION_PID).finally(() => (settled = true));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), syncTimeoutMs);
    });
    try {
      const result = await Promise.race([answer, timedOut]);
      if (result === "timeout") {
        // Answer false now; drop the connection only if it is still silent later.
        answer.catch(() => {});
        const watchdog = setTimeout(() => {
          if (!settled) session.drop(new Error(`the listening connection did not answer within ${dropAfterMs} ms`));
        }, dropAfterMs - syncTimeoutMs);
        watchdog.unref();
        return false;
      }
      if (Number(result.rows[0]?.pid) !== session.pid) {
        session.drop(new Error("the listening connection answered from another server process (a transaction pooler?); LISTEN needs a session of its own"));
        return false;
      }
      return live === session;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  };

  void connect();
  return {
    sync() {
      if (!pendingSync) {
        // Sent in a microtask, after every caller of this run asked: a round
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
      live = undefined;
      clearTimeout(retry);
      // Nothing is left to send: cut the socket rather than wait for a polite
      // goodbye that a stalled server would never answer.
      if (client) cut(client);
    },
  };
}
