/**
 * Checkout creation is rate limited per identity (here 3 per window, set for
 * the platform), and a started checkout whose deadline passed unpaid reads as
 * expired for payment (here a payment window of one minute, the shortest).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { payinsV1 } from "@payin/proto";
import { checkoutCount, checkoutForm, setObserverCursors, signInFor, textOf } from "./merchant-support.js";
import { csrfTokenIn, eventually, merchantPerson, readyMerchant, textOfHtml, useCheckoutPlatform } from "./support.js";

const e2e = useCheckoutPlatform({ env: { RATE_LIMIT_CHECKOUT_CREATE: "3", CHECKOUT_PAYMENT_WINDOW_S: "60" } });

beforeEach(async () => {
  await setObserverCursors(e2e.platform, { bep20: new Date(), erc20: new Date() });
});

describe("merchant checkout creation limit", () => {
  it("answers 429 with Retry-After past the limit per identity, creating nothing; another person is not held back", async () => {
    const merchant = await readyMerchant(e2e, "Limited Linens");
    const first = await signInFor(e2e, await merchantPerson(e2e, [merchant.uuid]));
    const second = await signInFor(e2e, await merchantPerson(e2e, [merchant.uuid]));
    const csrf = csrfTokenIn((await first.get("/merchant/checkouts/new")).text);
    for (let i = 1; i <= 3; i++) expect((await first.post("/merchant/checkouts/new", checkoutForm(csrf, { reference: `L-${i}` }))).status).toBe(201);
    const limited = await first.post("/merchant/checkouts/new", checkoutForm(csrf, { reference: "L-4" }));
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(textOfHtml(limited.text)).toContain(`Please wait ${retryAfter} seconds`);
    expect(limited.text).not.toMatch(/\/c\/[A-Za-z0-9_-]{43}/);
    expect(await checkoutCount(e2e, merchant.uuid)).toBe(3);

    const otherCsrf = csrfTokenIn((await second.get("/merchant/checkouts/new")).text);
    expect((await second.post("/merchant/checkouts/new", checkoutForm(otherCsrf, { reference: "OTHER" }))).status).toBe(201);
    expect(await checkoutCount(e2e, merchant.uuid)).toBe(4);
  });

  it("shows a started checkout whose deadline passed unpaid as expired for payment, its pay-in unchanged", async () => {
    const merchant = await readyMerchant(e2e, "Late Lanterns");
    const client = await signInFor(e2e, await merchantPerson(e2e, [merchant.uuid]));
    const created = await e2e.payins.createCheckoutSession({ merchantUuid: merchant.uuid, description: "Lantern", amount: "3", pairs: [{ asset: "usdc", rail: "erc20" }], jurisdiction: "DE" });
    const { intent } = await e2e.payins.startCheckout({ token: created.token });
    const row = async () => textOf((await client.get("/merchant/checkouts")).text, `checkout-${created.session!.checkoutUuid}`);
    expect(await row()).toContain("Started: awaiting payment");
    const expired = await eventually(row, (text) => text.includes("Expired for payment"), "the deadline to pass", 120_000, 1_000);
    expect(expired).toContain(intent!.address!);
    // Presentation only: the pay-in and the session are as they were.
    const { intent: after } = await e2e.payins.getPayInIntent({ merchantUuid: merchant.uuid, intentUuid: intent!.intentUuid });
    expect(after!.status).toBe(intent!.status);
    const { session } = await e2e.payins.getCheckoutSession({ merchantUuid: merchant.uuid, checkoutUuid: created.session!.checkoutUuid });
    expect(session!.state).toBe(payinsV1.CheckoutState.STARTED);
  }, 180_000);
});
