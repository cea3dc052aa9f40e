/**
 * The payer's page and status poll as data: what each presentation state
 * shows, computed from the session, its intent, the merchant, readiness, the
 * evidence and the server's clock. Pure; the route fetches, this decides.
 */
import { amountDue, evidenceMessages, isPendingPayment, paymentStatus, receiptEvidence, type Evidence, type EvidenceMessage, type PaymentStatus } from "./evidence.js";
import { checksummed, eip681TransferUri, groupInFours, networkName, pairValue, tokenName, tokenOnNetwork } from "./payment-terms.js";
import { presentationState, readyPairs, type CheckoutPair, type CheckoutState, type PayInStatus, type PresentationState } from "./presentation-state.js";
import { formatCountdown, formatDuration, formatUtc, secondsLeft } from "./time.js";

/** A session's pay-in intent, as the page needs it. */
export interface IntentSnapshot {
  status: PayInStatus;
  asset: string;
  rail: string;
  /** Canonical decimal string. */
  expectedAmount: string;
  /** The deposit address; null only if a service answered none. */
  address: string | null;
  expiresAt: Date;
  /** When the intent last changed (for a paid one: about when it was paid). */
  updatedAt: Date | null;
}

/** Everything the page and the status poll are computed from. */
export interface CheckoutSnapshot {
  session: {
    state: CheckoutState;
    pairs: readonly CheckoutPair[];
    /** Canonical decimal string. */
    amount: string;
    description: string | null;
    reference: string | null;
    paymentWindowS: number;
  };
  intent: IntentSnapshot | null;
  merchant: { displayName: string; active: boolean };
  /** Whether a pair is Ready now; only asked while the session is open without an intent. */
  pairReady: (pair: CheckoutPair) => boolean;
  now: Date;
}

/** The answer of GET /c/{token}/status: exactly these keys. */
export interface StatusPayload {
  presentation_state: PresentationState;
  description: string | null;
  merchant_display_name: string;
  expected_amount: string;
  expires_at: string | null;
  paid: boolean;
  expired_for_payment: boolean;
  asset: string | null;
  rail: string | null;
  address: string | null;
  pay_in_status: PayInStatus | null;
}

export function stateOf(snapshot: CheckoutSnapshot): PresentationState {
  return presentationState({
    session: snapshot.session,
    intent: snapshot.intent,
    now: snapshot.now,
    merchantActive: snapshot.merchant.active,
    pairReady: snapshot.pairReady,
  });
}

/**
 * The status payload: `paid` only when the intent's canonical status is paid;
 * asset and rail the intent's, or before a start the checkout's only pair's.
 */
export function statusPayload(snapshot: CheckoutSnapshot, state: PresentationState = stateOf(snapshot)): StatusPayload {
  const { session, intent } = snapshot;
  const only = session.pairs.length === 1 ? session.pairs[0]! : null;
  return {
    presentation_state: state,
    description: session.description,
    merchant_display_name: snapshot.merchant.displayName,
    expected_amount: session.amount,
    expires_at: intent ? intent.expiresAt.toISOString() : null,
    paid: intent?.status === "paid",
    expired_for_payment: state === "expired_for_payment",
    asset: intent ? intent.asset : (only?.asset ?? null),
    rail: intent ? intent.rail : (only?.rail ?? null),
    address: intent?.address ?? null,
    pay_in_status: intent?.status ?? null,
  };
}

/** A rail's chain and token, from the rails' configuration. */
export interface NetworkTerms {
  chainId: number;
  /** The token's contract (any case). */
  contract: string;
  decimals: number;
  /** The smallest amount that counts on the rail, in token units (a smaller transfer is dust). */
  minimum: string;
}

/** Which QR code is shown: the EIP-681 payment request, or the bare address. */
export type QrChoice = "eip681" | "address";

/** The `qr` query parameter as a choice: `address`, else the payment request. */
export function qrChoice(value: string | null | undefined): QrChoice {
  return value === "address" ? "address" : "eip681";
}

export interface PageInput extends CheckoutSnapshot {
  /** The token of the link (the page's own path). */
  token: string;
  /** The chain and token of the intent's rail; null before a start. */
  network: NetworkTerms | null;
  /** The transfers seen for the intent; null before a start. */
  evidence: Evidence | null;
  qr: QrChoice;
}

export interface MethodOption {
  /** The start form's value, `usdt/bep20`. */
  value: string;
  /** An id for the radio button. */
  id: string;
  label: string;
  token: string;
  network: string;
}

