import type { Rail } from "@payin/money";
import type { RailConfig, RailToken } from "@payin/rails";

/** An address the observer watches, and the intent it is for. */
export interface Watch {
  intentUuid: string;
  /** The rail the intent is paid on (another rail's transfers to it are wrong-network evidence). */
  rail: Rail;
}

export interface TransferLogFact {
  contract: string;
  from: string;
  to: string;
  value: bigint;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
}

/** A transfer of a watched token to a watched address, as observed on one rail. */
export interface ObservedTransfer {
  intentUuid: string;
  /** Where it happened. */
  rail: Rail;
  chainId: number;
  token: RailToken;
  from: string;
  to: string;
  /** Base units of `token`. */
  amount: bigint;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  /** The including block's timestamp, seconds since the epoch. */
  blockTimestamp: bigint;
  /** Below the rail's dust threshold, or zero: evidence, never counted. */
  dust: boolean;
}

/**
 * The transfers among `logs` that pay a watched address, matched in memory:
 * only logs of the rail's configured contracts count (a token that merely calls
 * itself USDT is ignored), whatever rail the address's intent is on.
 */
export function matchTransfers(
  rail: RailConfig,
  logs: readonly TransferLogFact[],
  watched: ReadonlyMap<string, Watch>,
  blockTimestamp: (blockNumber: bigint) => bigint,
): ObservedTransfer[] {
  const tokens = new Map<string, RailToken>([rail.token, ...rail.otherTokens].map((t) => [t.contract.toLowerCase(), t]));
  const matched: ObservedTransfer[] = [];
  for (const log of logs) {
    const token = tokens.get(log.contract.toLowerCase());
    if (!token) continue;
    const to = log.to.toLowerCase();
    const watch = watched.get(to);
    if (!watch) continue;
    matched.push({
      intentUuid: watch.intentUuid,
      rail: rail.rail,
      chainId: rail.chainId,
      token,
      from: log.from.toLowerCase(),
      to,
      amount: log.value,
      txHash: log.txHash.toLowerCase(),
      logIndex: log.logIndex,
      blockNumber: log.blockNumber,
      blockHash: log.blockHash.toLowerCase(),
      blockTimestamp: blockTimestamp(log.blockNumber),
      dust: log.value === 0n || log.value < rail.dustThreshold(token),
    });
  }
  return matched;
}
