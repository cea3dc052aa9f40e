import { DomainError } from "@payin/errors";
import type { MerchantStatus } from "./merchant.js";
import type { OperatingMode } from "./operating-profile.js";
import { MerchantsReason } from "./reasons.js";
import { checkJurisdiction, checkMerchantUuid, type Effect } from "./validation.js";

/** The capability that authorises a pay-in. */
export const PAYIN_CAPABILITY = "crypto.payin";

/** Everything the payins service needs about a merchant to accept a pay-in. */
export interface PayinContext {
  status: MerchantStatus;
  /** Effect of the open rule for (crypto.payin, jurisdiction); null when none (or no jurisdiction was asked). */
  ruleEffect: Effect | null;
  /** Effect of the merchant's open `payin` policy; null when none. */
  payinPolicyEffect: Effect | null;
  operatingMode: OperatingMode | null;
}

/** Reads a pay-in context; implementations answer in one round trip (pay-in create's hot path). */
export interface PayinContextReader {
  payinContext(merchantUuid: string, capability: string, jurisdiction: string | null): Promise<PayinContext | null>;
}

/**
 * The pay-in context of a merchant. An empty jurisdiction is allowed (the rule
 * effect is then null); any other must be a valid ISO 3166-1 alpha-2 code.
 */
export async function getPayinContext(reader: PayinContextReader, merchantUuid: string, jurisdiction: string): Promise<PayinContext> {
  const code = jurisdiction === "" ? null : checkJurisdiction(jurisdiction);
  const uuid = checkMerchantUuid(merchantUuid);
  const context = await reader.payinContext(uuid, PAYIN_CAPABILITY, code);
  if (!context) throw new DomainError(MerchantsReason.MerchantNotFound, "merchant not found");
  return context;
}
