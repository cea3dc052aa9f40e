import { describe, expect, it } from "vitest";
import { TRANSFER_TOPIC, witnessVerdict, type ClaimedTransfer, type ReceiptLog, type WitnessReceipt } from "./witness.js";

const CONTRACT = "0x55d398326f99059fF775485246999027B3197955";
const FROM = "0x8894E0a0c962CB723c1976a4421c95949bE2D4E3";
const TO = "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01";
const OTHER = "0x1111111111111111111111111111111111111111";
const BLOCK_HASH = "0x9a3f6c0de5b1a8f2c4e7d9b0a1c3e5f7092b4d6f8a0c2e4f6b8d0a2c4e6f8a0b";
const OTHER_BLOCK_HASH = "0x0000000000000000000000000000000000000000000000000000000000000bad";
const TX = "0x5e1f7a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f";

/** An address as an indexed topic: 12 zero bytes, then the 20 of the address. */
function addressTopic(address: string): string {
  return `0x${"0".repeat(24)}${address.slice(2)}`;
}

/** An amount as the data of a Transfer log: one 32-byte word. */
function amountData(amount: bigint): string {
  return `0x${amount.toString(16).padStart(64, "0")}`;
}

const transfer: ClaimedTransfer = {
  txHash: TX,
  logIndex: 4,
  blockNumber: 1_234n,
  blockHash: BLOCK_HASH,
  contract: CONTRACT,
  from: FROM,
  to: TO,
  amount: 9_990_000_000_000_000_000n,
};

function transferLog(overrides: Partial<ReceiptLog> = {}): ReceiptLog {
  return {
    logIndex: transfer.logIndex,
    address: transfer.contract,
    topics: [TRANSFER_TOPIC, addressTopic(transfer.from), addressTopic(transfer.to)],
    data: amountData(transfer.amount),
    ...overrides,
  };
}

/** A log of the same transaction at another index: the token's Approval, say. */
const otherLog: ReceiptLog = {
  logIndex: 3,
  address: CONTRACT,
  topics: ["0x8c5be1e5ebec7d5bd14f71427e1dd8c5b0ed2c8f0a5b2c6e6e5a4b6c8f4f5c2b", addressTopic(FROM), addressTopic(OTHER)],
  data: amountData(1n),
};

function receipt(overrides: Partial<WitnessReceipt> = {}): WitnessReceipt {
  return { status: "success", blockHash: BLOCK_HASH, blockNumber: transfer.blockNumber, logs: [otherLog, transferLog()], ...overrides };
}

function disputed(verdict: ReturnType<typeof witnessVerdict>): string {
  expect(verdict.kind).toBe("disputed");
  return (verdict as { reason: string }).reason;
}

const ANOTHER_TRANSFER = `the second endpoint's log 4 of transaction ${TX} in block 1234 is another transfer (contract, sender, recipient or amount differ)`;

