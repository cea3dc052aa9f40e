import { Worker } from "node:worker_threads";
import type { DerivedAddress } from "../domain/hd.js";
import { deriveRangeInline, type DeriveRange } from "../domain/wallet.js";

/** A range to derive, as posted to the worker. */
export interface DeriveRequest {
  id: number;
  xpub: string;
  from: number;
  to: number;
}

/** The worker's answer to one DeriveRequest. */
export type DeriveResponse = { id: number; addresses: DerivedAddress[] } | { id: number; error: string };

/** The thread failed (would not start, crashed, exited): not the range's fault. */
class ThreadFailure extends Error {}

/** After a thread failure, derive on the calling thread this long before trying a thread again. */
const THREAD_RETRY_MS = 30_000;

/**
 * Derives addresses in one worker thread, so that a pool top-up (a hundred or so
 * derivations) runs beside the event loop instead of stopping it while
 * allocations wait. The thread starts on first use. When it fails — it will not
 * start, or dies — the ranges it held and those asked for in the next 30 s are
 * derived on the calling thread instead (slower for the calls waiting, never
 * wrong), and `onError` is told once per failure.
 */
export class WorkerDeriver {
  private worker: Worker | undefined;
  private nextId = 1;
  private inlineUntil = 0;
  private readonly pending = new Map<number, { resolve: (a: DerivedAddress[]) => void; reject: (e: Error) => void }>();

  constructor(
    private readonly onError: (error: unknown) => void,
    /** The thread's entry module (tests point it elsewhere to make the thread fail). */
    private readonly entry: URL = new URL("./derive-worker.ts", import.meta.url),
  ) {}

  readonly deriveRange: DeriveRange = async (xpub, from, to) => {
    if (Date.now() < this.inlineUntil) return deriveRangeInline(xpub, from, to);
    try {
      return await this.inThread(xpub, from, to);
    } catch (error) {
      if (error instanceof ThreadFailure) return deriveRangeInline(xpub, from, to);
      throw error;
    }
  };

  private inThread(xpub: string, from: number, to: number): Promise<DerivedAddress[]> {
    return new Promise((resolve, reject) => {
      const worker = this.started();
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, xpub, from, to } satisfies DeriveRequest);
    });
  }

  /** Stops the thread; ranges still being derived fail. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    for (const waiter of this.pending.values()) waiter.reject(new Error("address derivation stopped"));
    this.pending.clear();
    await worker.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    // The thread loads TypeScript as the process does, through tsx; on Node 20 a
    // worker's entry module is loaded before `--import` hooks apply, so a small
    // script registers them and then imports the real entry.
    const tsx = JSON.stringify(import.meta.resolve("tsx/esm/api"));
    const entry = JSON.stringify(this.entry.href);
    const worker = new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}); })`, { eval: true });
    worker.unref(); // the server keeps the process alive, not this thread
    worker.on("message", (response: DeriveResponse) => {
      const waiter = this.pending.get(response.id);
      if (!waiter) return;
      this.pending.delete(response.id);
      if ("error" in response) waiter.reject(new Error(response.error));
      else waiter.resolve(response.addresses);
    });
    worker.on("error", (error) => this.fail(worker, error));
    worker.on("exit", (code) => this.fail(worker, new Error(`address derivation thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private fail(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.inlineUntil = Date.now() + THREAD_RETRY_MS;
    const failure = new ThreadFailure(error.message);
    for (const waiter of this.pending.values()) waiter.reject(failure);
    this.pending.clear();
    this.onError(error);
  }
}
