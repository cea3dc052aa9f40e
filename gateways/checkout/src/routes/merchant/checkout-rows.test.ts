import { create } from "@bufbuild/protobuf";
import { payinsV1 } from "@payin/proto";
import { toTimestamp } from "@payin/rpc";
import { describe, expect, it } from "vitest";
import { checkoutRow, isSettledPayment, MERCHANT_TRANSFER_LIMITS, merchantCheckoutState, notListedText, payInStatusView, presentationOf, type PayerConditions } from "./checkout-rows.js";

const { CheckoutState, PayInStatus, TransferState } = payinsV1;
const deadline = new Date("2026-11-25T12:30:00.000Z");
const before = new Date(deadline.getTime() - 1);
const after = new Date(deadline.getTime() + 1);

const session = (state: payinsV1.CheckoutState, intentUuid?: string) =>
  create(payinsV1.CheckoutSessionSchema, {
    checkoutUuid: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
    merchantUuid: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c",
    amount: "10.5",
    pairs: [{ asset: "usdt", rail: "bep20" }],
    jurisdiction: "DE",
    state,
    intentUuid,
    createdAt: toTimestamp(new Date("2026-11-25T12:00:00.000Z")),
  });
const intent = (status: payinsV1.PayInStatus) =>
  create(payinsV1.PayInIntentSchema, { intentUuid: "i-1", status, asset: "usdt", rail: "bep20", expectedAmount: "10.5", address: "0xAbC", expiresAt: toTimestamp(deadline) });
const ready: PayerConditions = { merchantActive: true, readyPairs: new Set(["usdt/bep20", "usdc/erc20"]) };
type TransferInit = Partial<{ state: payinsV1.TransferState; late: boolean; wrongNetwork: boolean; wrongToken: boolean; dust: boolean; afterPaid: boolean; counts: boolean; txHash: string; amount: string }>;
/** A transfer as payins answers it: unless `over` says, it counts as payins would have it (no flag, not orphaned). */
const transfer = (over: TransferInit = {}) => {
  const flagged = over.late || over.wrongNetwork || over.wrongToken || over.dust || over.afterPaid || over.state === TransferState.ORPHANED;
  return create(payinsV1.PayInTransferSchema, { txHash: "0x01", asset: "usdt", rail: "bep20", amount: "10.5", state: TransferState.SETTLED, counts: !flagged, ...over });
};

describe("merchant-facing checkout state", () => {
  it("is open before a start, started while awaiting payment, paid once the pay-in is paid, disabled when disabled", () => {
    expect(merchantCheckoutState(session(CheckoutState.OPEN), undefined, after)).toBe("open");
    expect(merchantCheckoutState(session(CheckoutState.DISABLED), undefined, after)).toBe("disabled");
    expect(merchantCheckoutState(session(CheckoutState.STARTED), intent(PayInStatus.CREATED), before)).toBe("started");
    expect(merchantCheckoutState(session(CheckoutState.STARTED), intent(PayInStatus.AWAITING_PAYMENT), before)).toBe("started");
    expect(merchantCheckoutState(session(CheckoutState.STARTED), intent(PayInStatus.PAID), after)).toBe("paid");
    expect(merchantCheckoutState(session(CheckoutState.PAID), undefined, after)).toBe("paid");
    expect(merchantCheckoutState(session(CheckoutState.STARTED), undefined, after)).toBe("started");
  });

  it("is expired for payment only after the deadline instant, unpaid", () => {
    expect(merchantCheckoutState(session(CheckoutState.STARTED), intent(PayInStatus.AWAITING_PAYMENT), deadline)).toBe("started");
    expect(merchantCheckoutState(session(CheckoutState.STARTED), intent(PayInStatus.AWAITING_PAYMENT), after)).toBe("expired_for_payment");
    expect(merchantCheckoutState(session(CheckoutState.STARTED), intent(PayInStatus.CREATED), after)).toBe("expired_for_payment");
    expect(merchantCheckoutState(session(CheckoutState.PAID), intent(PayInStatus.PAID), after)).toBe("paid");
  });

  it("names the pay-in's canonical status", () => {
    expect(payInStatusView(PayInStatus.CREATED)).toEqual({ code: "created", text: "Created" });
    expect(payInStatusView(PayInStatus.AWAITING_PAYMENT)).toEqual({ code: "awaiting_payment", text: "Awaiting payment" });
    expect(payInStatusView(PayInStatus.PAID)).toEqual({ code: "paid", text: "Paid" });
  });

  it("counts as the settled payment only a settled transfer that payins counts", () => {
    expect(isSettledPayment(transfer())).toBe(true);
    expect(isSettledPayment(transfer({ state: TransferState.PENDING }))).toBe(false);
    expect(isSettledPayment(transfer({ state: TransferState.ORPHANED }))).toBe(false);
    expect(isSettledPayment(transfer({ late: true }))).toBe(false);
    expect(isSettledPayment(transfer({ afterPaid: true }))).toBe(false);
    // payins decides, not the flags: a settled transfer it does not count never pays, one it counts does.
    expect(isSettledPayment(transfer({ counts: false }))).toBe(false);
    expect(isSettledPayment(transfer({ late: true, counts: true }))).toBe(true);
  });

  it("builds a row with the deposit address and the settled transactions' hashes only", () => {
    const transfers = create(payinsV1.ListPayInTransfersResponseSchema, {
      receivedAmount: "10.5",
      pendingAmount: "0",
      transfers: [transfer({ txHash: "0xaa" }), transfer({ txHash: "0xbb", state: TransferState.PENDING }), transfer({ txHash: "0xcc", late: true })],
    });
    const row = checkoutRow(session(CheckoutState.STARTED, "i-1"), intent(PayInStatus.PAID), transfers, ready, after);
    expect(row).toMatchObject({
      state: "paid",
      stateText: "Paid",
      presentation: { code: "paid", text: "Paid" },
      disablable: false,
      settledTxHashes: ["0xaa"],
      pairs: ["USDT on BNB Smart Chain (BEP20)"],
    });
    expect(row.payIn).toMatchObject({ address: "0xAbC", status: { code: "paid" } });
    expect(row.transfers.map((t) => [t.txHash, t.counts, t.notes])).toEqual([
      ["0xaa", true, []],
      ["0xbb", true, []],
      ["0xcc", false, ["arrived after the deadline"]],
    ]);
    const open = checkoutRow(session(CheckoutState.OPEN), undefined, undefined, ready, after);
    expect(open).toMatchObject({
      state: "open",
      presentation: { code: "ready_to_start" },
      disablable: true,
      payIn: null,
      settledTxHashes: [],
      createdAt: { text: "2026-11-25 12:00 UTC" },
    });
  });
});

