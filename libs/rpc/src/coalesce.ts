import { currentContext, runWithContext, runWithoutContext, type RequestContext } from "./context.js";

export interface CoalesceOptions {
  /** Most keys in one batch; a batch that fills up is sent at once. */
  maxBatch: number;
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
 * of them; a call made alone waits for nothing but the end of its turn.
 *
 * `loadBatch` answers the keys in order, one value each. If it fails, or answers
 * a different number of values, every call of the batch fails with that error.
 * A batch of one runs in its caller's request context (its request id travels
 * on); a larger batch runs in none, since it serves several requests.
 */
export function coalesce<K, V>(loadBatch: (keys: K[]) => Promise<V[]>, options: CoalesceOptions): (key: K) => Promise<V> {
  if (!Number.isInteger(options.maxBatch) || options.maxBatch < 1) throw new RangeError("maxBatch must be a positive integer");
  let pending: Pending<K, V>[] = [];
  let scheduled: NodeJS.Immediate | undefined;

  const flush = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    // A loader that throws instead of rejecting fails its batch, not the process.
    const run = () => Promise.resolve().then(() => loadBatch(batch.map((p) => p.key)));
    const loaded = batch.length === 1 && batch[0]!.context ? runWithContext(batch[0]!.context, run) : runWithoutContext(run);
    loaded.then(
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
    );
  };

  return (key: K) =>
    new Promise<V>((resolve, reject) => {
      pending.push({ key, context: currentContext(), resolve, reject });
      if (pending.length >= options.maxBatch) flush();
      else scheduled ??= runWithoutContext(() => setImmediate(flush));
    });
}
