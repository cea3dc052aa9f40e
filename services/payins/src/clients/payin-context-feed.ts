import type { Client } from "@connectrpc/connect";
import type { merchantsV1 } from "@payin/proto";
import { coalesce } from "@payin/rpc";

/** What the feed drives: PayinContextCache's `changed`, `listening` and `lost`. */
export interface FeedFollowerTarget {
  /** A merchant's uuid, or `*` for every merchant. */
  changed(payload: string): void;
  listening(): void;
  lost(): void;
}

export interface FollowFeedOptions {
  merchants: Pick<Client<typeof merchantsV1.MerchantsService>, "watchPayinContextChanges" | "getPayinContextFeedPosition">;
  target: FeedFollowerTarget;
  /** Wait before following again after the stream ended or failed (default 1 s). */
  retryMs?: number;
  /** Longest a catch-up waits, the position call included (default 500 ms); past it, it answers false. */
  catchUpTimeoutMs?: number;
  /**
   * A stream that has still not delivered a position this long after it was
   * asked for (default 5 s) is dropped and followed again: a stream that stopped
   * delivering would otherwise cost every batch its wait.
   */
  dropAfterMs?: number;
  /** The stream is synced: changes arrive from now on (again, after an outage). */
  onFollowing?: () => void;
  /** The stream ended or could not be opened; `first`: the first failure since it was last synced. */
  onLost?: (error: Error, first: boolean) => void;
  /** A catch-up's position call failed (the lookup then goes to merchants; startService logs it, once per cause). */
  onCatchUpFailed?: (error: unknown) => void;
}

export interface FeedFollower {
  /**
   * Resolves true once every change to a pay-in context committed before the
   * call has been passed to the target, false when that cannot be known in
   * time (not following, merchants unreachable, the stream behind). Calls of
   * one turn (a batch of creates) share one position call, and one call runs
   * at a time: calls made while it runs share the next, sent when it returns.
   */
  catchUp(): Promise<boolean>;
  /** Stops following; nothing is passed to the target after it resolves. */
  close(): Promise<void>;
}

/**
 * Follows merchants' feed of changes to pay-in contexts
 * (WatchPayinContextChanges) into `target`, following again after any failure,
 * and catches up with it on demand (GetPayinContextFeedPosition). Relies on
 * the RPC contract alone: merchants' database may be another one.
 */
export function followPayinContextFeed(options: FollowFeedOptions): FeedFollower {
  const retryMs = options.retryMs ?? 1_000;
  const catchUpTimeoutMs = options.catchUpTimeoutMs ?? 500;
  const dropAfterMs = Math.max(options.dropAfterMs ?? 5_000, catchUpTimeoutMs);
  let closed = false;
  /** The stream under way, once synced: its feed and the last sequence number it delivered. */
  let live: { feedId: string; sequence: bigint; drop: (error: Error) => void } | undefined;
  /** Catch-ups waiting for the live stream to deliver a sequence number. */
  let waiting: { sequence: bigint; resolve: (reached: boolean) => void }[] = [];
  let abort: AbortController | undefined;
  let retry: NodeJS.Timeout | undefined;
  let reported = false;

  const settleWaiting = (reachedUpTo: bigint | undefined) => {
    waiting = waiting.filter((w) => {
      if (reachedUpTo === undefined) w.resolve(false);
      else if (w.sequence <= reachedUpTo) w.resolve(true);
      else return true;
      return false;
    });
  };

  const follow = async (): Promise<void> => {
    const controller = new AbortController();
    abort = controller;
    let failure: Error = new Error("the pay-in context feed ended");
    const drop = (error: Error) => {
      failure = error;
      controller.abort(error);
    };
    try {
      const stream = options.merchants.watchPayinContextChanges({}, { signal: controller.signal, timeoutMs: 0 });
      for await (const message of stream) {
        if (closed || controller.signal.aborted) break;
        const event = message.event;
        if (event.case === "synced") {
          if (live) throw new Error("the pay-in context feed synced twice on one stream");
          live = { feedId: event.value.feedId, sequence: event.value.sequence, drop };
          reported = false;
          options.target.listening();
          options.onFollowing?.();
        } else if (event.case === "change") {
          if (!live) throw new Error("the pay-in context feed sent a change before it synced");
          if (event.value.sequence !== live.sequence + 1n) {
            throw new Error(`the pay-in context feed skipped from ${live.sequence} to ${event.value.sequence}`);
          }
          options.target.changed(event.value.merchantUuid || "*");
          live.sequence = event.value.sequence;
          settleWaiting(live.sequence);
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) failure = error instanceof Error ? error : new Error(String(error));
    }
    controller.abort();
    live = undefined;
    settleWaiting(undefined);
    if (closed) return;
    options.target.lost();
    options.onLost?.(failure, !reported);
    reported = true;
    retry = setTimeout(() => void follow(), retryMs);
    retry.unref();
  };

  /** One catch-up: the position merchants has announced up to, then the stream up to it. */
  const catchUp = async (): Promise<boolean> => {
    const session = live;
    if (!session) return false;
    const deadline = performance.now() + catchUpTimeoutMs;
    let position: merchantsV1.GetPayinContextFeedPositionResponse;
    try {
      position = await options.merchants.getPayinContextFeedPosition({}, { timeoutMs: catchUpTimeoutMs });
    } catch (error) {
      options.onCatchUpFailed?.(error);
      return false;
    }
    if (live !== session || position.feedId !== session.feedId) return false;
    if (session.sequence >= position.sequence) return true;
    const left = deadline - performance.now();
    if (left <= 0) return false;
    let timer: NodeJS.Timeout | undefined;
    const reached = await new Promise<boolean>((resolve) => {
      const wait = { sequence: position.sequence, resolve };
      waiting.push(wait);
      timer = setTimeout(() => {
        waiting = waiting.filter((w) => w !== wait);
        resolve(false);
      }, left);
    });
    clearTimeout(timer);
    if (!reached && live === session) {
      // Answer false now; drop the stream only if it is still behind later.
      const watchdog = setTimeout(() => {
        if (live === session && session.sequence < position.sequence) {
          session.drop(new Error(`the pay-in context feed did not deliver a change within ${dropAfterMs} ms`));
        }
      }, dropAfterMs - catchUpTimeoutMs);
      watchdog.unref();
    }
    return reached && live === session;
  };

  // A position call is sent after every caller it answers had asked (a position
  // asked before a caller began would not prove its changes arrived): at the end
  // of the callers' turn, or, while one runs, when it returns. Under load a create
  // batch's creates reach this over several turns; one call each would cost
  // merchants a round trip per create.
  const catchUpTogether = coalesce(
    async (callers: null[]) => {
      const reached = await catchUp();
      return callers.map(() => reached);
    },
    { maxBatch: Number.MAX_SAFE_INTEGER, inFlight: 1 },
  );

  void follow();
  return {
    catchUp: () => catchUpTogether(null),
    async close() {
      closed = true;
      clearTimeout(retry);
      abort?.abort();
      live = undefined;
      settleWaiting(undefined);
    },
  };
}