describe("the transfers of a checkout's pay-in, as its detail lists them", () => {
  type Totals = { afterPaidAmount?: string; total?: bigint; dustCount?: bigint };
  const listOf = (transfers: payinsV1.PayInTransfer[], totals: Totals = {}) =>
    create(payinsV1.ListPayInTransfersResponseSchema, { receivedAmount: "10.5", pendingAmount: "0", transfers, ...totals });
  const paidRow = (transfers: payinsV1.PayInTransfer[], totals: Totals = {}) => checkoutRow(session(CheckoutState.PAID, "i-1"), intent(PayInStatus.PAID), listOf(transfers, totals), ready, after);

  it("lists what arrived after the pay-in was paid with the amount to give back, and payins' total of it", () => {
    const row = paidRow([
      transfer({ txHash: "0xaa" }),
      transfer({ txHash: "0xbb", amount: "10.5", afterPaid: true, late: true }),
      transfer({ txHash: "0xcc", amount: "2", afterPaid: true }),
      transfer({ txHash: "0xdd", amount: "1", afterPaid: true, state: TransferState.PENDING }),
      transfer({ txHash: "0xee", amount: "0", afterPaid: true, dust: true }),
    ], { afterPaidAmount: "12.5" });
    expect(row.transfers.map((t) => [t.txHash, t.counts, t.notes, t.giveBack])).toEqual([
      ["0xaa", true, [], null],
      ["0xbb", false, ["arrived after the pay-in was paid", "arrived after the deadline"], "10.5"],
      ["0xcc", false, ["arrived after the pay-in was paid"], "2"],
      // Not settled yet: it may still be dropped.
      ["0xdd", false, ["arrived after the pay-in was paid"], null],
      ["0xee", false, ["too small to count", "arrived after the pay-in was paid"], null],
    ]);
    expect(row.afterPaidAmount).toBe("12.5");
    expect(row.settledTxHashes).toEqual(["0xaa"]);
    expect(paidRow([transfer()]).afterPaidAmount).toBeNull();
    expect(paidRow([transfer()], { afterPaidAmount: "0" }).afterPaidAmount).toBeNull();
    expect(checkoutRow(session(CheckoutState.OPEN), undefined, undefined, ready, after)).toMatchObject({ afterPaidAmount: null, transfers: [], transfersNotListed: null });
    expect(paidRow([transfer({ state: TransferState.ORPHANED })]).transfers[0]).toMatchObject({ counts: false, notes: ["no longer on the chain"], state: "dropped from the chain" });
  });

  it("lists a bounded number of transfers whatever the spam, and says how many more there are", () => {
    expect(MERCHANT_TRANSFER_LIMITS).toEqual({ dust: 5, total: 50 });
    const spam = Array.from({ length: 300 }, (_, i) => transfer({ txHash: `0xd${i}`, amount: "0", dust: true }));
    const row = paidRow([transfer({ txHash: "0xaa" }), ...spam, transfer({ txHash: "0xbb", afterPaid: true })]);
    expect(row.transfers.map((t) => t.txHash)).toEqual(["0xaa", "0xd0", "0xd1", "0xd2", "0xd3", "0xd4", "0xbb"]);
    expect(row.transfersNotListed).toBe("Not listed here: 295 more very small transfers (zero or below the dust threshold) that do not count. The API lists every transfer of this pay-in.");
    expect(row.settledTxHashes).toEqual(["0xaa"]);
    const many = Array.from({ length: 60 }, (_, i) => transfer({ txHash: `0x${i}`, late: true }));
    const crowded = paidRow(many);
    expect(crowded.transfers).toHaveLength(50);
    expect(crowded.transfersNotListed).toBe("Not listed here: 10 more transfers. The API lists every transfer of this pay-in.");
    expect(paidRow([transfer()]).transfersNotListed).toBeNull();
    // Beyond the first page payins answers, its counts say how many more there are.
    const firstPage = paidRow(spam.slice(0, 100), { total: 320n, dustCount: 300n });
    expect(firstPage.transfers).toHaveLength(5);
    expect(firstPage.transfersNotListed).toBe(
      "Not listed here: 20 more transfers and 295 more very small transfers (zero or below the dust threshold) that do not count. The API lists every transfer of this pay-in.",
    );
  });

  it("says in words how many are not listed", () => {
    expect(notListedText(0, 0)).toBeNull();
    expect(notListedText(1, 0)).toBe("Not listed here: 1 more transfer. The API lists every transfer of this pay-in.");
    expect(notListedText(0, 1)).toBe("Not listed here: 1 more very small transfer (zero or below the dust threshold) that does not count. The API lists every transfer of this pay-in.");
    expect(notListedText(2, 3)).toBe(
      "Not listed here: 2 more transfers and 3 more very small transfers (zero or below the dust threshold) that do not count. The API lists every transfer of this pay-in.",
    );
  });
});

