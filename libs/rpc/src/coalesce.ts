import { currentContext, runWithContext, runWithoutContext, type RequestContext } from "./context.js";

export interface CoalesceOptions {
  /** Most keys in one batch; a batch that fills up is sent at once. */
  maxBatch: number;
  /**
   * Most batches running at once (default: no bound). Calls made while that many
   * run wait, and go together in the next batch as soon as one finishes: the
   * busier the loader, the larger its batches. With 1, batches of a loader that
   * queues on one lock (a merchant's counter row) run one after the other
   * instead of queueing in the database, one connection each.
   */
  inFlight?: number;
  /**
   * Milliseconds a batch may wait for more calls while another batch of this
   * loader runs (default 0: it leaves at the end of its turn). Under load the
   * calls that follow a finished batch arrive over a few turns; without a wait
   * the first of them leaves almost alone and holds a place of `inFlight` for a
   * whole round trip while the rest queue behind it. Nothing waits when no batch
   * runs, so a call made alone is sent as before; a full batch leaves at once, and
   * a waiting one as soon as a running batch ends.
   */
  linger?: number;
}

interface Pending<K, V> {
  key: K;
  context: RequestContext | undefined;
  resolve: (value: V) => void;
  reject: (error: unknown) => void;
}

/**
 * Turns single calls into batched ones: every call made in the same turn of the
 * event loop (the requests whose bytes one poll of the sockets delivered) joins
 * one batch, sent when that turn ends (`setImmediate`) or when it holds
 * `maxBatch` keys. Under load one call then carries many requests, so a hop's
 * fixed cost (HTTP exchange, wake-ups, one SQL statement) is paid once for all
 * of them; a call made alone waits for nothing but the end of its turn (and,
 * with `inFlight`, for a running batch to finish).
 *
 * `loadBatch` answers the keys in order, one value each. If it fails, or answers
 * a different number of values, every call of the batch fails with that error.
 * A batch of one runs in its caller's request context (its request id travels
 * on); a larger batch runs in none, since it serves several requests.
 */
export function coalesce<K, V>(loadBatch: (keys: K[]) => Promise<V[]>, options: CoalesceOptions): (key: K) => Promise<V> {
  return batcher(loadBatch, options);
}

/**
 * coalesce() per group: keys of different groups never share a batch, and
 * `inFlight` bounds each group's batches on its own (one merchant's busy counter
 * does not hold up another's). A group's batcher is dropped when it has nothing
 * running or waiting, so idle groups cost nothing.
 */
export function coalesceByGroup<K, V>(
  groupOf: (key: K) => string,
  loadBatch: (group: string, keys: K[]) => Promise<V[]>,
  options: CoalesceOptions,
): (key: K) => Promise<V> {
  const groups = new Map<string, (key: K) => Promise<V>>();
  return (key: K) => {
    const group = groupOf(key);
    let call = groups.get(group);
    if (!call) {
      const own = batcher((keys: K[]) => loadBatch(group, keys), options, () => {
        if (groups.get(group) === own) groups.delete(group);
      });
      groups.set(group, (call = own));
    }
    return call(key);
  };
}

function batcher<K, V>(
  loadBatch: (keys: K[]) => Promise<V[]>,
  options: CoalesceOptions,
  onIdle?: () => void,
): (key: K) => Promise<V> {
  if (!Number.isInteger(options.maxBatch) || options.maxBatch < 1) throw new RangeError("maxBatch must be a positive integer");
  const inFlight = options.inFlight ?? Infinity;
  if (inFlight !== Infinity && (!Number.isInteger(inFlight) || inFlight < 1)) throw new RangeError("inFlight must be a positive integer");
  const linger = options.linger ?? 0;
  if (!Number.isFinite(linger) || linger < 0) throw new RangeError("linger must be a non-negative number of milliseconds");
  let pending: Pending<K, V>[] = [];
  /** The end of the current turn (setImmediate) or of a linger (setTimeout), whichever was set. */
  let scheduled: { cancel: () => void } | undefined;
  let running = 0;

  const settled = () => {
    running -= 1;
    if (pending.length > 0) flush();
    else if (running === 0) onIdle?.();
  };

  const flush = () => {
    scheduled?.cancel();
    scheduled = undefined;
    while (pending.length > 0 && running < inFlight) {
      const batch = pending.length > options.maxBatch ? pending.splice(0, options.maxBatch) : pending;
      if (batch === pending) pending = [];
      running += 1;
      // A loader that throws instead of rejecting fails its batch, not the process.
      const run = () => Promise.resolve().then(() => loadBatch(batch.map((p) => p.key)));
      const loaded = batch.length === 1 && batch[0]!.context ? runWithContext(batch[0]!.context, run) : runWithoutContext(run);
      loaded
        .then(
          (values) => {
            if (values.length !== batch.length) {
              const error = new Error(`a batch of ${batch.length} was answered with ${values.length} values`);
              for (const p of batch) p.reject(error);
              return;
            }
            batch.forEach((p, i) => p.resolve(values[i]!));
          },
          (error: unknown) => {
            for (const p of batch) p.reject(error);
          },
        )
        .finally(settled);
    }
  };

  const schedule = (ms: number): { cancel: () => void } => {
    if (ms > 0) {
      const timer = setTimeout(flush, ms);
      return { cancel: () => clearTimeout(timer) };
    }
    const immediate = setImmediate(flush);
    return { cancel: () => clearImmediate(immediate) };
  };

  return (key: K) =>
    new Promise<V>((resolve, reject) => {
      pending.push({ key, context: currentContext(), resolve, reject });
      if (running >= inFlight) return; // the next batch leaves when a running one ends
      if (pending.length >= options.maxBatch) flush();
      else scheduled ??= runWithoutContext(() => schedule(running > 0 ? linger : 0));
    });
}
