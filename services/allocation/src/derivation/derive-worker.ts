import { parentPort } from "node:worker_threads";
import { deriveAddress, type DerivedAddress } from "../domain/hd.js";
import type { DeriveRequest, DeriveResponse } from "./worker-deriver.js";

// The worker thread of WorkerDeriver: derives the ranges it is sent, one at a
// time, and answers each with its addresses or the reason it could not.
parentPort!.on("message", ({ id, xpub, from, to }: DeriveRequest) => {
  let response: DeriveResponse;
  try {
    const addresses: DerivedAddress[] = [];
    for (let index = from; index < to; index++) addresses.push(deriveAddress(xpub, index));
    response = { id, addresses };
  } catch (error) {
    response = { id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(response);
});
