/**
 * What arrives at an intent's address once it is paid, and spam, on real
 * chains: two anvil chains, the whole platform with its chain observer, real
 * ERC-20 transfers read over HTTP from the transfers endpoint. Blocks are mined
 * by the tests (a block per transaction, more with anvil_mine); the local chains
 * settle head − 2.
 */
import { startTestPlatform, type TestPlatform } from "@payin/testing";
import { mineBlocks, startLocalChains, type LocalChains, type LocalRail } from "@payin/local-chains";
import pg from "pg";
import { encodeFunctionData, erc20Abi, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainMerchant, eventually } from "./chain-support.js";
import { Api, expectAnswersDocumented, Operator, type TestMerchant } from "./support.js";

let chains: LocalChains;
let platform: TestPlatform;
let api: Api;
let db: pg.Pool;
let merchant: TestMerchant;
let shop: ChainMerchant;
/** How long these tests wait on the observer (300 transfers take a while to read). */
const WAIT_MS = 30_000;

expectAnswersDocumented();

beforeAll(async () => {
  chains = await startLocalChains();
  platform = await startTestPlatform({ env: { ...chains.env, BEP20_POLL_INTERVAL_MS: "100", ERC20_POLL_INTERVAL_MS: "100" } });
  api = new Api(platform.apiUrl);
  merchant = await new Operator(platform).merchant({ name: "Refund shop" });
  shop = new ChainMerchant(api, merchant, chains);
  db = new pg.Pool({ connectionString: platform.databaseUrl, max: 2 });
}, 240_000);

afterAll(async () => {
  await platform?.stopAll();
  await db?.end();
  await chains?.stop();
}, 60_000);

interface Intent {
  intent_uuid: string;
  address: Address;
  expires_at: string;
}

interface TransfersBody {
  expected_amount: string;
  received_amount: string;
  pending_amount: string;
  after_paid_amount: string;
  dust_count: number;
  data: { tx_hash: string; log_index: number; amount: string; state: string; from_address: string; flags: Record<string, boolean> }[];
  pagination: { total: number; limit: number; offset: number };
}

const createIntent = (overrides: Record<string, unknown>) => shop.createIntent<Intent>(overrides);
const statusOf = (intent: Intent) => shop.statusOf(intent);

async function transfersOf(intent: Intent, query = ""): Promise<TransfersBody & { size: number }> {
  const res = await api.request("GET", `/api/v1/merchants/${merchant.uuid}/pay-in-intents/${intent.intent_uuid}/transfers${query}`, { token: merchant.token });
  expect(res.status, res.text).toBe(200);
  return { ...(res.body as TransfersBody), size: res.text.length };
}

const pay = (local: LocalRail, asset: "usdt" | "usdc", to: Address, amount: string): Promise<Hex> => shop.pay(local, asset, to, amount);
const armed = (intent: Intent, local: LocalRail) => shop.armed(intent, local, WAIT_MS);

/** Pays the intent exactly and waits until it is paid. */
async function payInFull(intent: Intent, local: LocalRail, asset: "usdt" | "usdc", amount: string): Promise<Hex> {
  await armed(intent, local);
  const tx = await pay(local, asset, intent.address, amount);
  await mineBlocks(local, 2);
  await eventually(() => statusOf(intent), (s) => s === "paid", "the intent to be paid", WAIT_MS);
  return tx;
}

/**
 * `count` zero-value `transferFrom`s of the rail's token, from as many other
 * addresses to `to` (address poisoning: anyone can emit them), in as few blocks
 * as the gas limit allows.
 */
async function sprayZeroTransfers(local: LocalRail, asset: "usdt" | "usdc", to: Address, count: number): Promise<void> {
  const client = local.publicClient;
  await client.request({ method: "evm_setAutomine" as never, params: [false] as never });
  try {
    const nonce = await client.getTransactionCount({ address: chains.payer.address, blockTag: "pending" });
    const { baseFeePerGas } = await client.getBlock();
    for (let n = 0; n < count; n++) {
      const from = `0x${(n + 1).toString(16).padStart(40, "0")}` as Address;
      const raw = await chains.payer.signTransaction({
        type: "eip1559",
        chainId: local.chain.chainId,
        nonce: nonce + n,
        to: local.tokens[asset].address,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "transferFrom", args: [from, to, 0n] }),
        gas: 100_000n,
        maxFeePerGas: (baseFeePerGas ?? 1_000_000_000n) * 4n,
        maxPriorityFeePerGas: 1n,
      });
      await client.sendRawTransaction({ serializedTransaction: raw });
    }
    // Mine until every one is in a block.
    for (let blocks = 0; (await client.getTransactionCount({ address: chains.payer.address })) < nonce + count; blocks++) {
      if (blocks > 20) throw new Error("the zero-value transfers were not all mined");
      await mineBlocks(local, 1);
    }
  } finally {
    await client.request({ method: "evm_setAutomine" as never, params: [true] as never });
  }
  await mineBlocks(local, 2);
}

