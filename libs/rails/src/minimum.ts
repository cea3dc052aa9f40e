import { fromBaseUnits, type Asset, type Rail } from "@payin/money";
import type { RailConfig, RailsConfig } from "./rails.js";

/**
 * What decides whether an amount can be paid on a rail: the token an intent on
 * it is paid in (its decimals) and the rail's dust threshold for that token.
 */
export interface PayableTerms {
  asset: Asset;
  rail: Rail;
  /** The token's decimals: its smallest unit is 10^-decimals. */
  decimals: number;
  /** Base units: a transfer below this (and every zero-value one) is dust, never counted. */
  dustThreshold: bigint;
}

/** Why an amount cannot be paid: below the minimum (dust), or finer than the token's smallest unit. */
export type NotPayableReason = "below_minimum" | "finer_than_unit";

export type Payability =
  | { payable: true }
  | {
      payable: false;
      reason: NotPayableReason;
      /** The smallest payable amount, canonical decimal string in token units. */
      minimum: string;
      /** The token's smallest unit, canonical decimal string. */
      unit: string;
      /** Safe to show a client; starts with "amount". */
      message: string;
    };

/** A rail's terms, from its configuration: the token its intents are paid in and its dust threshold. */
export function payableTerms(rail: RailConfig): PayableTerms {
  return { asset: rail.token.asset, rail: rail.rail, decimals: rail.token.decimals, dustThreshold: rail.dustThreshold(rail.token) };
}

/** Every rail's terms (what payins is given at boot). */
export function payableTermsOf(config: RailsConfig): Readonly<Record<Rail, PayableTerms>> {
  return { bep20: payableTerms(config.rails.bep20), erc20: payableTerms(config.rails.erc20) };
}

/**
 * The smallest amount that counts on the rail, in base units: the dust
 * threshold, and never less than one unit (a zero-value transfer is dust).
 */
export function minimumUnits(terms: PayableTerms): bigint {
  return terms.dustThreshold > 1n ? terms.dustThreshold : 1n;
}

/** The smallest amount that counts on the rail, as a canonical decimal string. */
export function minimumAmount(terms: PayableTerms): string {
  return fromBaseUnits(minimumUnits(terms), terms.decimals);
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * Whether a pay-in of `amount` (a decimal string, e.g. canonicalAmount's) can
 * ever be paid and counted on the rail: at least the rail's minimum (a smaller
 * transfer is dust, never counted) and a whole number of the token's smallest
 * unit (a finer amount cannot be sent). The one decision pay-in and checkout
 * creation apply; the observer's dust rule (a transfer below the threshold, or
 * zero) is its mirror. Throws on a string that is no decimal amount.
 */
export function payability(amount: string, terms: PayableTerms): Payability {
  const match = DECIMAL.exec(amount);
  if (!match) throw new Error(`not a decimal amount: ${JSON.stringify(amount)}`);
  const whole = match[1]!;
  const fraction = (match[2] ?? "").replace(/0+$/, "");
  // Both at one scale, exactly: the amount's digits or the token's, whichever is finer.
  const scale = Math.max(fraction.length, terms.decimals);
  const units = BigInt(whole + fraction.padEnd(scale, "0"));
  const minimum = minimumUnits(terms);
  const below = units < minimum * 10n ** BigInt(scale - terms.decimals);
  const finer = fraction.length > terms.decimals;
  if (!below && !finer) return { payable: true };
  const minText = fromBaseUnits(minimum, terms.decimals);
  const unit = fromBaseUnits(1n, terms.decimals);
  const token = `${terms.asset.toUpperCase()} on ${terms.rail.toUpperCase()}`;
  return below
    ? {
        payable: false,
        reason: "below_minimum",
        minimum: minText,
        unit,
        message: `amount must be at least ${minText} ${token} (smaller transfers are dust and never count)`,
      }
    : {
        payable: false,
        reason: "finer_than_unit",
        minimum: minText,
        unit,
        message: `amount must be a whole multiple of ${unit} ${token}, the token's smallest unit (at least ${minText})`,
      };
}
