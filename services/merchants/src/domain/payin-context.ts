import { DomainError } from "@payin/errors";
import { PAYIN_CAPABILITY } from "@payin/permissions";
import type { MerchantStatus } from "./merchant.js";
import type { OperatingMode } from "./operating-profile.js";
import { MerchantsReason } from "./reasons.js";
import { checkJurisdiction, checkMerchantUuid, type Effect } from "./validation.js";

/** Everything the payins service needs about a merchant to accept a pay-in. */
export interface PayinContext {
  status: MerchantStatus;
  /** Effect of the open rule for (crypto.payin, jurisdiction); null when none (or no jurisdiction was asked). */
  ruleEffect: Effect | null;
  /** Effect of the merchant's open `payin` policy; null when none. */
  payinPolicyEffect: Effect | null;
  operatingMode: OperatingMode | null;
  /** A provider is bound for the capability (any jurisdiction) and the merchant has a connection to it (as in ReadinessInputs). */
  providerConnected: boolean;
  /**
   * A provider is bound for (the capability, the jurisdiction asked) and the
   * merchant has a connection to it: a binding's jurisdiction is where that
   * provider serves the merchant's pay-ins. False when no jurisdiction was asked.
   */
  providerConnectedInJurisdiction: boolean;
}

/** What the allocation service needs about a merchant to decide its pay-in readiness. */
export interface ReadinessInputs {
  status: MerchantStatus;
  /** Effect of the merchant's open `payin` policy; null when none. */
  payinPolicyEffect: Effect | null;
  operatingMode: OperatingMode | null;
  /** A provider is bound for the capability (any jurisdiction) and the merchant has a connection to it. */
  providerConnected: boolean;
}

/** Reads a pay-in context; implementations answer in one round trip (pay-in create's hot path). */
export interface PayinContextReader {
  payinContext(merchantUuid: string, capability: string, jurisdiction: string | null): Promise<PayinContext | null>;
  /** The readiness inputs of a merchant for `capability`, or null when it does not exist. */
  readinessInputs(merchantUuid: string, capability: string): Promise<ReadinessInputs | null>;
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

/** The readiness inputs of a merchant for pay-ins (capability crypto.payin). */
export async function getReadinessInputs(reader: PayinContextReader, merchantUuid: string): Promise<ReadinessInputs> {
  const inputs = await reader.readinessInputs(checkMerchantUuid(merchantUuid), PAYIN_CAPABILITY);
  if (!inputs) throw new DomainError(MerchantsReason.MerchantNotFound, "merchant not found");
  return inputs;
}
