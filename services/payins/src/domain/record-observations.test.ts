import { describe, expect, it } from "vitest";
import type { PayInStatus } from "./pay-in-intent.js";
import {
  nextStatus,
  recordedAfterPaid,
  recordObservations,
  type IntentObservationTx,
  type Observation,
  type ObservationStore,
  type ObservedIntent,
  type ReportedTransfer,
} from "./record-observations.js";
import type { TransferEvidence } from "./settlement.js";

const A = "0192a3b4-0000-7000-8000-00000000000a";
const B = "0192a3b4-0000-7000-8000-00000000000b";
const C = "0192a3b4-0000-7000-8000-00000000000c";
const UNKNOWN = "0192a3b4-0000-7000-8000-0000000000ff";

const DEADLINE = new Date("2030-01-01T00:00:00.000Z");
const BEFORE = new Date("2029-12-31T23:00:00.000Z");
const T1 = new Date("2029-12-31T23:10:00.000Z");
const T2 = new Date("2029-12-31T23:20:00.000Z");
const T3 = new Date("2029-12-31T23:30:00.000Z");

/** 12.5 usdc on erc20 (6 decimals). */
const EXPECTED = 12_500_000n;

function intent(status: PayInStatus = "created"): ObservedIntent {
  return { status, asset: "usdc", rail: "erc20", expectedAmount: "12.5", expiresAt: DEADLINE };
}

const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

/** A settled, timely usdc transfer on erc20 (the intents' token and rail), tx `n`, changed by `over`. */
function transfer(n: number, amount: bigint, over: Partial<ReportedTransfer> = {}): ReportedTransfer {
  return {
    chainId: 1,
    txHash: hash(n),
    logIndex: 0,
    fromAddress: `0x${"ab".repeat(20)}`,
    blockNumber: 100n + BigInt(n),
    blockHash: hash(1_000 + n),
    rail: "erc20",
    asset: "usdc",
    decimals: 6,
    amount,
    blockTime: BEFORE,
    state: "settled",
    dust: false,
    version: 1,
    vanished: false,
    ...over,
  };
}

const armed = (intentUuid: string): Observation => ({ kind: "armed", intentUuid, rail: "erc20", chainId: 1, fromBlock: 90n });
const seen = (intentUuid: string, t: ReportedTransfer): Observation => ({ kind: "transfer", intentUuid, transfer: t });

interface Row {
  intentUuid: string;
  transfer: ReportedTransfer;
  afterPaid: boolean;
  recordedAt: Date;
  updatedAt: Date;
}
interface IntentRow {
  intent: ObservedIntent;
  updatedAt: Date | null;
}
interface State {
  intents: Map<string, IntentRow>;
  transfers: Map<string, Row>;
}

const keyOf = (t: ReportedTransfer) => `${t.chainId}/${t.txHash}/${t.logIndex}`;
const clone = (s: State): State => ({
  intents: new Map([...s.intents].map(([k, v]) => [k, { intent: { ...v.intent }, updatedAt: v.updatedAt }])),
  transfers: new Map([...s.transfers].map(([k, v]) => [k, { ...v, transfer: { ...v.transfer } }])),
});

/**
 * An in-memory ObservationStore with the rules of the real one: a transaction
 * commits all of its writes or none; a transfer is kept once per (chain id, tx
 * hash, log index), under the intent it was first recorded for, and replaced
 * (its block, state and version) only by a higher version; its after-paid
 * flag is the one of its first record. It checks that a
 * transaction touches only the intent it locked, and logs each transaction.
 */
