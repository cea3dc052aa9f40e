/**
 * Whether a second endpoint bears a transfer out, decided without I/O: an RPC
 * endpoint is a witness, not an authority, so a transfer read from one
 * endpoint counts toward payment only once another returns its receipt with
 * status success, in the same block, holding the same log.
 */

/** The transfer as the reading endpoint reported it (addresses and hashes in any case). */
export interface ClaimedTransfer {
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  contract: string;
  from: string;
  to: string;
  amount: bigint;
}

/** A log of a receipt, as the witness answered it. */
export interface ReceiptLog {
  logIndex: number;
  address: string;
  /** topic0 (the event), then the indexed arguments, 32-byte hex each. */
  topics: readonly string[];
  data: string;
}

export interface WitnessReceipt {
  /** "success" or "reverted". */
  status: string;
  blockHash: string;
  blockNumber: bigint;
  logs: readonly ReceiptLog[];
}

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

export type WitnessVerdict =
  /** The witness bears the transfer out: it may settle. */
  | { kind: "confirmed" }
  /** The witness has not reached the block yet: ask again later, credit nothing. */
  | { kind: "not-yet" }
  /** The witness contradicts the reader: never credit; `reason` says how. */
  | { kind: "disputed"; reason: string };

function sameHex(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** A 32-byte topic holding an address: 12 zero bytes, then the address. */
function topicAddress(topic: string | undefined): string | null {
  if (topic === undefined || !/^0x0{24}[0-9a-fA-F]{40}$/.test(topic)) return null;
  return `0x${topic.slice(26)}`.toLowerCase();
}

function dataAmount(data: string): bigint | null {
  if (!/^0x[0-9a-fA-F]{1,64}$/.test(data)) return null;
  return BigInt(data);
}

/**
 * The witness's word on a transfer: `witnessBlockHash` is the hash the witness
 * answers for the transfer's block number (null when it has no such block
 * yet), `receipt` its receipt of the transaction (null when it has none).
 */
export function witnessVerdict(transfer: ClaimedTransfer, witnessBlockHash: string | null, receipt: WitnessReceipt | null): WitnessVerdict {
  const where = `log ${transfer.logIndex} of transaction ${transfer.txHash} in block ${transfer.blockNumber}`;
  // No block yet: behind a load-balanced URL the receipt may come from a backend ahead of the one asked for the block; ask again later.
  if (witnessBlockHash === null) return { kind: "not-yet" };
  if (!sameHex(witnessBlockHash, transfer.blockHash)) return { kind: "disputed", reason: `the second endpoint has another block ${transfer.blockNumber} than the one holding ${where}` };
  if (receipt === null) return { kind: "disputed", reason: `the second endpoint has block ${transfer.blockNumber} but no receipt of transaction ${transfer.txHash}` };
  if (receipt.status !== "success") return { kind: "disputed", reason: `the second endpoint says transaction ${transfer.txHash} failed` };
  if (!sameHex(receipt.blockHash, transfer.blockHash) || receipt.blockNumber !== transfer.blockNumber) {
    return { kind: "disputed", reason: `the second endpoint has transaction ${transfer.txHash} in another block` };
  }
  const log = receipt.logs.find((l) => l.logIndex === transfer.logIndex);
  if (!log) return { kind: "disputed", reason: `the second endpoint's receipt of ${transfer.txHash} has no log ${transfer.logIndex}` };
  const same =
    sameHex(log.address, transfer.contract) &&
    log.topics.length === 3 &&
    sameHex(log.topics[0]!, TRANSFER_TOPIC) &&
    topicAddress(log.topics[1]) === transfer.from.toLowerCase() &&
    topicAddress(log.topics[2]) === transfer.to.toLowerCase() &&
    dataAmount(log.data) === transfer.amount;
  if (!same) return { kind: "disputed", reason: `the second endpoint's ${where} is another transfer (contract, sender, recipient or amount differ)` };
  return { kind: "confirmed" };
}
