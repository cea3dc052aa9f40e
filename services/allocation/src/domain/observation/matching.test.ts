import { railsFromEnv, type RailConfig, type RailToken } from "@payin/rails";
import { describe, expect, it } from "vitest";
import { matchTransfers, type TransferLogFact, type Watch } from "./matching.js";

const USDT: RailToken = { asset: "usdt", contract: "0x00000000000000000000000000000000000000a1", decimals: 18 };
const USDC: RailToken = { asset: "usdc", contract: "0x00000000000000000000000000000000000000a2", decimals: 6 };
const IMPOSTOR = "0x00000000000000000000000000000000000000ff";

const ALICE = "0x1111111111111111111111111111111111111111";
const BOB = "0x2222222222222222222222222222222222222222";
const PAYER = "0x9999999999999999999999999999999999999999";

/** A rail paying in USDT (18 decimals) watching USDC (6) too; dust is 0.001 of a token. */
const rail: RailConfig = {
  rail: "bep20",
  chainId: 1_337_056,
  rpcUrls: [],
  genesisHash: undefined,
  token: USDT,
  otherTokens: [USDC],
  confirmations: 2,
  pollIntervalMs: 250,
  maxBlockRange: 50,
  dustThreshold: (t) => 10n ** BigInt(t.decimals - 3),
};

const watched = new Map<string, Watch>([
  [ALICE, { intentUuid: "intent-alice", rail: "bep20" }],
  [BOB, { intentUuid: "intent-bob", rail: "erc20" }],
]);

function log(overrides: Partial<TransferLogFact> = {}): TransferLogFact {
  return {
    contract: USDT.contract,
    from: PAYER,
    to: ALICE,
    value: 10n ** 18n,
    txHash: `0x${"ab".repeat(32)}`,
    logIndex: 3,
    blockNumber: 42n,
    blockHash: `0x${"cd".repeat(32)}`,
    ...overrides,
  };
}

const timestamp = (n: bigint) => 1_700_000_000n + n * 3n;