function fakeStore(intents: Record<string, ObservedIntent>) {
  let state: State = {
    intents: new Map(Object.entries(intents).map(([uuid, i]) => [uuid, { intent: { ...i }, updatedAt: null }])),
    transfers: new Map(),
  };
  /** Per committed or failed transaction: the intents it locked and what it wrote. */
  const transactions: { locked: string[]; writes: string[]; committed: boolean }[] = [];

  const store: ObservationStore = {
    async inTransaction(work) {
      const draft = clone(state);
      const log = { locked: [] as string[], writes: [] as string[], committed: false };
      transactions.push(log);
      const mustHold = (intentUuid: string) => {
        if (!log.locked.includes(intentUuid)) throw new Error(`intent ${intentUuid} used without its lock`);
      };
      const tx: IntentObservationTx = {
        async lockIntent(intentUuid) {
          const row = draft.intents.get(intentUuid);
          if (!row) return null;
          log.locked.push(intentUuid);
          return { ...row.intent };
        },
        async saveTransfer(intentUuid, t, afterPaid, now) {
          mustHold(intentUuid);
          log.writes.push(`transfer ${intentUuid}`);
          const existing = draft.transfers.get(keyOf(t));
          if (!existing) {
            draft.transfers.set(keyOf(t), { intentUuid, transfer: { ...t }, afterPaid, recordedAt: now, updatedAt: now });
            return { transfer: { ...t, afterPaid }, previous: null };
          }
          if (existing.transfer.version < t.version) {
            const previous = { state: existing.transfer.state };
            const { blockNumber, blockHash, blockTime, state: transferState, version } = t;
            existing.transfer = { ...existing.transfer, blockNumber, blockHash, blockTime, state: transferState, version };
            existing.updatedAt = now;
            return { transfer: { ...existing.transfer, afterPaid: existing.afterPaid }, previous };
          }
          return null;
        },
        async transfersOf(intentUuid) {
          mustHold(intentUuid);
          return [...draft.transfers.values()].filter((r) => r.intentUuid === intentUuid).map((r): TransferEvidence => ({ ...r.transfer, afterPaid: r.afterPaid }));
        },
        async setStatus(intentUuid, status, now) {
          mustHold(intentUuid);
          log.writes.push(`status ${intentUuid}`);
          const row = draft.intents.get(intentUuid)!;
          row.intent.status = status;
          row.updatedAt = now;
        },
        async writeEvents(intentUuid, events) {
          mustHold(intentUuid);
          if (events.length === 0) throw new Error("asked to write no events");
          log.writes.push(...events.map((e) => `event ${intentUuid} ${e.type}`));
        },
        async checkoutPaid(intentUuid) {
          mustHold(intentUuid);
          log.writes.push(`checkout paid ${intentUuid}`);
        },
      };
      const result = await work(tx);
      state = draft;
      log.committed = true;
      return result;
    },
  };
  return {
    store,
    transactions,
    status: (intentUuid: string) => state.intents.get(intentUuid)!.intent.status,
    updatedAt: (intentUuid: string) => state.intents.get(intentUuid)!.updatedAt,
    transfers: (intentUuid: string) => [...state.transfers.values()].filter((r) => r.intentUuid === intentUuid),
    snapshot: () => clone(state),
  };
}

const NOW = new Date("2029-12-31T23:40:00.000Z");
const LATER = new Date("2029-12-31T23:50:00.000Z");

describe("nextStatus", () => {
  it("keeps paid whatever else holds: paid is final", () => {
    for (const watched of [false, true]) for (const paid of [false, true]) expect(nextStatus("paid", watched, paid)).toBe("paid");
  });

  it("moves to paid from any status once the evidence pays", () => {
    for (const current of ["created", "awaiting_payment"] as const) {
      expect(nextStatus(current, false, true)).toBe("paid");
      expect(nextStatus(current, true, true)).toBe("paid");
    }
  });

  it("moves created to awaiting payment once watched, and leaves it created otherwise", () => {
    expect(nextStatus("created", true, false)).toBe("awaiting_payment");
    expect(nextStatus("created", false, false)).toBe("created");
  });

  it("leaves awaiting payment as it is until paid", () => {
    expect(nextStatus("awaiting_payment", true, false)).toBe("awaiting_payment");
    expect(nextStatus("awaiting_payment", false, false)).toBe("awaiting_payment");
  });
});

