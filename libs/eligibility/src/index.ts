/**
 * Whether a merchant may take a pay-in: the one decision behind readiness
 * (allocation's GetReadiness, which the admin API, the hosted checkout's
 * creation and its payer page ask) and pay-in create (payins: over the API and
 * at a checkout's start). Pure: callers read the inputs (the merchants
 * service's pay-in context, allocation's wallet and observer) and translate
 * the reasons into their answers.
 */

export {
  decide,
  ELIGIBILITY_REASONS,
  MAX_ADDRESS_INDEX,
  type Effect,
  type EligibilityInputs,
  type EligibilityReason,
  type EligibilityScope,
  type MerchantSide,
  type WalletSide,
} from "./eligibility.js";
