/**
 * Wire names of the proto enums as the JSON API, the pages and the domains
 * spell them ("active", "awaiting_payment"), in both directions. Derived from
 * the generated descriptors: a value's name without the enum's shared prefix,
 * in lower case (PAY_IN_STATUS_AWAITING_PAYMENT → "awaiting_payment");
 * UNSPECIFIED has no name. Adding a value to a .proto adds its name here, to
 * the name types and to every `Record<…Name, …>` the compiler then asks for.
 */
import type { DescEnum } from "@bufbuild/protobuf";
import { PrincipalKind, PrincipalKindSchema } from "./gen/payin/identity/v1/identity_service_pb.js";
import { ReadinessReason, ReadinessReasonSchema, type PairReadiness } from "./gen/payin/allocation/v1/allocation_service_pb.js";
import { MerchantStatus, MerchantStatusSchema, MerchantTransition, MerchantTransitionSchema } from "./gen/payin/merchants/v1/merchants_service_pb.js";
import {
  CheckoutState,
  CheckoutStateSchema,
  PayInStatus,
  PayInStatusSchema,
  TransferState,
  TransferStateSchema,
} from "./gen/payin/payins/v1/payins_service_pb.js";

/**
 * The names of a generated TypeScript enum object: its member names (protoc-gen-es
 * already strips the shared prefix) but UNSPECIFIED, in lower case.
 */
export type EnumName<E extends Record<string, string | number>> = Lowercase<Exclude<Extract<keyof E, string>, "UNSPECIFIED">>;

/**
 * `true` only when A and B are the same set of names: a domain that keeps its
 * own name type (a pure domain imports no contract) states at its boundary
 * `const _same: SameNames<DomainStatus, PayInStatusName> = true`, and a value
 * added on either side alone fails to compile.
 */
export type SameNames<A extends string, B extends string> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;

/** One enum's names, both ways. */
export interface EnumNames<V extends number, N extends string> {
  /** Every name, in the order of the enum's numbers. */
  readonly names: readonly N[];
  /** Name → enum value. */
  readonly byName: Readonly<Record<N, V>>;
  /** Name of a value; undefined for UNSPECIFIED or a number this build does not know. */
  nameOf(value: V | number): N | undefined;
  /** True when `name` is one of the names. */
  isName(name: string): name is N;
}

/** The name of one descriptor value: its name without the shared prefix, in lower case. */
function wireName(schema: DescEnum, valueName: string): string {
  const name = valueName.toLowerCase();
  const prefix = (schema.sharedPrefix ?? "").toLowerCase(); // protobuf-es keeps it in lower case
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/**
 * The names of an enum, from its descriptor. `values` is the generated enum
 * object; it only carries the names' type, and is checked against the
 * descriptor so the type and the table cannot disagree.
 */
export function enumNames<E extends Record<string, string | number>>(schema: DescEnum, values: E): EnumNames<Extract<E[keyof E], number>, EnumName<E>> {
  type V = Extract<E[keyof E], number>;
  type N = EnumName<E>;
  const named = [...schema.values].filter((v) => v.number !== 0).sort((a, b) => a.number - b.number);
  const byName = new Map<string, V>();
  const byValue = new Map<number, N>();
  for (const v of named) {
    const name = wireName(schema, v.name);
    if (values[v.localName] !== v.number || name !== v.localName.toLowerCase() || byName.has(name)) {
      throw new Error(`enum ${schema.typeName}: ${v.name} does not name ${v.number} once`);
    }
    byName.set(name, v.number as V);
    byValue.set(v.number, name as N);
  }
  const names = Object.freeze([...byName.keys()] as N[]);
  return {
    names,
    byName: Object.freeze(Object.fromEntries(byName)) as Readonly<Record<N, V>>,
    nameOf: (value) => byValue.get(value),
    isName: (name): name is N => byName.has(name),
  };
}

export type MerchantStatusName = EnumName<typeof MerchantStatus>;
export type MerchantTransitionName = EnumName<typeof MerchantTransition>;
export type PayInStatusName = EnumName<typeof PayInStatus>;
export type TransferStateName = EnumName<typeof TransferState>;
export type CheckoutStateName = EnumName<typeof CheckoutState>;
export type ReadinessReasonName = EnumName<typeof ReadinessReason>;
export type PrincipalKindName = EnumName<typeof PrincipalKind>;

export const MERCHANT_STATUS = enumNames(MerchantStatusSchema, MerchantStatus);
export const MERCHANT_TRANSITION = enumNames(MerchantTransitionSchema, MerchantTransition);
export const PAY_IN_STATUS = enumNames(PayInStatusSchema, PayInStatus);
export const TRANSFER_STATE = enumNames(TransferStateSchema, TransferState);
export const CHECKOUT_STATE = enumNames(CheckoutStateSchema, CheckoutState);
export const READINESS_REASON = enumNames(ReadinessReasonSchema, ReadinessReason);
export const PRINCIPAL_KIND = enumNames(PrincipalKindSchema, PrincipalKind);

/** Every merchant status name, in the contract's order (e.g. the OpenAPI document's enum). */
export const MERCHANT_STATUS_NAMES = MERCHANT_STATUS.names;
/** Every merchant transition name ("activate", …), in the contract's order. */
export const MERCHANT_TRANSITION_NAMES = MERCHANT_TRANSITION.names;
/** Every pay-in status name, in the contract's order. */
export const PAY_IN_STATUS_NAMES = PAY_IN_STATUS.names;
/** Every transfer state name, in the contract's order. */
export const TRANSFER_STATE_NAMES = TRANSFER_STATE.names;
/** Every checkout state name, in the contract's order. */
export const CHECKOUT_STATE_NAMES = CHECKOUT_STATE.names;
/** Every readiness reason code, in the contract's order (the order a refusal lists them). */
export const READINESS_REASON_NAMES = READINESS_REASON.names;

/** Merchant status name → proto enum. */
export const MERCHANT_STATUS_BY_NAME = MERCHANT_STATUS.byName;
/** Pay-in status name → proto enum. */
export const PAY_IN_STATUS_BY_NAME = PAY_IN_STATUS.byName;

/** Name of a merchant status; undefined for UNSPECIFIED or an unknown number. */
export const merchantStatusName = (status: MerchantStatus): MerchantStatusName | undefined => MERCHANT_STATUS.nameOf(status);
/** Name of a pay-in status; undefined for UNSPECIFIED or an unknown number. */
export const payInStatusName = (status: PayInStatus): PayInStatusName | undefined => PAY_IN_STATUS.nameOf(status);
/** True when `name` is a merchant status name. */
export const isMerchantStatusName = (name: string): name is MerchantStatusName => MERCHANT_STATUS.isName(name);
/** True when `name` is a pay-in status name. */
export const isPayInStatusName = (name: string): name is PayInStatusName => PAY_IN_STATUS.isName(name);

/**
 * A pair's failing readiness reasons by name, in the order allocation gave
 * them: from the enum values, or from the lower-case codes allocation also
 * sends when a value is unknown here (an allocation of another version) or
 * none was sent.
 */
export function readinessReasonNames(pair: Pick<PairReadiness, "reasons" | "reasonCodes">): string[] {
  const names = pair.reasonCodes.map((value) => READINESS_REASON.nameOf(value));
  if (names.length === 0 || names.some((name) => name === undefined)) return [...pair.reasons];
  return names as string[];
}

/** A rule's or policy's effect as it travels in a string field: "" (none) and anything unknown are null. */
export function effectName(value: string): "allow" | "deny" | null {
  return value === "allow" || value === "deny" ? value : null;
}