describe("recordedAfterPaid", () => {
  it("is after paid only when the intent is already paid as the report is recorded", () => {
    expect(recordedAfterPaid("paid")).toBe(true);
    expect(recordedAfterPaid("awaiting_payment")).toBe(false);
    expect(recordedAfterPaid("created")).toBe(false);
  });
});

describe("recordObservations after paid", () => {
  const afterPaidOf = (fake: ReturnType<typeof fakeStore>, intentUuid: string) =>
    fake.transfers(intentUuid).map((r) => [r.transfer.txHash, r.transfer.state, r.afterPaid]);

  it("records a transfer first seen once the intent is paid as after paid, and leaves the status paid", async () => {
    const fake = fakeStore({ [A]: intent() });
    await recordObservations(fake.store, [armed(A), seen(A, transfer(1, EXPECTED))], NOW);
    expect(fake.status(A)).toBe("paid");
    // The payer pays again: seen pending, then settled.
    const states = await recordObservations(fake.store, [seen(A, transfer(2, EXPECTED, { state: "pending", blockTime: T2 }))], LATER);
    expect(states).toEqual([{ intentUuid: A, known: true, expiresAt: DEADLINE, paid: true }]);
    expect(afterPaidOf(fake, A)).toEqual([
      [hash(1), "settled", false],
      [hash(2), "pending", true],
    ]);
    expect(fake.status(A)).toBe("paid");
    // Paid is not written again.
    expect(fake.updatedAt(A)).toEqual(NOW);
  });

  it("keeps the flag through the transfer's later states: settled, orphaned, settled again", async () => {
    const fake = fakeStore({ [A]: intent("paid") });
    for (const [state, version] of [["pending", 1], ["settled", 2], ["orphaned", 3], ["settled", 4]] as const) {
      await recordObservations(fake.store, [seen(A, transfer(1, EXPECTED, { state, version }))], NOW);
      expect(afterPaidOf(fake, A)).toEqual([[hash(1), state, true]]);
    }
    expect(fake.status(A)).toBe("paid");
  });

  it("never flags a transfer first recorded before paid, even when it settles after the intent is paid", async () => {
    const fake = fakeStore({ [A]: intent() });
    await recordObservations(fake.store, [seen(A, transfer(1, EXPECTED, { state: "pending" })), seen(A, transfer(2, EXPECTED, { state: "pending" }))], NOW);
    await recordObservations(fake.store, [seen(A, transfer(1, EXPECTED, { version: 2 }))], NOW);
    expect(fake.status(A)).toBe("paid");
    // Its second settles once the intent is paid: seen before, an over-payment, not after paid.
    await recordObservations(fake.store, [seen(A, transfer(2, EXPECTED, { version: 2 }))], LATER);
    expect(afterPaidOf(fake, A)).toEqual([
      [hash(1), "settled", false],
      [hash(2), "settled", false],
    ]);
  });

  it("does not flag a transfer reported in the same call as the one that pays the intent", async () => {
    const fake = fakeStore({ [A]: intent() });
    await recordObservations(fake.store, [seen(A, transfer(1, EXPECTED)), seen(A, transfer(2, 1_000_000n))], NOW);
    expect(fake.status(A)).toBe("paid");
    expect(afterPaidOf(fake, A).map(([, , afterPaid]) => afterPaid)).toEqual([false, false]);
  });

  it("flags whatever arrives after paid, late, another token, another rail and dust included, and changes nothing when replayed", async () => {
    const fake = fakeStore({ [A]: intent("paid") });
    const report = [
      seen(A, transfer(1, EXPECTED, { blockTime: new Date(DEADLINE.getTime() + 1) })),
      seen(A, transfer(2, EXPECTED, { asset: "usdt", decimals: 18 })),
      seen(A, transfer(3, EXPECTED, { rail: "bep20", chainId: 56 })),
      seen(A, transfer(4, 0n, { dust: true })),
    ];
    await recordObservations(fake.store, report, NOW);
    const after = fake.snapshot();
    expect(fake.transfers(A).map((r) => r.afterPaid)).toEqual([true, true, true, true]);
    await recordObservations(fake.store, report, LATER);
    expect(fake.snapshot()).toEqual(after);
  });

  it("keeps a transfer recorded before paid unflagged when it is reported again after", async () => {
    const fake = fakeStore({ [A]: intent() });
    await recordObservations(fake.store, [seen(A, transfer(1, 1_000_000n, { state: "pending" }))], NOW);
    await recordObservations(fake.store, [seen(A, transfer(2, EXPECTED))], NOW);
    await recordObservations(fake.store, [seen(A, transfer(1, 1_000_000n, { state: "orphaned", version: 2 }))], LATER);
    expect(afterPaidOf(fake, A)).toEqual([
      [hash(1), "orphaned", false],
      [hash(2), "settled", false],
    ]);
  });
});

