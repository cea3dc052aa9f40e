import { describe, expect, it } from "vitest";
import type { Evidence } from "./evidence.js";
import { payerPage, qrChoice, stateOf, statusPayload, type CheckoutSnapshot, type IntentSnapshot, type PageInput } from "./payer-view.js";
import type { CheckoutPair } from "./presentation-state.js";

const USDT: CheckoutPair = { asset: "usdt", rail: "bep20" };
const USDC: CheckoutPair = { asset: "usdc", rail: "erc20" };
const now = new Date("2026-11-27T12:00:00.000Z");
const at = (s: number) => new Date(now.getTime() + s * 1000);
const ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const TOKEN = "A".repeat(43);
const BSC = { chainId: 56, contract: "0x55d398326f99059ff775485246999027b3197955", decimals: 18, minimum: "0.001" };

function snapshot(over: Partial<CheckoutSnapshot> = {}): CheckoutSnapshot {
  return {
    session: { state: "open", pairs: [USDT, USDC], amount: "25.5", description: "Order 42", reference: "inv-42", paymentWindowS: 1800 },
    intent: null,
    merchant: { displayName: "Shop", active: true },
    pairReady: () => true,
    now,
    ...over,
  };
}

function intent(over: Partial<IntentSnapshot> = {}): IntentSnapshot {
  return { status: "awaiting_payment", asset: "usdt", rail: "bep20", expectedAmount: "25.5", address: ADDRESS.toLowerCase(), expiresAt: at(1799.5), updatedAt: at(-10), ...over };
}

const started = (over: Partial<IntentSnapshot> = {}, extra: Partial<PageInput> = {}): PageInput => ({
  ...snapshot({ session: { ...snapshot().session, state: "started", pairs: [USDT] }, intent: intent(over) }),
  token: TOKEN,
  network: BSC,
  evidence: null,
  qr: "eip681",
  ...extra,
});

const open = (over: Partial<CheckoutSnapshot> = {}): PageInput => ({ ...snapshot(over), token: TOKEN, network: null, evidence: null, qr: "eip681" });

const transferOf = (amount: string): Evidence["transfers"][number] => ({
  asset: "usdt", rail: "bep20", txHash: "0xabc", blockTime: at(30), amount, state: "settled", late: false, wrongNetwork: false, wrongToken: false, dust: false, afterPaid: false, vanished: false, counts: true,
});

/** Evidence whose list holds every transfer unless `total` or `dustCount` say there are more. */
function evidence(over: Partial<Evidence> = {}): Evidence {
  const transfers = over.transfers ?? [];
  return {
    expectedAmount: "25.5", receivedAmount: "0", pendingAmount: "0", afterPaidAmount: "0",
    total: transfers.length, dustCount: transfers.filter((t) => t.dust).length, ...over, transfers,
  };
}