export interface PaymentDetails {
  /**
   * What to send now, a bare decimal number: the exact amount, or once part of
   * it is seen what is left; "0" once all of it is seen.
   */
  amount: string;
  /** The intent's amount. */
  expectedAmount: string;
  /** Whether anything is left to send (false once all of it is seen, confirmed or not). */
  due: boolean;
  /** What the amount is introduced with: "Send exactly", "Send the remaining", or "Nothing more to send". */
  instruction: string;
  /** "Received 5 USDT of 9.99 USDT" once something that counts is seen; else null. */
  receivedText: string | null;
  token: string;
  network: string;
  /** "USDT on BNB Smart Chain (BEP20)". */
  label: string;
  chainId: number;
  /** The token contract, EIP-55. */
  contract: string;
  /** The deposit address, EIP-55. */
  address: string;
  /** The address in groups of four for reading. */
  addressGroups: string;
  /** The EIP-681 request for `amount`; null when nothing is due. */
  eip681: string | null;
}

export interface Deadline {
  iso: string;
  text: string;
  secondsLeft: number;
  countdown: string;
}

export interface QrView {
  shown: QrChoice;
  eip681Label: string;
  addressLabel: string;
  /** Where the switch leads without JavaScript, and what it says. */
  switchHref: string;
  switchText: string;
  /** The other link and text, for the script to swap in. */
  otherHref: string;
  otherText: string;
}

export interface Receipt {
  amount: string;
  token: string;
  network: string;
  paidAt: { iso: string; text: string } | null;
  txHashes: string[];
  merchantName: string;
  reference: string | null;
  description: string | null;
  address: string | null;
}

export interface PayerPage {
  state: PresentationState;
  heading: string;
  /** The document's title: the heading, with the merchant where the heading does not name it. */
  title: string;
  merchantName: string;
  description: string | null;
  reference: string | null;
  /** The checkout's amount, a bare decimal number. */
  amount: string;
  pageHref: string;
  startHref: string;
  statusHref: string;
  /** The pairs a payer may start with now (select_method, ready_to_start). */
  methods: MethodOption[];
  /** "30 minutes": how long the payer has once started. */
  paymentWindow: string;
  /** Why a payment cannot be made (unavailable only). */
  unavailableReason: "disabled" | "not_ready" | null;
  payment: PaymentDetails | null;
  deadline: Deadline | null;
  status: PaymentStatus;
  messages: EvidenceMessage[];
  receipt: Receipt | null;
  qr: QrView | null;
  /** Whether the page refreshes itself without JavaScript (meta refresh in a noscript). */
  autoRefresh: boolean;
  /** Whether the script polls the status (and the evidence while awaiting payment). */
  poll: boolean;
  refreshEvidence: boolean;
  /** The status payload the page was drawn from, as JSON: the script reloads when a poll answers otherwise. */
  statusJson: string;
}

const HEADINGS: Readonly<Record<PresentationState, (merchant: string) => string>> = {
  select_method: (merchant) => `Pay ${merchant}`,
  ready_to_start: (merchant) => `Pay ${merchant}`,
  awaiting_payment: (merchant) => `Pay ${merchant}`,
  paid: () => "Payment complete",
  expired_for_payment: () => "The time to pay has passed",
  unavailable: () => "Payment unavailable",
};

/** The page of a presentation state. */
export function payerPage(input: PageInput): PayerPage {
  const state = stateOf(input);
  const { session, intent, merchant } = input;
  const pageHref = `/c/${input.token}`;
  const merchantName = merchant.displayName;
  const startable = state === "select_method" || state === "ready_to_start";
  const methods = startable ? readyPairs(input).map(methodOption) : [];
  const payment = intent ? paymentDetails(intent, input.network, input.evidence) : null;
  const pending = isPendingPayment(input.evidence);
  const messages = intent && input.evidence ? evidenceMessages(input.evidence, { asset: intent.asset, rail: intent.rail, minimum: input.network?.minimum, merchantName, state }) : [];
  const deadline = intent ? deadlineOf(intent.expiresAt, input.now) : null;
  const heading = state === "unavailable" && session.state === "disabled" ? "This payment link is no longer available" : HEADINGS[state](merchantName);
  return {
    state,
    heading,
    title: startable || state === "awaiting_payment" ? heading : `${heading} · ${merchantName}`,
    merchantName,
    description: session.description,
    reference: session.reference,
    amount: session.amount,
    pageHref,
    startHref: `${pageHref}/start`,
    statusHref: `${pageHref}/status`,
    methods,
    paymentWindow: formatDuration(session.paymentWindowS),
    unavailableReason: state === "unavailable" ? (session.state === "disabled" ? "disabled" : "not_ready") : null,
    payment,
    deadline,
    status: paymentStatus(state, input.evidence),
    messages,
    receipt: state === "paid" && intent ? receiptOf(intent, input, payment) : null,
    qr: state === "awaiting_payment" && payment?.due ? qrView(input.qr, pageHref, payment) : null,
    autoRefresh: state === "awaiting_payment" || (state === "expired_for_payment" && pending),
    poll: startable || state === "awaiting_payment" || state === "expired_for_payment",
    refreshEvidence: state === "awaiting_payment" || (state === "expired_for_payment" && pending),
    statusJson: JSON.stringify(statusPayload(input, state)),
  };
}

