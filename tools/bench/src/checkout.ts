/**
 * The checkout group's set-up and checks: hosted checkouts created and started
 * over payins' RPC (as the `test` caller), so that each has its pay-in intent,
 * and the status answer the windows rely on, checked once before them.
 */
import type { payinsV1 } from "@payin/proto";
import type { createServiceClient } from "@payin/rpc";

/** Started checkouts the status poll and the payer page rotate over. */
export const CHECKOUT_SESSIONS = 1_000;
/** Creates and starts in flight at once while setting up. */
const SETUP_CONCURRENCY = 10;
/** The one pair every bench checkout offers (so a start needs no choice). */
const PAIR = { asset: "usdt", rail: "bep20" } as const;

/**
 * The public routes' limits for the run: the most the gateway accepts
 * (RATE_LIMIT_PUBLIC_PER_* ≤ 1,000,000), so that 50 connections from one
 * address over 1,000 tokens never meet them (a real payer's page polls once
 * every few seconds), counted in memory (REDIS_URL empty).
 */
export const CHECKOUT_ENV = {
  RATE_LIMIT_PUBLIC_PER_IP: "1000000",
  RATE_LIMIT_PUBLIC_PER_TOKEN: "1000000",
  RATE_LIMIT_WINDOW_S: "60",
  REDIS_URL: "",
} as const;

type PayinsClient = ReturnType<typeof createServiceClient<typeof payinsV1.PayinsService>>;

/** Runs `task` for 0 … count − 1, `concurrency` at a time; resolves with the results in order. */
async function inPool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}

/**
 * Creates `count` checkouts of `merchantUuid` (one pair, amounts and
 * references varied) and starts each, as a payer's first start does: every one
 * then has its pay-in intent (an address allocated, a deadline one payment
 * window away). Resolves with their tokens.
 */
export async function startedCheckouts(payins: PayinsClient, merchantUuid: string, jurisdiction: string, count = CHECKOUT_SESSIONS): Promise<string[]> {
  return inPool(count, SETUP_CONCURRENCY, async (i) => {
    const { token } = await payins.createCheckoutSession({
      merchantUuid,
      amount: `${10 + (i % 1000)}.25`,
      pairs: [PAIR],
      jurisdiction,
      description: `Bench order ${i}`,
      reference: `bench-checkout-${i}`,
    });
    const started = await payins.startCheckout({ token, pair: PAIR });
    if (!started.intent?.intentUuid) throw new Error(`starting bench checkout ${i} answered no intent`);
    return token;
  });
}

/**
 * Checks that the windows measure what they say: a status poll of a started,
 * unpaid checkout answers 200 with `paid` false and `awaiting_payment`, and its
 * payer page answers 200 with the payment view (the deposit address shown).
 * Throws with the answer otherwise.
 */
export async function checkCheckoutAnswers(checkoutUrl: string, token: string): Promise<void> {
  const status = await fetch(`${checkoutUrl}/c/${token}/status`);
  const text = await status.text();
  let body: { paid?: unknown; presentation_state?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // reported below with the text
  }
  if (status.status !== 200 || body.paid !== false || body.presentation_state !== "awaiting_payment") {
    throw new Error(`checkout status answered ${status.status}: ${text.slice(0, 300)} (expected 200, paid false, presentation_state awaiting_payment)`);
  }
  const page = await fetch(`${checkoutUrl}/c/${token}`);
  const html = await page.text();
  if (page.status !== 200 || !(page.headers.get("content-type") ?? "").startsWith("text/html") || !html.includes('id="address"')) {
    throw new Error(`checkout page answered ${page.status} (${page.headers.get("content-type")}): ${html.slice(0, 300)}`);
  }
}

/** The lower middle of the values (the median of an odd count). */
export function lowerMedian(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}