describe("statusPayload", () => {
  it("answers an open checkout of several pairs without a pair, deadline or address", () => {
    expect(statusPayload(snapshot())).toEqual({
      presentation_state: "select_method",
      description: "Order 42",
      merchant_display_name: "Shop",
      expected_amount: "25.5",
      expires_at: null,
      paid: false,
      expired_for_payment: false,
      asset: null,
      rail: null,
      address: null,
      pay_in_status: null,
    });
  });

  it("names the only pair before a start", () => {
    const one = snapshot({ session: { ...snapshot().session, pairs: [USDC], description: null } });
    expect(statusPayload(one)).toMatchObject({ presentation_state: "ready_to_start", asset: "usdc", rail: "erc20", description: null });
  });

  it("answers the started intent's pair, deadline, address and canonical status", () => {
    expect(statusPayload(started({ status: "created" }))).toEqual({
      presentation_state: "awaiting_payment",
      description: "Order 42",
      merchant_display_name: "Shop",
      expected_amount: "25.5",
      expires_at: "2026-11-27T12:29:59.500Z",
      paid: false,
      expired_for_payment: false,
      asset: "usdt",
      rail: "bep20",
      address: ADDRESS.toLowerCase(),
      pay_in_status: "created",
    });
    // The intent's pair, not the session's only one.
    const other = { ...started({ asset: "usdc", rail: "erc20" }) };
    expect(statusPayload(other)).toMatchObject({ asset: "usdc", rail: "erc20" });
  });

  it("is paid only when the canonical status is paid, and expired only unpaid after the deadline", () => {
    expect(statusPayload(started({ status: "paid" }))).toMatchObject({ presentation_state: "paid", paid: true, expired_for_payment: false, pay_in_status: "paid" });
    expect(statusPayload(started({ status: "paid", expiresAt: at(-60) }))).toMatchObject({ paid: true, expired_for_payment: false });
    expect(statusPayload(started({ expiresAt: at(-1) }))).toMatchObject({
      presentation_state: "expired_for_payment", paid: false, expired_for_payment: true, pay_in_status: "awaiting_payment",
    });
    expect(statusPayload(started({ expiresAt: now }))).toMatchObject({ presentation_state: "awaiting_payment", expired_for_payment: false });
  });

  it("is unavailable with a null address when the merchant is not active", () => {
    expect(statusPayload(snapshot({ merchant: { displayName: "Shop", active: false } }))).toMatchObject({ presentation_state: "unavailable", address: null });
  });

  it("has exactly the contract's keys", () => {
    expect(Object.keys(statusPayload(started())).sort()).toEqual(
      ["address", "asset", "description", "expected_amount", "expired_for_payment", "expires_at", "merchant_display_name", "paid", "pay_in_status", "presentation_state", "rail"],
    );
  });
});

describe("stateOf", () => {
  it("passes the merchant's status and readiness to the presentation state", () => {
    expect(stateOf(snapshot())).toBe("select_method");
    expect(stateOf(snapshot({ pairReady: (p) => p.asset === "usdc" }))).toBe("ready_to_start");
    expect(stateOf(snapshot({ merchant: { displayName: "Shop", active: false } }))).toBe("unavailable");
    expect(stateOf(snapshot({ now: at(1801), intent: intent() }))).toBe("expired_for_payment");
  });
});

describe("qrChoice", () => {
  it("is the address only when asked for, else the payment request", () => {
    expect(qrChoice("address")).toBe("address");
    expect(qrChoice("eip681")).toBe("eip681");
    expect(qrChoice(null)).toBe("eip681");
    expect(qrChoice(undefined)).toBe("eip681");
    expect(qrChoice("ADDRESS")).toBe("eip681");
  });
});

describe("payerPage before a start", () => {
  it("offers every Ready pair as a method, in the merchant's order, with the payment window", () => {
    const page = payerPage(open());
    expect(page).toMatchObject({
      state: "select_method",
      heading: "Pay Shop",
      title: "Pay Shop",
      merchantName: "Shop",
      description: "Order 42",
      reference: "inv-42",
      amount: "25.5",
      pageHref: `/c/${TOKEN}`,
      startHref: `/c/${TOKEN}/start`,
      statusHref: `/c/${TOKEN}/status`,
      paymentWindow: "30 minutes",
      unavailableReason: null,
      payment: null,
      deadline: null,
      receipt: null,
      qr: null,
      messages: [],
      autoRefresh: false,
      poll: true,
      refreshEvidence: false,
      status: { text: "Not started. Choose how you want to pay.", tone: "info" },
    });
    expect(page.methods).toEqual([
      { value: "usdt/bep20", id: "pair-usdt-bep20", label: "USDT on BNB Smart Chain (BEP20)", token: "USDT", network: "BNB Smart Chain (BEP20)" },
      { value: "usdc/erc20", id: "pair-usdc-erc20", label: "USDC on Ethereum (ERC20)", token: "USDC", network: "Ethereum (ERC20)" },
    ]);
    expect(JSON.parse(page.statusJson)).toEqual(statusPayload(snapshot()));
  });

  it("offers only the Ready pair when one is no longer Ready", () => {
    const page = payerPage(open({ pairReady: (p) => p.rail === "erc20" }));
    expect(page.state).toBe("ready_to_start");
    expect(page.methods.map((m) => m.value)).toEqual(["usdc/erc20"]);
    expect(page.status.text).toBe("Not started.");
    expect(page.title).toBe("Pay Shop");
  });

  it("tells a withdrawn link from a payment that cannot be taken now", () => {
    const disabled = payerPage(open({ session: { ...snapshot().session, state: "disabled" } }));
    expect(disabled).toMatchObject({ state: "unavailable", heading: "This payment link is no longer available", unavailableReason: "disabled", methods: [], poll: false });
    expect(disabled.title).toBe("This payment link is no longer available · Shop");
    const notReady = payerPage(open({ pairReady: () => false }));
    expect(notReady).toMatchObject({ state: "unavailable", heading: "Payment unavailable", unavailableReason: "not_ready", methods: [], poll: false });
    expect(notReady.status).toEqual({ text: "Payment is not available.", tone: "bad" });
  });
});