function methodOption(pair: CheckoutPair): MethodOption {
  return {
    value: pairValue(pair),
    id: `pair-${pair.asset}-${pair.rail}`,
    label: tokenOnNetwork(pair),
    token: tokenName(pair.asset),
    network: networkName(pair.rail),
  };
}

const INSTRUCTIONS = { exact: "Send exactly", remaining: "Send the remaining", none: "Nothing more to send" } as const;

/** The payment as the payer is asked for it now: after part of it is seen, what is left (a second scan never over-pays). */
function paymentDetails(intent: IntentSnapshot, network: NetworkTerms | null, evidence: Evidence | null): PaymentDetails | null {
  if (!network || !intent.address) return null;
  const address = checksummed(intent.address);
  const token = tokenName(intent.asset);
  const { received, remaining } = amountDue(intent.expectedAmount, evidence, network.minimum);
  const due = remaining !== "0";
  return {
    amount: remaining,
    expectedAmount: intent.expectedAmount,
    due,
    instruction: !due ? INSTRUCTIONS.none : received === null ? INSTRUCTIONS.exact : INSTRUCTIONS.remaining,
    receivedText: received === null ? null : `Received ${received} ${token} of ${intent.expectedAmount} ${token}`,
    token,
    network: networkName(intent.rail),
    label: tokenOnNetwork(intent),
    chainId: network.chainId,
    contract: checksummed(network.contract),
    address,
    addressGroups: groupInFours(address),
    eip681: due ? eip681TransferUri({ contract: network.contract, chainId: network.chainId, to: address, amount: remaining, decimals: network.decimals }) : null,
  };
}

function deadlineOf(expiresAt: Date, now: Date): Deadline {
  const left = secondsLeft(expiresAt, now);
  return { iso: expiresAt.toISOString(), text: formatUtc(expiresAt), secondsLeft: left, countdown: formatCountdown(left) };
}

function qrView(shown: QrChoice, pageHref: string, payment: PaymentDetails): QrView {
  const links: Record<QrChoice, { href: string; text: string }> = {
    // What the switch offers while the other code is shown.
    eip681: { href: `${pageHref}?qr=address`, text: "Wallet cannot read this code? Show a QR code of the address only" },
    address: { href: `${pageHref}?qr=eip681`, text: "Show the QR code with the amount and token" },
  };
  const other: QrChoice = shown === "eip681" ? "address" : "eip681";
  return {
    shown,
    eip681Label: `QR code of a request to pay ${payment.amount} ${payment.label} to ${payment.address}`,
    addressLabel: `QR code of the address ${payment.address}`,
    switchHref: links[shown].href,
    switchText: links[shown].text,
    otherHref: links[other].href,
    otherText: links[other].text,
  };
}

function receiptOf(intent: IntentSnapshot, input: PageInput, payment: PaymentDetails | null): Receipt {
  const evidence = input.evidence ? receiptEvidence(input.evidence) : { txHashes: [], paidAt: null };
  const paidAt = evidence.paidAt ?? intent.updatedAt;
  return {
    amount: intent.expectedAmount,
    token: tokenName(intent.asset),
    network: networkName(intent.rail),
    paidAt: paidAt ? { iso: paidAt.toISOString(), text: formatUtc(paidAt) } : null,
    txHashes: evidence.txHashes,
    merchantName: input.merchant.displayName,
    reference: input.session.reference,
    description: input.session.description,
    address: payment?.address ?? intent.address,
  };
}
