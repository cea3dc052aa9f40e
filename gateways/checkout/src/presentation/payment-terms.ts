import { checksumAddress } from "viem";
import { isAsset, isRail, toBaseUnits, type Rail } from "@payin/money";
import type { CheckoutPair } from "./presentation-state.js";

/** Networks named so that they cannot be mistaken: the chain and its token standard. */
const NETWORK_NAMES: Readonly<Record<Rail, string>> = { bep20: "BNB Smart Chain (BEP20)", erc20: "Ethereum (ERC20)" };

const CODE = /^[a-z0-9]{1,16}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The token's symbol as wallets show it: the asset code in capitals ("USDT"). */
export function tokenName(asset: string): string {
  return CODE.test(asset) ? asset.toUpperCase() : "an unknown token";
}

/** The network in words ("BNB Smart Chain (BEP20)"); a rail routing does not know is shown in capitals. */
export function networkName(rail: string): string {
  if (isRail(rail)) return NETWORK_NAMES[rail];
  return CODE.test(rail) ? rail.toUpperCase() : "an unknown network";
}

/** "USDT on BNB Smart Chain (BEP20)". */
export function tokenOnNetwork(pair: { asset: string; rail: string }): string {
  return `${tokenName(pair.asset)} on ${networkName(pair.rail)}`;
}

/** The start form's value of a pair: `usdt/bep20`. */
export function pairValue(pair: CheckoutPair): string {
  return `${pair.asset}/${pair.rail}`;
}

/**
 * The pair a start form names: undefined when none is named (an empty or
 * absent field: the checkout's only pair is meant), null when the value is not
 * `<asset>/<rail>` of routing's names.
 */
export function parsePairValue(value: string | null): CheckoutPair | undefined | null {
  if (value === null || value === "") return undefined;
  const parts = value.split("/");
  if (parts.length !== 2) return null;
  const [asset, rail] = parts as [string, string];
  return isAsset(asset) && isRail(rail) ? { asset, rail } : null;
}

/** An Ethereum address with its EIP-55 checksum; throws for what is not 0x and 40 hex digits. */
export function checksummed(address: string): `0x${string}` {
  if (!ADDRESS.test(address)) throw new Error("not an address of 0x and 40 hex digits");
  return checksumAddress(address.toLowerCase() as `0x${string}`);
}

/**
 * An address as a payer compares it with their wallet: whole, never
 * truncated, its 40 hex digits in groups of four after the `0x`
 * (`0x5B38 Da6a 701c …`).
 */
export function groupInFours(address: string): string {
  const digits = address.slice(2);
  const groups = digits.match(/.{1,4}/g) ?? [];
  return `0x${groups.join(" ")}`;
}

export interface TransferRequest {
  /** The token's contract. */
  contract: string;
  chainId: number;
  /** The deposit address. */
  to: string;
  /** The exact amount, as a canonical decimal string in token units. */
  amount: string;
  /** The token's decimals. */
  decimals: number;
}

/** The amount in the token's integer base units, as an EIP-681 `uint256` parameter wants it. */
export function baseUnits(request: Pick<TransferRequest, "amount" | "decimals">): bigint {
  return toBaseUnits(request.amount, request.decimals);
}

/**
 * An EIP-681 request for an ERC-20 transfer of the exact amount:
 * `ethereum:<contract>@<chainId>/transfer?address=<to>&uint256=<base units>`,
 * both addresses with their EIP-55 checksum.
 */
export function eip681TransferUri(request: TransferRequest): string {
  return `ethereum:${checksummed(request.contract)}@${request.chainId}/transfer?address=${checksummed(request.to)}&uint256=${baseUnits(request)}`;
}