describe("a payment after paid", () => {
  it("keeps watching a paid intent's address: a second payment and a top-up show as after_paid with the amount to give back, the intent stays paid", async () => {
    const local = chains.rails.bep20;
    const intent = await createIntent({ asset: "usdt", amount: "12.5" });
    const first = await payInFull(intent, local, "usdt", "12.5");
    const paid = await transfersOf(intent);
    expect(paid).toMatchObject({ expected_amount: "12.5", received_amount: "12.5", pending_amount: "0", after_paid_amount: "0" });

    // Its address is watched until the watching margin after its deadline, as an unpaid one's.
    const watch = await db.query(`select watch_until from allocation.allocations where intent_uuid = $1`, [intent.intent_uuid]);
    expect(new Date(watch.rows[0].watch_until).toISOString()).toBe(new Date(new Date(intent.expires_at).getTime() + 7 * 24 * 3_600_000).toISOString());

    // The payer pays again, then tops up.
    const again = await pay(local, "usdt", intent.address, "12.5");
    const topUp = await pay(local, "usdt", intent.address, "0.75");
    const seen = await eventually(() => transfersOf(intent), (t) => t.data.length === 3, "the later transfers to be seen", WAIT_MS);
    expect(seen.data.find((d) => d.tx_hash === again)?.flags.after_paid).toBe(true);
    await mineBlocks(local, 2);
    const evidence = await eventually(() => transfersOf(intent), (t) => t.data.every((d) => d.state === "settled"), "the later transfers to settle", WAIT_MS);
    expect(evidence).toMatchObject({ expected_amount: "12.5", received_amount: "12.5", pending_amount: "0", after_paid_amount: "13.25", dust_count: 0 });
    expect(evidence.data.map((d) => [d.tx_hash, d.amount, d.state, d.flags])).toEqual([
      [first, "12.5", "settled", { late: false, wrong_network: false, wrong_token: false, dust: false, after_paid: false, vanished: false }],
      [again, "12.5", "settled", { late: false, wrong_network: false, wrong_token: false, dust: false, after_paid: true, vanished: false }],
      [topUp, "0.75", "settled", { late: false, wrong_network: false, wrong_token: false, dust: false, after_paid: true, vanished: false }],
    ]);
    expect(await statusOf(intent)).toBe("paid");
  });
});

describe("spam", () => {
  it("pages 300 zero-value transfers to one address: every one counted, a bounded page listed, the amounts over all of them", async () => {
    const local = chains.rails.erc20;
    const intent = await createIntent({ asset: "usdc", amount: "5" });
    const payment = await payInFull(intent, local, "usdc", "5");
    await sprayZeroTransfers(local, "usdc", intent.address, 300);
    const first = await eventually(
      () => transfersOf(intent),
      (t) => t.pagination.total === 301 && t.dust_count === 300,
      "the zero-value transfers to be recorded",
      60_000,
    );
    expect(first).toMatchObject({ received_amount: "5", pending_amount: "0", after_paid_amount: "0", dust_count: 300 });
    expect(first.pagination).toEqual({ total: 301, limit: 20, offset: 0 });
    expect(first.data).toHaveLength(20);
    expect(first.data[0]).toMatchObject({ tx_hash: payment, amount: "5", flags: { dust: false, after_paid: false, vanished: false } });
    expect(first.data[1]).toMatchObject({ amount: "0", flags: { dust: true, after_paid: true, vanished: false } });
    // One page stays small whatever the spam.
    expect(first.size).toBeLessThan(12_000);

    // Pages of 100 list each transfer once.
    const listed: string[] = [];
    for (let offset = 0; offset < 301; offset += 100) {
      const page = await transfersOf(intent, `?limit=100&offset=${offset}`);
      expect(page.pagination).toEqual({ total: 301, limit: 100, offset });
      expect(page).toMatchObject({ received_amount: "5", dust_count: 300 });
      listed.push(...page.data.map((d) => `${d.tx_hash}/${d.log_index}`));
    }
    expect(listed).toHaveLength(301);
    expect(new Set(listed).size).toBe(301);
    expect(await statusOf(intent)).toBe("paid");
  });
});