describe("witnessVerdict", () => {
  it("confirms a transfer the witness holds in the same block, with a successful receipt and the same log", () => {
    expect(TRANSFER_TOPIC).toBe("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");
    expect(witnessVerdict(transfer, BLOCK_HASH, receipt())).toEqual({ kind: "confirmed" });
  });

  it("confirms whatever the case of hashes, addresses, topics and data on either side", () => {
    const upper = (hex: string) => `0x${hex.slice(2).toUpperCase()}`;
    const claimed = { ...transfer, blockHash: upper(BLOCK_HASH), contract: CONTRACT.toLowerCase(), from: upper(FROM), to: TO.toLowerCase() };
    const witnessed = receipt({
      blockHash: BLOCK_HASH.toLowerCase(),
      logs: [
        transferLog({
          address: upper(CONTRACT),
          topics: [upper(TRANSFER_TOPIC), addressTopic(FROM.toLowerCase()), upper(addressTopic(TO))],
          data: upper(amountData(transfer.amount)),
        }),
      ],
    });
    expect(witnessVerdict(claimed, BLOCK_HASH, witnessed)).toEqual({ kind: "confirmed" });
    expect(witnessVerdict(transfer, upper(BLOCK_HASH), witnessed)).toEqual({ kind: "confirmed" });
  });

  it("confirms an amount written without its leading zeros", () => {
    expect(witnessVerdict(transfer, BLOCK_HASH, receipt({ logs: [transferLog({ data: `0x${transfer.amount.toString(16)}` })] }))).toEqual({ kind: "confirmed" });
  });

  it("confirms a zero amount and the largest one a word holds", () => {
    const zero = { ...transfer, amount: 0n };
    expect(witnessVerdict(zero, BLOCK_HASH, receipt({ logs: [transferLog({ data: amountData(0n) })] }))).toEqual({ kind: "confirmed" });
    const max = { ...transfer, amount: 2n ** 256n - 1n };
    expect(witnessVerdict(max, BLOCK_HASH, receipt({ logs: [transferLog({ data: `0x${"f".repeat(64)}` })] }))).toEqual({ kind: "confirmed" });
  });

  describe("when the witness has not reached the block", () => {
    it("answers not-yet when it has neither the block nor a receipt", () => {
      expect(witnessVerdict(transfer, null, null)).toEqual({ kind: "not-yet" });
    });

    it("answers not-yet for a receipt of a block it does not have yet (a load-balanced witness's backends may differ)", () => {
      expect(witnessVerdict(transfer, null, receipt())).toEqual({ kind: "not-yet" });
    });
  });

  it("disputes a transfer whose block the witness has with another hash", () => {
    expect(witnessVerdict(transfer, OTHER_BLOCK_HASH, receipt())).toEqual({
      kind: "disputed",
      reason: `the second endpoint has another block 1234 than the one holding log 4 of transaction ${TX} in block 1234`,
    });
    expect(disputed(witnessVerdict(transfer, OTHER_BLOCK_HASH, null))).toContain("another block 1234");
  });

  it("disputes a transaction the witness has no receipt of in a block it has", () => {
    expect(witnessVerdict(transfer, BLOCK_HASH, null)).toEqual({
      kind: "disputed",
      reason: `the second endpoint has block 1234 but no receipt of transaction ${TX}`,
    });
  });

  it("disputes a transaction that failed", () => {
    expect(witnessVerdict(transfer, BLOCK_HASH, receipt({ status: "reverted" }))).toEqual({
      kind: "disputed",
      reason: `the second endpoint says transaction ${TX} failed`,
    });
    expect(disputed(witnessVerdict(transfer, BLOCK_HASH, receipt({ status: "" })))).toContain("failed");
    expect(disputed(witnessVerdict(transfer, BLOCK_HASH, receipt({ status: "Success" })))).toContain("failed");
  });

  it("disputes a receipt of another block, by hash or by number", () => {
    const inAnotherBlock = { kind: "disputed", reason: `the second endpoint has transaction ${TX} in another block` };
    expect(witnessVerdict(transfer, BLOCK_HASH, receipt({ blockHash: OTHER_BLOCK_HASH }))).toEqual(inAnotherBlock);
    expect(witnessVerdict(transfer, BLOCK_HASH, receipt({ blockNumber: 1_235n }))).toEqual(inAnotherBlock);
    expect(witnessVerdict(transfer, BLOCK_HASH, receipt({ blockNumber: 1_233n }))).toEqual(inAnotherBlock);
  });

  it("disputes a receipt without a log at the transfer's index", () => {
    const noLog = { kind: "disputed", reason: `the second endpoint's receipt of ${TX} has no log 4` };
    expect(witnessVerdict(transfer, BLOCK_HASH, receipt({ logs: [] }))).toEqual(noLog);
    expect(witnessVerdict(transfer, BLOCK_HASH, receipt({ logs: [otherLog, transferLog({ logIndex: 5 })] }))).toEqual(noLog);
  });

  it("compares the log at the transfer's index, not another log of the receipt", () => {
    // The receipt holds the very transfer at index 3 and something else at index 4.
    const logs = [transferLog({ logIndex: 3 }), { ...otherLog, logIndex: 4 }];
    expect(witnessVerdict(transfer, BLOCK_HASH, receipt({ logs }))).toEqual({ kind: "disputed", reason: ANOTHER_TRANSFER });
  });

  describe("disputes a log that is another transfer", () => {
    const cases: [string, Partial<ReceiptLog>][] = [
      ["of another contract", { address: OTHER }],
      ["of another event", { topics: [otherLog.topics[0]!, addressTopic(FROM), addressTopic(TO)] }],
      ["from another sender", { topics: [TRANSFER_TOPIC, addressTopic(OTHER), addressTopic(TO)] }],
      ["to another recipient", { topics: [TRANSFER_TOPIC, addressTopic(FROM), addressTopic(OTHER)] }],
      ["with the sender and recipient swapped", { topics: [TRANSFER_TOPIC, addressTopic(TO), addressTopic(FROM)] }],
      ["of a larger amount", { data: amountData(transfer.amount + 1n) }],
      ["of a smaller amount", { data: amountData(transfer.amount - 1n) }],
      ["of a zero amount", { data: amountData(0n) }],
      ["with no recipient topic", { topics: [TRANSFER_TOPIC, addressTopic(FROM)] }],
      ["with an extra topic", { topics: [TRANSFER_TOPIC, addressTopic(FROM), addressTopic(TO), addressTopic(OTHER)] }],
      ["with no topics at all", { topics: [] }],
      ["with the amount indexed and no data (an ERC-721 Transfer)", { topics: [TRANSFER_TOPIC, addressTopic(FROM), addressTopic(TO), amountData(transfer.amount)], data: "0x" }],
      ["with a sender topic one byte short", { topics: [TRANSFER_TOPIC, addressTopic(FROM).slice(0, -2), addressTopic(TO)] }],
      ["with a recipient topic one byte long", { topics: [TRANSFER_TOPIC, addressTopic(FROM), `${addressTopic(TO)}00`] }],
      ["with a recipient topic of bare hex", { topics: [TRANSFER_TOPIC, addressTopic(FROM), addressTopic(TO).slice(2).padStart(66, "0")] }],
      ["with a sender topic holding no hex", { topics: [TRANSFER_TOPIC, `0x${"0".repeat(24)}${"g".repeat(40)}`, addressTopic(TO)] }],
      ["with an empty sender topic", { topics: [TRANSFER_TOPIC, "", addressTopic(TO)] }],
      ["with a recipient topic whose padding is not zero", { topics: [TRANSFER_TOPIC, addressTopic(FROM), `0x${"1".repeat(24)}${addressTopic(TO).slice(26)}`] }],
      ["with empty data", { data: "0x" }],
      ["with data of more than one word", { data: `${amountData(transfer.amount)}00` }],
      ["with data that is not hex", { data: `0x${"0".repeat(63)}z` }],
      ["with data without its 0x", { data: amountData(transfer.amount).slice(2) }],
      ["with data of trailing garbage after a line break", { data: `${amountData(transfer.amount)}\nzz` }],
      ["with data of leading garbage", { data: ` ${amountData(transfer.amount)}` }],
    ];
    for (const [what, overrides] of cases) {
      it(what, () => {
        expect(witnessVerdict(transfer, BLOCK_HASH, receipt({ logs: [otherLog, transferLog(overrides)] }))).toEqual({ kind: "disputed", reason: ANOTHER_TRANSFER });
      });
    }
  });

  it("disputes rather than confirms when the claimed sender or recipient is not a topic's address", () => {
    // The zero padding belongs to the topic, not to the address the reader reported.
    expect(disputed(witnessVerdict({ ...transfer, to: addressTopic(TO) }, BLOCK_HASH, receipt()))).toBe(ANOTHER_TRANSFER);
    expect(disputed(witnessVerdict({ ...transfer, from: `0x${FROM.slice(4)}` }, BLOCK_HASH, receipt()))).toBe(ANOTHER_TRANSFER);
  });

  it("says which transfer and block in every reason", () => {
    const other = { ...transfer, txHash: "0xfeed", logIndex: 0, blockNumber: 7n };
    expect(disputed(witnessVerdict(other, OTHER_BLOCK_HASH, receipt()))).toBe("the second endpoint has another block 7 than the one holding log 0 of transaction 0xfeed in block 7");
  });
});
