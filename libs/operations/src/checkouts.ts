/**
 * Creating a hosted checkout spans two services: allocation decides whether
 * every chosen pair is Ready in the checkout's jurisdiction (the decision a
 * payer's start makes again: the jurisdiction's crypto.payin rule and provider
 * binding included), then payins creates the session. The server decides
 * readiness, not the form: when any chosen pair is not Ready nothing is
 * created, and the caller learns every failing reason of every pair.
 */
import type { allocationV1, payinsV1 } from "@payin/proto";
import type { ServicePorts } from "./ports.js";

export type CreateCheckoutPorts = Pick<ServicePorts, "allocation" | "payins"> & {
  /** The checkout's public base address, without a trailing slash: links are `${publicUrl}/c/${token}`. */
  publicUrl: string;
};

/** A checkout as the merchant asked for it; its fields already read from the form. */
export interface CheckoutRequest {
  merchantUuid: string;
  reference: string | undefined;
  description: string;
  /** Decimal string; payins applies the amount rules again. */
  amount: string;
  pairs: readonly { asset: string; rail: string }[];
  /** ISO 3166-1 alpha-2, upper case: the country of the sale. */
  jurisdiction: string;
}

export type CreateCheckoutOutcome =
  /** Created: the link holds the token, in clear only here. */
  | { created: true; session: payinsV1.CheckoutSession; link: string }
  /** Refused: at least one chosen pair is not Ready; `pairs` holds the readiness of every chosen pair. */
  | { created: false; pairs: allocationV1.PairReadiness[] };

/**
 * Asks allocation for the readiness of the chosen pairs in the checkout's
 * jurisdiction, then creates the checkout only when all are Ready. A field
 * payins refuses fails as payins' VALIDATION_ERROR (nothing is created then
 * either).
 */
export async function createCheckout(ports: CreateCheckoutPorts, request: CheckoutRequest): Promise<CreateCheckoutOutcome> {
  const pairs = request.pairs.map(({ asset, rail }) => ({ asset, rail }));
  const readiness = await ports.allocation.getReadiness({ merchantUuid: request.merchantUuid, pairs, jurisdiction: request.jurisdiction });
  const answered = readiness.pairs;
  const allReady = answered.length === pairs.length && answered.every((pair) => pair.ready && pair.reasons.length === 0 && pair.reasonCodes.length === 0);
  if (!allReady) return { created: false, pairs: answered };
  const { session, token } = await ports.payins.createCheckoutSession({
    merchantUuid: request.merchantUuid,
    reference: request.reference,
    description: request.description,
    amount: request.amount,
    pairs,
    jurisdiction: request.jurisdiction,
  });
  if (!session || !token) throw new Error("payins answered a created checkout without its session or token");
  return { created: true, session, link: `${ports.publicUrl}/c/${token}` };
}
