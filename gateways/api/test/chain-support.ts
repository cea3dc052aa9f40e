/**
 * Helpers of the tests that pay intents with real transfers on the local
 * chains and read them back over the API: waiting on the observer, creating
 * and reading a merchant's intents, paying them.
 */
import { mineBlocks, transferToken, type LocalChains, type LocalRail } from "@payin/local-chains";
import type { TestMerchant } from "@payin/testing";
import type { Address, Hex } from "viem";
import { expect } from "vitest";
import { createBody, type Api } from "./support.js";

/** Polls `read` until `done` holds of its value; fails naming `what`, with the last value, after `timeoutMs`. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value).slice(0, 2_000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What these tests need of an intent as created. */
export interface ChainIntent {
  intent_uuid: string;
  address: Address;
}

/** A merchant's pay-ins on the local chains, through the API with its machine token. */
export class ChainMerchant {
  constructor(
    private readonly api: Api,
    readonly merchant: TestMerchant,
    private readonly chains: LocalChains,
  ) {}

  /** Creates an intent (the create body's defaults, changed by `overrides`); fails the test unless 201. */
  async createIntent<T extends ChainIntent>(overrides: Record<string, unknown> = {}): Promise<T> {
    const res = await this.api.create(this.merchant.uuid, this.merchant.token, createBody(overrides));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as T;
  }

  async statusOf(intent: ChainIntent): Promise<string> {
    const res = await this.api.read(this.merchant.uuid, this.merchant.token, intent.intent_uuid);
    expect(res.status).toBe(200);
    return res.body.status as string;
  }

  /** Sends `amount` (token units) from the funded payer; resolves with the transaction once mined. */
  pay(local: LocalRail, asset: "usdt" | "usdc", to: Address, amount: string): Promise<Hex> {
    return transferToken(local, this.chains.payer, asset, to, amount);
  }

  /** Waits for the observer to have armed the intent (awaiting_payment), mining a block for it to read. */
  async armed(intent: ChainIntent, local: LocalRail, timeoutMs?: number): Promise<void> {
    await mineBlocks(local, 1);
    await eventually(() => this.statusOf(intent), (s) => s === "awaiting_payment", "the intent to await payment", timeoutMs);
  }
}
