/**
 * The public JSON of the resources events carry, as the API's reads show
 * them: the pay-in intent read, one transfer of the transfers listing, and a
 * checkout. The API's routes and the events' data use these same functions,
 * so an event's resource is exactly what a read answered at that moment.
 */
import { CHECKOUT_STATE, payInStatusName, TRANSFER_STATE, type payinsV1 } from "@payin/proto";
import { isoFromTimestamp } from "@payin/rpc";

/** What to pay and where, as both the create and the read responses show it (in this order). */
export function paymentFields(i: payinsV1.PayInIntent) {
  return {
    status: payInStatusName(i.status),
    asset: i.asset,
    rail: i.rail,
    expected_amount: i.expectedAmount,
    address: i.address ?? null,
  };
}

/** A pay-in intent's read response: the full representation. */
export function intentReadView(i: payinsV1.PayInIntent) {
  return {
    intent_uuid: i.intentUuid,
    merchant_uuid: i.merchantUuid,
    ...paymentFields(i),
    reference: i.reference ?? null,
    created_at: isoFromTimestamp(i.createdAt),
    expires_at: isoFromTimestamp(i.expiresAt),
    updated_at: isoFromTimestamp(i.updatedAt),
  };
}

export type IntentView = ReturnType<typeof intentReadView>;

/** One transfer seen for an intent, with why it does or does not count. */
export function transferView(t: payinsV1.PayInTransfer) {
  const state = TRANSFER_STATE.nameOf(t.state);
  if (!state) throw new Error(`payins answered a transfer in an unknown state (${t.state})`);
  return {
    chain_id: Number(t.chainId),
    rail: t.rail,
    asset: t.asset,
    tx_hash: t.txHash,
    log_index: t.logIndex,
    // Block numbers are far below 2^53: a JSON integer is exact.
    block_number: Number(t.blockNumber),
    block_time: isoFromTimestamp(t.blockTime),
    from_address: t.fromAddress,
    amount: t.amount,
    state,
    flags: { late: t.late, wrong_network: t.wrongNetwork, wrong_token: t.wrongToken, dust: t.dust, after_paid: t.afterPaid, vanished: t.vanished },
  };
}

export type TransferView = ReturnType<typeof transferView>;

/** A checkout link as a merchant reads it (never its token). */
export function checkoutView(c: payinsV1.CheckoutSession) {
  const state = CHECKOUT_STATE.nameOf(c.state);
  if (!state) throw new Error(`payins answered a checkout in an unknown state (${c.state})`);
  return {
    checkout_uuid: c.checkoutUuid,
    merchant_uuid: c.merchantUuid,
    state,
    amount: c.amount,
    pairs: c.pairs.map((p) => ({ asset: p.asset, rail: p.rail })),
    jurisdiction: c.jurisdiction,
    reference: c.reference ?? null,
    description: c.description ?? null,
    intent_uuid: c.intentUuid ?? null,
    payment_window_seconds: c.paymentWindowSeconds,
    created_at: isoFromTimestamp(c.createdAt),
    updated_at: isoFromTimestamp(c.updatedAt),
  };
}

export type CheckoutView = ReturnType<typeof checkoutView>;