describe("payerPage while awaiting payment", () => {
  it("gives the exact amount, token, network, chain, contract, address, request and deadline", () => {
    const page = payerPage(started());
    expect(page.state).toBe("awaiting_payment");
    expect(page.heading).toBe("Pay Shop");
    expect(page.title).toBe("Pay Shop");
    expect(page.payment).toEqual({
      amount: "25.5",
      expectedAmount: "25.5",
      due: true,
      instruction: "Send exactly",
      receivedText: null,
      token: "USDT",
      network: "BNB Smart Chain (BEP20)",
      label: "USDT on BNB Smart Chain (BEP20)",
      chainId: 56,
      contract: "0x55d398326f99059fF775485246999027B3197955",
      address: ADDRESS,
      addressGroups: "0x5aAe b605 3F3E 94C9 b9A0 9f33 6694 35E7 Ef1B eAed",
      eip681: `ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=${ADDRESS}&uint256=25500000000000000000`,
    });
    expect(page.deadline).toEqual({ iso: "2026-11-27T12:29:59.500Z", text: "27 Nov 2026, 12:29:59 UTC", secondsLeft: 1800, countdown: "30:00" });
    expect(page).toMatchObject({ autoRefresh: true, poll: true, refreshEvidence: true, receipt: null, methods: [], unavailableReason: null });
    expect(page.status).toEqual({ text: "Waiting for your payment.", tone: "info" });
  });

  it("shows the payment request's QR code by default, with a link to the address's", () => {
    expect(payerPage(started()).qr).toEqual({
      shown: "eip681",
      eip681Label: `QR code of a request to pay 25.5 USDT on BNB Smart Chain (BEP20) to ${ADDRESS}`,
      addressLabel: `QR code of the address ${ADDRESS}`,
      switchHref: `/c/${TOKEN}?qr=address`,
      switchText: "Wallet cannot read this code? Show a QR code of the address only",
      otherHref: `/c/${TOKEN}?qr=eip681`,
      otherText: "Show the QR code with the amount and token",
    });
  });

  it("shows the address's QR code when asked, with a link back", () => {
    expect(payerPage(started({}, { qr: "address" })).qr).toMatchObject({
      shown: "address",
      switchHref: `/c/${TOKEN}?qr=eip681`,
      switchText: "Show the QR code with the amount and token",
      otherHref: `/c/${TOKEN}?qr=address`,
      otherText: "Wallet cannot read this code? Show a QR code of the address only",
    });
  });

  it("reads the evidence: received and waiting, then part paid", () => {
    const pending = payerPage(started({}, { evidence: evidence({ pendingAmount: "25.5" }) }));
    expect(pending.status.text).toBe("Payment received, waiting for confirmation.");
    expect(pending.messages.map((m) => m.kind)).toEqual(["received"]);
    const partial = payerPage(started({}, { evidence: evidence({ receivedAmount: "5" }) }));
    expect(partial.messages.map((m) => m.text)).toEqual(["So far 5 USDT of 25.5 USDT has arrived. Send the remaining 20.5 USDT to the same address before the deadline."]);
  });

  it("after part of the payment, asks for what is left: amount, copy value, payment request and its QR code", () => {
    for (const seen of [{ receivedAmount: "5" }, { pendingAmount: "5" }, { receivedAmount: "2", pendingAmount: "3" }]) {
      const page = payerPage(started({ expectedAmount: "9.99" }, { evidence: evidence({ expectedAmount: "9.99", ...seen }) }));
      expect(page.payment).toMatchObject({
        amount: "4.99",
        expectedAmount: "9.99",
        due: true,
        instruction: "Send the remaining",
        receivedText: "Received 5 USDT of 9.99 USDT",
        eip681: `ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=${ADDRESS}&uint256=4990000000000000000`,
      });
      expect(page.qr?.eip681Label).toBe(`QR code of a request to pay 4.99 USDT on BNB Smart Chain (BEP20) to ${ADDRESS}`);
    }
    // On a token of 6 decimals, in its base units.
    const usdc = payerPage(started({ asset: "usdc", rail: "erc20", expectedAmount: "3.000001" }, { network: { chainId: 1, contract: BSC.contract, decimals: 6, minimum: "0.000001" }, evidence: evidence({ receivedAmount: "3" }) }));
    expect(usdc.payment).toMatchObject({ amount: "0.000001", receivedText: "Received 3 USDC of 3.000001 USDC" });
    expect(usdc.payment?.eip681).toMatch(/&uint256=1$/);
    // A rest the rail would take for dust is asked for as the rail's minimum: a little more rather than a payment that never completes.
    const dusty = payerPage(started({ expectedAmount: "10" }, { evidence: evidence({ expectedAmount: "10", receivedAmount: "9.9995" }) }));
    expect(dusty.payment).toMatchObject({ amount: "0.001", instruction: "Send the remaining", receivedText: "Received 9.9995 USDT of 10 USDT" });
    expect(dusty.payment?.eip681).toMatch(/&uint256=1000000000000000$/);
    expect(dusty.messages.find((m) => m.kind === "partial")?.text).toBe(
      "So far 9.9995 USDT of 10 USDT has arrived. Send 0.001 USDT more to the same address before the deadline: a smaller transfer would not count.",
    );
    // Exactly the minimum left is asked for as it is.
    const exact = payerPage(started({ expectedAmount: "10" }, { evidence: evidence({ expectedAmount: "10", receivedAmount: "9.999" }) }));
    expect(exact.payment).toMatchObject({ amount: "0.001" });
    expect(exact.messages.find((m) => m.kind === "partial")?.text).toBe("So far 9.999 USDT of 10 USDT has arrived. Send the remaining 0.001 USDT to the same address before the deadline.");
    // Only what counts: a late transfer, or nothing yet, leaves the exact amount.
    const none = payerPage(started({}, { evidence: evidence({ transfers: [{ ...transferOf("7"), late: true }] }) }));
    expect(none.payment).toMatchObject({ amount: "25.5", instruction: "Send exactly", receivedText: null });
  });

  it("asks for nothing more once all of it is seen, even before it is confirmed, and shows no payment request", () => {
    const page = payerPage(started({}, { evidence: evidence({ pendingAmount: "25.5" }) }));
    expect(page.payment).toMatchObject({ amount: "0", due: false, instruction: "Nothing more to send", receivedText: "Received 25.5 USDT of 25.5 USDT", eip681: null, address: ADDRESS });
    expect(page.qr).toBeNull();
    expect(page).toMatchObject({ autoRefresh: true, poll: true, refreshEvidence: true });
    expect(payerPage(started({}, { evidence: evidence({ receivedAmount: "20", pendingAmount: "10" }) })).payment).toMatchObject({ due: false, receivedText: "Received 30 USDT of 25.5 USDT" });
  });

  it("has no payment details without the rail's terms or an address", () => {
    expect(payerPage(started({}, { network: null }))).toMatchObject({ payment: null, qr: null });
    // A session disabled after its start still shows its payment.
    const disabled = started();
    expect(payerPage({ ...disabled, session: { ...disabled.session, state: "disabled" } })).toMatchObject({ state: "awaiting_payment", heading: "Pay Shop" });
    expect(payerPage(started({ address: null }))).toMatchObject({ payment: null, qr: null });
  });
});

