/**
 * Wire names of the proto enums as the JSON API and the domains spell them
 * ("active", "awaiting_payment"), in both directions. One table per enum, so
 * every service, gateway and tool maps them the same way.
 */
import { MerchantStatus } from "./gen/payin/merchants/v1/merchants_service_pb.js";
import { PayInStatus } from "./gen/payin/payins/v1/payins_service_pb.js";

export type MerchantStatusName = "inactive" | "active" | "suspended" | "closed";
export type PayInStatusName = "created" | "awaiting_payment" | "paid";

/** Merchant status name → proto enum. */
export const MERCHANT_STATUS_BY_NAME: Readonly<Record<MerchantStatusName, MerchantStatus>> = {
  inactive: MerchantStatus.INACTIVE,
  active: MerchantStatus.ACTIVE,
  suspended: MerchantStatus.SUSPENDED,
  closed: MerchantStatus.CLOSED,
};

/** Pay-in status name → proto enum. */
export const PAY_IN_STATUS_BY_NAME: Readonly<Record<PayInStatusName, PayInStatus>> = {
  created: PayInStatus.CREATED,
  awaiting_payment: PayInStatus.AWAITING_PAYMENT,
  paid: PayInStatus.PAID,
};

function invert<N extends string, E extends number>(byName: Readonly<Record<N, E>>): Partial<Record<E, N>> {
  return Object.fromEntries(Object.entries(byName).map(([name, value]) => [value, name])) as Partial<Record<E, N>>;
}

const MERCHANT_STATUS_NAMES = invert(MERCHANT_STATUS_BY_NAME);
const PAY_IN_STATUS_NAMES = invert(PAY_IN_STATUS_BY_NAME);

/** Name of a merchant status; undefined for UNSPECIFIED or an unknown number. */
export function merchantStatusName(status: MerchantStatus): MerchantStatusName | undefined {
  return MERCHANT_STATUS_NAMES[status];
}

/** Name of a pay-in status; undefined for UNSPECIFIED or an unknown number. */
export function payInStatusName(status: PayInStatus): PayInStatusName | undefined {
  return PAY_IN_STATUS_NAMES[status];
}

/** True when `name` is a merchant status name. */
export function isMerchantStatusName(name: string): name is MerchantStatusName {
  return Object.hasOwn(MERCHANT_STATUS_BY_NAME, name);
}

/** True when `name` is a pay-in status name. */
export function isPayInStatusName(name: string): name is PayInStatusName {
  return Object.hasOwn(PAY_IN_STATUS_BY_NAME, name);
}

/** A rule's or policy's effect as it travels in a string field: "" (none) and anything unknown are null. */
export function effectName(value: string): "allow" | "deny" | null {
  return value === "allow" || value === "deny" ? value : null;
}
