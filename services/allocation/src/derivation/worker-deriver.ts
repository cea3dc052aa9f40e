import { Worker } from "node:worker_threads";
import type { DerivedAddress } from "../domain/hd.js";
import type { DeriveRange } from "../domain/wallet.js";

/** A range to derive, as posted to the worker. */
export interface DeriveRequest {
  id: number;
  xpub: string;
  from: number;
  to: number;
}

/** The worker's answer to one DeriveRequest. */
export type DeriveResponse = { id: number; addresses: DerivedAddress[] } | { id: number; error: string };

/**
 * Derives addresses in one worker thread, so that a pool top-up (about a hundred
 * base-point multiplications) runs beside the event loop instead of stopping it
 * for tens of milliseconds while allocations wait. The thread starts on first use
 * and again after it dies; a death fails the ranges it was deriving (the pool
 * keeper retries on the next allocation).
 */
export class WorkerDeriver {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (a: DerivedAddress[]) => void; reject: (e: Error) => void }>();

  constructor(private readonly onError: (error: unknown) => void) {}

  readonly deriveRange: DeriveRange = (xpub, from, to) =>
    new Promise((resolve, reject) => {
      const worker = this.started();
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, xpub, from, to } satisfies DeriveRequest);
    });

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
    const entry = JSON.stringify(new URL("./derive-worker.ts", import.meta.url).href);
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
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
    this.onError(error);
  }
}