describe("recordObservations", () => {
  it("answers known:false for an intent it does not know, and records nothing for it", async () => {
    const fake = fakeStore({ [A]: intent() });
    const states = await recordObservations(fake.store, [armed(UNKNOWN), seen(UNKNOWN, transfer(1, EXPECTED))], NOW);
    expect(states).toEqual([{ intentUuid: UNKNOWN, known: false, expiresAt: null, paid: false }]);
    expect(fake.transfers(UNKNOWN)).toEqual([]);
    expect(fake.transactions.flatMap((t) => t.writes)).toEqual([]);
  });

  it("moves a created intent to awaiting payment when its address is armed", async () => {
    const fake = fakeStore({ [A]: intent() });
    const states = await recordObservations(fake.store, [armed(A)], NOW);
    expect(states).toEqual([{ intentUuid: A, known: true, expiresAt: DEADLINE, paid: false }]);
    expect(fake.status(A)).toBe("awaiting_payment");
    expect(fake.updatedAt(A)).toEqual(NOW);
  });

  it("moves a created intent to awaiting payment on any evidence, even evidence that does not count", async () => {
    const cases: ReportedTransfer[] = [
      transfer(1, EXPECTED, { state: "pending" }),
      transfer(1, EXPECTED, { state: "orphaned" }),
      transfer(1, EXPECTED, { asset: "usdt", rail: "bep20", decimals: 18 }),
      transfer(1, EXPECTED, { blockTime: new Date(DEADLINE.getTime() + 1) }),
      transfer(1, 0n, { dust: true }),
      transfer(1, 1n),
    ];
    for (const t of cases) {
      const fake = fakeStore({ [A]: intent() });
      expect(await recordObservations(fake.store, [seen(A, t)], NOW)).toEqual([{ intentUuid: A, known: true, expiresAt: DEADLINE, paid: false }]);
      expect(fake.status(A)).toBe("awaiting_payment");
    }
  });

  it("leaves an intent created when the only transfer named is already another intent's evidence", async () => {
    const fake = fakeStore({ [A]: intent(), [B]: intent() });
    await recordObservations(fake.store, [seen(A, transfer(1, 1n))], NOW);
    // The same (chain, tx, log) named for B is kept once, as A's.
    expect(await recordObservations(fake.store, [seen(B, transfer(1, 1n))], LATER)).toEqual([{ intentUuid: B, known: true, expiresAt: DEADLINE, paid: false }]);
    expect(fake.status(B)).toBe("created");
    expect(fake.updatedAt(B)).toBeNull();
    expect(fake.transfers(B)).toEqual([]);
    // Armed in the same call, it is watched all the same.
    await recordObservations(fake.store, [seen(B, transfer(1, 1n)), armed(B)], LATER);
    expect(fake.status(B)).toBe("awaiting_payment");
  });

  it("does not write an intent whose status does not change", async () => {
    const fake = fakeStore({ [A]: intent("awaiting_payment") });
    await recordObservations(fake.store, [armed(A)], NOW);
    expect(fake.status(A)).toBe("awaiting_payment");
    expect(fake.updatedAt(A)).toBeNull();
  });

  it("pays on a settled transfer of exactly the expected amount", async () => {
    const fake = fakeStore({ [A]: intent() });
    expect(await recordObservations(fake.store, [armed(A), seen(A, transfer(1, EXPECTED))], NOW)).toEqual([
      { intentUuid: A, known: true, expiresAt: DEADLINE, paid: true },
    ]);
    expect(fake.status(A)).toBe("paid");
    expect(fake.updatedAt(A)).toEqual(NOW);
  });

  it("pays a created intent straight away when the first report already pays it", async () => {
    const fake = fakeStore({ [A]: intent() });
    await recordObservations(fake.store, [seen(A, transfer(1, EXPECTED * 2n))], NOW);
    expect(fake.status(A)).toBe("paid");
  });

  it("leaves a partial payment awaiting, and pays once a second partial makes up the rest", async () => {
    const fake = fakeStore({ [A]: intent() });
    expect(await recordObservations(fake.store, [armed(A), seen(A, transfer(1, 5_000_000n))], NOW)).toEqual([
      { intentUuid: A, known: true, expiresAt: DEADLINE, paid: false },
    ]);
    expect(fake.status(A)).toBe("awaiting_payment");
    expect(await recordObservations(fake.store, [seen(A, transfer(2, 7_500_000n, { blockTime: T1 }))], LATER)).toEqual([
      { intentUuid: A, known: true, expiresAt: DEADLINE, paid: true },
    ]);
    expect(fake.status(A)).toBe("paid");
    expect(fake.updatedAt(A)).toEqual(LATER);
  });

  it("pays on two partials reported in one call", async () => {
    const fake = fakeStore({ [A]: intent() });
    await recordObservations(fake.store, [seen(A, transfer(1, 6_000_000n)), seen(A, transfer(2, 6_500_000n))], NOW);
    expect(fake.status(A)).toBe("paid");
    expect(fake.transfers(A)).toHaveLength(2);
  });

  it("pays on an over-payment", async () => {
    const fake = fakeStore({ [A]: intent() });
    await recordObservations(fake.store, [seen(A, transfer(1, EXPECTED + 1n))], NOW);
    expect(fake.status(A)).toBe("paid");
  });

  it("does not pay on one base unit short", async () => {
    const fake = fakeStore({ [A]: intent() });
    await recordObservations(fake.store, [seen(A, transfer(1, EXPECTED - 1n))], NOW);
    expect(fake.status(A)).toBe("awaiting_payment");
  });

  it("never pays on a transfer in a block 1 ms after the deadline; one exactly at the deadline pays", async () => {
    const late = fakeStore({ [A]: intent() });
    await recordObservations(late.store, [seen(A, transfer(1, EXPECTED, { blockTime: new Date(DEADLINE.getTime() + 1) }))], NOW);
    expect(late.status(A)).toBe("awaiting_payment");
    const onTime = fakeStore({ [A]: intent() });
    await recordObservations(onTime.store, [seen(A, transfer(1, EXPECTED, { blockTime: new Date(DEADLINE.getTime()) }))], NOW);
    expect(onTime.status(A)).toBe("paid");
  });

  it("never pays on the wrong token, the wrong network or dust", async () => {
    const fake = fakeStore({ [A]: intent() });
    const states = await recordObservations(
      fake.store,
      [
        seen(A, transfer(1, EXPECTED * 10n ** 12n, { asset: "usdt", decimals: 18 })),
        seen(A, transfer(2, EXPECTED, { rail: "bep20", chainId: 56, decimals: 18 })),
        seen(A, transfer(3, EXPECTED, { dust: true })),
      ],
      NOW,
    );
    expect(states).toEqual([{ intentUuid: A, known: true, expiresAt: DEADLINE, paid: false }]);
    expect(fake.status(A)).toBe("awaiting_payment");
    expect(fake.transfers(A)).toHaveLength(3);
  });

  it("does not pay on a pending transfer, and pays when the same transfer is reported settled", async () => {
    const fake = fakeStore({ [A]: intent() });
    await recordObservations(fake.store, [armed(A), seen(A, transfer(1, EXPECTED, { state: "pending", version: 1 }))], NOW);
    expect(fake.status(A)).toBe("awaiting_payment");
    const states = await recordObservations(fake.store, [seen(A, transfer(1, EXPECTED, { state: "settled", version: 2 }))], LATER);
    expect(states).toEqual([{ intentUuid: A, known: true, expiresAt: DEADLINE, paid: true }]);
    expect(fake.status(A)).toBe("paid");
    expect(fake.transfers(A).map((r) => [r.transfer.state, r.transfer.version])).toEqual([["settled", 2]]);
  });

  it("does not count an orphaned transfer, and counts it again once it settles in a later block", async () => {
    const fake = fakeStore({ [A]: intent() });
    await recordObservations(fake.store, [seen(A, transfer(1, EXPECTED, { state: "pending", version: 1 }))], NOW);
    await recordObservations(fake.store, [seen(A, transfer(1, EXPECTED, { state: "orphaned", version: 2 }))], NOW);
    expect(fake.status(A)).toBe("awaiting_payment");
    const reincluded = transfer(1, EXPECTED, { state: "settled", version: 3, blockNumber: 200n, blockHash: hash(2_000), blockTime: T2 });
    expect(await recordObservations(fake.store, [seen(A, reincluded)], LATER)).toEqual([{ intentUuid: A, known: true, expiresAt: DEADLINE, paid: true }]);
    expect(fake.status(A)).toBe("paid");
    expect(fake.transfers(A).map((r) => r.transfer)).toEqual([reincluded]);
  });

  it("keeps paid when a counted transfer is later reported orphaned: paid is final", async () => {
    const fake = fakeStore({ [A]: intent() });
    await recordObservations(fake.store, [seen(A, transfer(1, EXPECTED, { version: 1 }))], NOW);
    expect(fake.status(A)).toBe("paid");
    const states = await recordObservations(fake.store, [seen(A, transfer(1, EXPECTED, { state: "orphaned", version: 2 }))], LATER);
    expect(states).toEqual([{ intentUuid: A, known: true, expiresAt: DEADLINE, paid: true }]);
    expect(fake.status(A)).toBe("paid");
    expect(fake.updatedAt(A)).toEqual(NOW);
    expect(fake.transfers(A)[0]!.transfer.state).toBe("orphaned");
  });

  it("answers paid for an intent already paid, whatever is reported", async () => {
    const fake = fakeStore({ [A]: intent("paid") });
    expect(await recordObservations(fake.store, [armed(A)], NOW)).toEqual([{ intentUuid: A, known: true, expiresAt: DEADLINE, paid: true }]);
    expect(fake.updatedAt(A)).toBeNull();
    // Nothing changed: no event, and its checkout (if any) is not told paid again.
    expect(fake.transactions.flatMap((t) => t.writes)).toEqual([]);
  });

  it("fails on counting transfers that report different decimals, recording nothing of that intent", async () => {
    const fake = fakeStore({ [A]: intent() });
    const before = fake.snapshot();
    await expect(recordObservations(fake.store, [seen(A, transfer(1, 1n)), seen(A, transfer(2, 1n, { decimals: 18 }))], NOW)).rejects.toThrow(
      /different decimals/,
    );
    expect(fake.snapshot()).toEqual(before);
  });

  it("records each intent in one transaction of its own, which locks it", async () => {
    const fake = fakeStore({ [A]: intent(), [B]: intent(), [C]: intent() });
    await recordObservations(
      fake.store,
      [armed(A), seen(B, transfer(1, EXPECTED)), seen(A, transfer(2, 1n)), armed(UNKNOWN), seen(C, transfer(3, 1n)), seen(B, transfer(4, 1n))],
      NOW,
    );
    expect(fake.transactions.map((t) => ({ locked: t.locked, committed: t.committed }))).toEqual([
      { locked: [A], committed: true },
      { locked: [B], committed: true },
      { locked: [], committed: true },
      { locked: [C], committed: true },
    ]);
    // Each transaction writes its intent's events with its change: intent-events.ts decides which.
    const events = (uuid: string, ...types: string[]) => types.map((type) => `event ${uuid} pay_in_intent.${type}`);
    expect(fake.transactions.map((t) => t.writes)).toEqual([
      [`transfer ${A}`, `status ${A}`, ...events(A, "awaiting_payment", "transfer_settled")],
      [`transfer ${B}`, `transfer ${B}`, `status ${B}`, ...events(B, "awaiting_payment", "transfer_settled", "transfer_settled", "paid"), `checkout paid ${B}`],
      [],
      [`transfer ${C}`, `status ${C}`, ...events(C, "awaiting_payment", "transfer_settled")],
    ]);
    expect([fake.status(A), fake.status(B), fake.status(C)]).toEqual(["awaiting_payment", "paid", "awaiting_payment"]);
  });

  it("answers once per intent, in the order intents were first named", async () => {
    const fake = fakeStore({ [A]: intent(), [B]: intent(), [C]: intent("paid") });
    const states = await recordObservations(
      fake.store,
      [seen(B, transfer(1, 1n)), armed(C), armed(A), seen(UNKNOWN, transfer(2, 1n)), seen(B, transfer(3, EXPECTED)), armed(A)],
      NOW,
    );
    expect(states).toEqual([
      { intentUuid: B, known: true, expiresAt: DEADLINE, paid: true },
      { intentUuid: C, known: true, expiresAt: DEADLINE, paid: true },
      { intentUuid: A, known: true, expiresAt: DEADLINE, paid: false },
      { intentUuid: UNKNOWN, known: false, expiresAt: null, paid: false },
    ]);
  });

  it("changes nothing when the same report is replayed", async () => {
    const fake = fakeStore({ [A]: intent(), [B]: intent() });
    const report = [armed(A), seen(A, transfer(1, 5_000_000n)), seen(A, transfer(2, 1n, { state: "pending" })), seen(B, transfer(3, EXPECTED))];
    const first = await recordObservations(fake.store, report, NOW);
    const after = fake.snapshot();
    const again = await recordObservations(fake.store, report, LATER);
    expect(again).toEqual(first);
    expect(fake.snapshot()).toEqual(after);
    expect(fake.transfers(A)).toHaveLength(2);
    expect(fake.transfers(A).every((r) => r.recordedAt === NOW && r.updatedAt === NOW)).toBe(true);
  });

  it("never lets an older version overwrite a newer one, nor the same version twice", async () => {
    const fake = fakeStore({ [A]: intent() });
    const settled = transfer(1, 5_000_000n, { state: "settled", version: 3, blockTime: T3 });
    await recordObservations(fake.store, [seen(A, settled)], NOW);
    // Reported out of order: an older pending version, then an orphaned report under the same version.
    await recordObservations(fake.store, [seen(A, transfer(1, 5_000_000n, { state: "pending", version: 2, blockTime: T1 }))], LATER);
    await recordObservations(fake.store, [seen(A, transfer(1, 5_000_000n, { state: "orphaned", version: 3, blockTime: T2 }))], LATER);
    expect(fake.transfers(A).map((r) => ({ transfer: r.transfer, updatedAt: r.updatedAt }))).toEqual([{ transfer: settled, updatedAt: NOW }]);
    // Within one call too, the newest version wins whatever the order.
    await recordObservations(
      fake.store,
      [seen(A, transfer(2, 7_500_000n, { state: "settled", version: 2 })), seen(A, transfer(2, 7_500_000n, { state: "pending", version: 1 }))],
      LATER,
    );
    expect(fake.transfers(A).map((r) => r.transfer.state)).toEqual(["settled", "settled"]);
    expect(fake.status(A)).toBe("paid");
  });
});