describe("presentation state of the payer's page, as the merchant sees it", () => {
  const both = (state: payinsV1.CheckoutState) =>
    create(payinsV1.CheckoutSessionSchema, { state, pairs: [{ asset: "usdt", rail: "bep20" }, { asset: "usdc", rail: "erc20" }] });
  const code = (...args: Parameters<typeof presentationOf>) => presentationOf(...args)?.code;

  it("before a start: select_method with several Ready pairs, ready_to_start with one, unavailable with none, disabled or an inactive merchant", () => {
    expect(code(both(CheckoutState.OPEN), undefined, ready, before)).toBe("select_method");
    expect(code(both(CheckoutState.OPEN), undefined, { merchantActive: true, readyPairs: new Set(["usdc/erc20"]) }, before)).toBe("ready_to_start");
    expect(code(both(CheckoutState.OPEN), undefined, { merchantActive: true, readyPairs: new Set() }, before)).toBe("unavailable");
    expect(code(both(CheckoutState.OPEN), undefined, { ...ready, merchantActive: false }, before)).toBe("unavailable");
    expect(code(both(CheckoutState.DISABLED), undefined, ready, before)).toBe("unavailable");
  });

  it("once started: awaiting_payment, expired_for_payment after the deadline instant, paid on the canonical status only", () => {
    expect(code(session(CheckoutState.STARTED), intent(PayInStatus.CREATED), ready, deadline)).toBe("awaiting_payment");
    expect(code(session(CheckoutState.STARTED), intent(PayInStatus.AWAITING_PAYMENT), ready, after)).toBe("expired_for_payment");
    expect(code(session(CheckoutState.STARTED), intent(PayInStatus.PAID), ready, after)).toBe("paid");
    // The intent decides, whatever the merchant's status now.
    expect(code(session(CheckoutState.STARTED), intent(PayInStatus.AWAITING_PAYMENT), { merchantActive: false, readyPairs: new Set() }, before)).toBe("awaiting_payment");
    expect(presentationOf(session(CheckoutState.STARTED), intent(PayInStatus.AWAITING_PAYMENT), ready, after)?.text).toBe("Expired for payment: the deadline passed unpaid");
  });

  it("is not known for a state or status this gateway does not know", () => {
    expect(presentationOf(session(CheckoutState.UNSPECIFIED), undefined, ready, before)).toBeNull();
    expect(presentationOf(session(CheckoutState.STARTED), intent(PayInStatus.UNSPECIFIED), ready, before)).toBeNull();
  });
});