describe("payerPage once the deadline passed", () => {
  it("shows no QR code, does not refresh itself, and keeps the deadline", () => {
    const page = payerPage(started({ expiresAt: at(-61) }));
    expect(page).toMatchObject({ state: "expired_for_payment", heading: "The time to pay has passed", title: "The time to pay has passed · Shop", qr: null, autoRefresh: false, refreshEvidence: false, poll: true });
    expect(page.deadline).toMatchObject({ secondsLeft: 0, countdown: "00:00", text: "27 Nov 2026, 11:58:59 UTC" });
    expect(page.status.text).toBe("The time to pay has passed. Do not send anything now.");
  });

  it("keeps refreshing while a payment mined in time is confirming", () => {
    const page = payerPage(started({ expiresAt: at(-1) }, { evidence: evidence({ pendingAmount: "25.5" }) }));
    expect(page).toMatchObject({ autoRefresh: true, refreshEvidence: true });
  });
});

describe("payerPage once paid", () => {
  const paying = evidence({
    receivedAmount: "25.5",
    transfers: [
      { asset: "usdt", rail: "bep20", txHash: "0xabc", blockTime: at(30), amount: "25.5", state: "settled", late: false, wrongNetwork: false, wrongToken: false, dust: false, afterPaid: false, vanished: false, counts: true },
    ],
  });

  it("gives a receipt: amount, time, transaction hash, merchant and reference", () => {
    const page = payerPage(started({ status: "paid" }, { evidence: paying }));
    expect(page).toMatchObject({ state: "paid", heading: "Payment complete", title: "Payment complete · Shop", qr: null, autoRefresh: false, poll: false, refreshEvidence: false, messages: [] });
    expect(page.receipt).toEqual({
      amount: "25.5",
      token: "USDT",
      network: "BNB Smart Chain (BEP20)",
      paidAt: { iso: "2026-11-27T12:00:30.000Z", text: "27 Nov 2026, 12:00:30 UTC" },
      txHashes: ["0xabc"],
      merchantName: "Shop",
      reference: "inv-42",
      description: "Order 42",
      address: ADDRESS,
    });
    expect(page.status).toEqual({ text: "Paid. Thank you!", tone: "ok" });
  });

  it("falls back to the intent's last change for the time, and keeps what is known without the rail's terms", () => {
    const page = payerPage(started({ status: "paid" }, { evidence: null, network: null }));
    expect(page.receipt).toMatchObject({ paidAt: { iso: "2026-11-27T11:59:50.000Z", text: "27 Nov 2026, 11:59:50 UTC" }, txHashes: [], address: ADDRESS.toLowerCase() });
    expect(payerPage(started({ status: "paid", updatedAt: null })).receipt?.paidAt).toBeNull();
  });

  it("tells of a further transfer after the payment, which the merchant gives back", () => {
    const page = payerPage(started({ status: "paid" }, { evidence: { ...paying, transfers: [...paying.transfers, { ...transferOf("5"), txHash: "0xdef", afterPaid: true, counts: false }] } }));
    expect(page.messages).toEqual([
      { kind: "after_paid", tone: "warn", txHash: "0xdef", text: "A further 5 USDT arrived after this payment was complete. It does not count; contact Shop to get it back." },
    ]);
    expect(page.receipt?.txHashes).toEqual(["0xabc"]);
  });

  it("tells of an over-payment on the receipt's page", () => {
    const page = payerPage(started({ status: "paid" }, { evidence: { ...paying, receivedAmount: "30" } }));
    expect(page.messages.map((m) => m.kind)).toEqual(["over"]);
    // Paid is final: a further transfer confirming does not make the page refresh itself.
    expect(payerPage(started({ status: "paid" }, { evidence: { ...paying, pendingAmount: "1" } }))).toMatchObject({ autoRefresh: false, refreshEvidence: false, poll: false });
  });
});