describe("matchTransfers", () => {
  it("carries the intent, the rail, the chain, the token and the log's facts, with the block's timestamp from the callback", () => {
    const asked: bigint[] = [];
    const [transfer, ...rest] = matchTransfers(rail, [log()], watched, (n) => {
      asked.push(n);
      return timestamp(n);
    });
    expect(rest).toEqual([]);
    expect(transfer).toEqual({
      intentUuid: "intent-alice",
      rail: "bep20",
      chainId: 1_337_056,
      token: USDT,
      from: PAYER,
      to: ALICE,
      amount: 10n ** 18n,
      txHash: `0x${"ab".repeat(32)}`,
      logIndex: 3,
      blockNumber: 42n,
      blockHash: `0x${"cd".repeat(32)}`,
      blockTimestamp: 1_700_000_126n,
      dust: false,
    });
    expect(asked).toEqual([42n]);
  });

  it("counts only the rail's configured contracts: a token that merely calls itself USDT is ignored", () => {
    const logs = [log({ contract: IMPOSTOR, logIndex: 0 }), log({ contract: USDC.contract, value: 5_000_000n, logIndex: 1 }), log({ logIndex: 2 })];
    const matched = matchTransfers(rail, logs, watched, timestamp);
    expect(matched.map((t) => [t.logIndex, t.token.asset, t.amount])).toEqual([
      [1, "usdc", 5_000_000n],
      [2, "usdt", 10n ** 18n],
    ]);
    expect(matched[0]!.token).toBe(USDC);
    expect(matched[1]!.token).toBe(USDT);
  });

  it("ignores transfers to addresses not watched", () => {
    expect(matchTransfers(rail, [log({ to: PAYER })], watched, timestamp)).toEqual([]);
    expect(matchTransfers(rail, [log()], new Map(), timestamp)).toEqual([]);
    expect(matchTransfers(rail, [], watched, timestamp)).toEqual([]);
  });

  it("compares contracts and addresses whatever their case, and answers them in lower case", () => {
    const [transfer] = matchTransfers(
      rail,
      [
        log({
          contract: USDT.contract.toUpperCase().replace("0X", "0x"),
          from: PAYER.toUpperCase().replace("0X", "0x"),
          txHash: `0x${"AB".repeat(32)}`,
          blockHash: `0x${"CD".repeat(32)}`,
        }),
      ],
      watched,
      timestamp,
    );
    expect(transfer).toMatchObject({ from: PAYER, to: ALICE, txHash: `0x${"ab".repeat(32)}`, blockHash: `0x${"cd".repeat(32)}`, token: USDT });

    const mixedCase = new Map<string, Watch>([["0x00000000000000000000000000000000000000ab", { intentUuid: "intent-mixed", rail: "bep20" }]]);
    const [mixed] = matchTransfers(rail, [log({ to: "0x00000000000000000000000000000000000000AB" })], mixedCase, timestamp);
    expect(mixed).toMatchObject({ intentUuid: "intent-mixed", to: "0x00000000000000000000000000000000000000ab" });
  });

  it("matches a watched address whatever rail its intent is on, as observed on this rail", () => {
    const [transfer] = matchTransfers(rail, [log({ to: BOB })], watched, timestamp);
    expect(transfer).toMatchObject({ intentUuid: "intent-bob", rail: "bep20", chainId: 1_337_056, to: BOB });
  });

  it("keeps every matching log, in order, each with its own intent and block time", () => {
    const logs = [log({ to: BOB, blockNumber: 40n, logIndex: 0 }), log({ contract: IMPOSTOR, to: BOB }), log({ to: ALICE, blockNumber: 41n, logIndex: 7 })];
    const matched = matchTransfers(rail, logs, watched, timestamp);
    expect(matched.map((t) => [t.intentUuid, t.blockNumber, t.logIndex, t.blockTimestamp])).toEqual([
      ["intent-bob", 40n, 0, 1_700_000_120n],
      ["intent-alice", 41n, 7, 1_700_000_123n],
    ]);
  });

  it("flags dust: zero always, below the threshold of its token, not at or above it", () => {
    const dust = (token: RailToken, value: bigint, config: RailConfig = rail) =>
      matchTransfers(config, [log({ contract: token.contract, value })], watched, timestamp)[0]!.dust;
    // USDT of 18 decimals: 0.001 is 10^15 base units.
    expect(dust(USDT, 0n)).toBe(true);
    expect(dust(USDT, 1n)).toBe(true);
    expect(dust(USDT, 10n ** 15n - 1n)).toBe(true);
    expect(dust(USDT, 10n ** 15n)).toBe(false);
    expect(dust(USDT, 10n ** 15n + 1n)).toBe(false);
    // USDC of 6 decimals: 0.001 is 1000 base units; what is dust in one token is not in the other.
    expect(dust(USDC, 999n)).toBe(true);
    expect(dust(USDC, 1_000n)).toBe(false);
    expect(dust(USDC, 10n ** 15n - 1n)).toBe(false);
    // A threshold of zero still counts a zero transfer as dust.
    const noThreshold: RailConfig = { ...rail, dustThreshold: () => 0n };
    expect(dust(USDT, 0n, noThreshold)).toBe(true);
    expect(dust(USDT, 1n, noThreshold)).toBe(false);
  });

  it("asks the dust threshold of the transfer's own token", () => {
    const asked: string[] = [];
    const config: RailConfig = { ...rail, dustThreshold: (t) => (asked.push(t.asset), 10n) };
    matchTransfers(config, [log({ contract: USDC.contract, value: 11n }), log({ value: 11n })], watched, timestamp);
    expect(asked).toEqual(["usdc", "usdt"]);
  });

  it("flags dust with the thresholds of the rails' configuration", () => {
    const { bep20, erc20 } = railsFromEnv({ ERC20_DUST_THRESHOLD: "0.5" }).rails;
    const on = (config: RailConfig, value: bigint) =>
      matchTransfers(config, [log({ contract: config.token.contract, value })], watched, timestamp)[0]!.dust;
    expect(on(bep20, 10n ** 15n - 1n)).toBe(true);
    expect(on(bep20, 10n ** 15n)).toBe(false);
    expect(on(erc20, 499_999n)).toBe(true);
    expect(on(erc20, 500_000n)).toBe(false);
  });
});
