/**
 * From deposit address to paid on real chains: two anvil chains, the whole
 * platform with its chain observer, payments made with real ERC-20 transfers.
 * Blocks are mined by the tests (a block per transaction, more with
 * anvil_mine); the local chains finalize head − 2.
 */
import net from "node:net";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { freePort, startTestPlatform, type TestPlatform } from "@payin/testing";
import { killProcess, OBSERVER, startProcess, type RunningProcess } from "@payin/launcher";
import { compileTestToken, mineBlocks, startLocalChains, type LocalChains, type LocalRail } from "@payin/local-chains";
import pg from "pg";
import { encodeFunctionData, erc20Abi, parseUnits, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ChainMerchant, eventually } from "./chain-support.js";
import { Api, createBody, expectAnswersDocumented, expectKeys, inFuture, newKey, Operator, READ_KEYS, type TestMerchant } from "./support.js";

let chains: LocalChains;
let platform: TestPlatform;
let api: Api;
let operator: Operator;
let db: pg.Pool;
let merchant: TestMerchant;
let shop: ChainMerchant;
/** The BEP20 chain is reached through this proxy, so a test can cut the endpoint off while the chain goes on. */
let bep20Proxy: Proxy;

interface Proxy {
  url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** A TCP relay to `port` that can refuse and drop connections (an RPC outage) and come back. */
async function tcpProxy(port: number): Promise<Proxy> {
  const sockets = new Set<net.Socket>();
  let open = true;
  const server = net.createServer((client) => {
    if (!open) return void client.destroy();
    const upstream = net.connect(port, "127.0.0.1");
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const listening = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${listening}`,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      open = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

expectAnswersDocumented();

beforeAll(async () => {
  chains = await startLocalChains();
  bep20Proxy = await tcpProxy(chains.rails.bep20.chain.port);
  platform = await startTestPlatform({
    env: {
      ...chains.env,
      BEP20_RPC_URL: bep20Proxy.url,
      BEP20_POLL_INTERVAL_MS: "100",
      ERC20_POLL_INTERVAL_MS: "100",
      BEP20_DUST_THRESHOLD: "0.01",
      // A rail whose observer has not completed a pass for 2 s is not ready.
      OBSERVER_STALL_MS: "2000",
    },
  });
  api = new Api(platform.apiUrl);
  operator = new Operator(platform);
  merchant = await operator.merchant({ name: "Chain shop" });
  shop = new ChainMerchant(api, merchant, chains);
  db = new pg.Pool({ connectionString: platform.databaseUrl, max: 2 });
}, 240_000);

afterAll(async () => {
  await platform?.stopAll();
  await db?.end();
  await bep20Proxy?.close();
  await chains?.stop();
}, 60_000);

interface Intent {
  intent_uuid: string;
  address: Address;
  status: string;
  expected_amount: string;
}

const createIntent = (overrides: Record<string, unknown> = {}) => shop.createIntent<Intent>(overrides);
const statusOf = (intent: Intent) => shop.statusOf(intent);

interface TransfersBody {
  received_amount: string;
  pending_amount: string;
  expected_amount: string;
  data: { tx_hash: string; rail: string; asset: string; amount: string; state: string; block_number: number; flags: Record<string, boolean> }[];
}

async function transfersOf(intent: Intent): Promise<TransfersBody> {
  const res = await api.request("GET", `/api/v1/merchants/${merchant.uuid}/pay-in-intents/${intent.intent_uuid}/transfers`, { token: merchant.token });
  expect(res.status, res.text).toBe(200);
  return res.body as TransfersBody;
}

const pay = (local: LocalRail, asset: "usdt" | "usdc", to: Address, amount: string): Promise<Hex> => shop.pay(local, asset, to, amount);
const mine = mineBlocks;
const armed = (intent: Intent, local: LocalRail) => shop.armed(intent, local);

/** Rows of one transfer key in allocation's and payins' tables. */
async function rowsOf(tx: Hex): Promise<{ observed: number; recorded: number }> {
  const observed = await db.query(`select count(*)::int as n from allocation.observed_transfers where tx_hash = $1`, [tx]);
  const recorded = await db.query(`select count(*)::int as n from payins.pay_in_transfers where tx_hash = $1`, [tx]);
  return { observed: observed.rows[0].n, recorded: recorded.rows[0].n };
}

describe("chain observation through the API", () => {
  it("takes an intent from created to awaiting_payment to paid on a settled exact transfer, and shows the evidence", async () => {
    const local = chains.rails.bep20;
    const intent = await createIntent({ amount: "12.5" });
    expect(intent.status).toBe("created");
    await armed(intent, local);
    const tx = await pay(local, "usdt", intent.address, "12.5");
    // Seen, not settled: received stays 0, pending shows it, the intent still awaits.
    const seen = await eventually(() => transfersOf(intent), (t) => t.data.length === 1, "the transfer to be seen");
    expect(seen).toMatchObject({ expected_amount: "12.5", received_amount: "0", pending_amount: "12.5" });
    expect(seen.data[0]).toMatchObject({ tx_hash: tx, rail: "bep20", asset: "usdt", amount: "12.5", state: "pending" });
    expect(await statusOf(intent)).toBe("awaiting_payment");
    await mine(local, 2);
    await eventually(() => statusOf(intent), (s) => s === "paid", "the intent to be paid");
    const evidence = await transfersOf(intent);
    expect(evidence).toMatchObject({ received_amount: "12.5", pending_amount: "0" });
    expect(evidence.data).toEqual([expect.objectContaining({ tx_hash: tx, state: "settled", flags: { late: false, wrong_network: false, wrong_token: false, dust: false, after_paid: false, vanished: false } })]);
    // The read keeps exactly its documented fields.
    expectKeys((await api.read(merchant.uuid, merchant.token, intent.intent_uuid)).body, READ_KEYS);
    // Paid: its address is still watched, as an unpaid one's, until the watching margin after its deadline.
    const watch = await eventually(
      () => db.query(`select watch_until from allocation.allocations where intent_uuid = $1`, [intent.intent_uuid]),
      (r) => r.rows[0]?.watch_until !== null,
      "the paid intent's watch end to be set",
    );
    const expiresAt = (await api.read(merchant.uuid, merchant.token, intent.intent_uuid)).body.expires_at as string;
    expect(new Date(watch.rows[0].watch_until).toISOString()).toBe(new Date(new Date(expiresAt).getTime() + 7 * 24 * 3_600_000).toISOString());
  });

  it("replays a create with its first answer (status created), once the intent awaits payment and once it is paid", async () => {
    const local = chains.rails.bep20;
    const key = newKey();
    const body = createBody({ amount: "2" });
    const first = await api.create(merchant.uuid, merchant.token, body, key);
    expect(first.status, first.text).toBe(201);
    const intent = first.body as Intent;
    const replay = async () => {
      const again = await api.create(merchant.uuid, merchant.token, body, key);
      expect(again.status, again.text).toBe(201);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.headers.get("location")).toBe(first.headers.get("location"));
      expect(again.body).toEqual(first.body);
    };
    await armed(intent, local);
    await replay();
    await pay(local, "usdt", intent.address, "2");
    await mine(local, 2);
    await eventually(() => statusOf(intent), (s) => s === "paid", "the intent to be paid");
    await replay();
    // The read still tells the intent as it is now.
    expect(await statusOf(intent)).toBe("paid");
  });

  it("watches an unpaid intent's address until the watching margin after its deadline", async () => {
    const local = chains.rails.erc20;
    const expiresAt = inFuture(3_600_000);
    const intent = await createIntent({ asset: "usdc", amount: "1", expires_at: expiresAt });
    await armed(intent, local);
    const watch = await eventually(
      () => db.query(`select watch_until from allocation.allocations where intent_uuid = $1`, [intent.intent_uuid]),
      (r) => r.rows[0]?.watch_until !== null,
      "the intent's watch end to be set",
    );
    expect(new Date(watch.rows[0].watch_until).toISOString()).toBe(new Date(new Date(expiresAt).getTime() + 7 * 24 * 3_600_000).toISOString());
  });

  it("leaves a partial payment awaiting, pays on a second partial that adds up, and pays an over-payment showing what was received", async () => {
    const local = chains.rails.erc20;
    const partial = await createIntent({ asset: "usdc", amount: "10" });
    const over = await createIntent({ asset: "usdc", amount: "5" });
    await armed(partial, local);
    await eventually(() => statusOf(over), (s) => s === "awaiting_payment", "the second intent to await payment");
    await pay(local, "usdc", partial.address, "4");
    await mine(local, 2);
    await eventually(() => transfersOf(partial), (t) => t.received_amount === "4", "the first partial to settle");
    expect(await statusOf(partial)).toBe("awaiting_payment");
    await pay(local, "usdc", partial.address, "6");
    await pay(local, "usdc", over.address, "7.25");
    await mine(local, 2);
    await eventually(() => statusOf(partial), (s) => s === "paid", "two partials to pay the intent");
    await eventually(() => statusOf(over), (s) => s === "paid", "the over-payment to pay the intent");
    expect(await transfersOf(partial)).toMatchObject({ received_amount: "10", expected_amount: "10" });
    expect(await transfersOf(over)).toMatchObject({ received_amount: "7.25", expected_amount: "5" });
  });

  it("never pays with the wrong token, the wrong chain, a fake token, dust or a transfer to another address, and records what it saw", async () => {
    const bsc = chains.rails.bep20;
    const eth = chains.rails.erc20;
    const intent = await createIntent({ amount: "3" });
    const other = await createIntent({ amount: "3" });
    await armed(intent, bsc);
    const artifact = await compileTestToken();
    const deploy = await bsc.deployer.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args: ["Tether USD", "USDT", 18], account: chains.payer, chain: bsc.viemChain });
    const fake = (await bsc.publicClient.waitForTransactionReceipt({ hash: deploy })).contractAddress!;
    const mint = await bsc.deployer.writeContract({ address: fake, abi: artifact.abi, functionName: "mint", args: [intent.address, parseUnits("3", 18)], account: chains.payer, chain: bsc.viemChain });
    await bsc.publicClient.waitForTransactionReceipt({ hash: mint });
    await pay(bsc, "usdc", intent.address, "3"); // wrong token
    await pay(eth, "usdt", intent.address, "3"); // the right asset on the wrong chain
    await pay(bsc, "usdt", intent.address, "0.001"); // dust (threshold 0.01 here)
    await pay(bsc, "usdt", other.address, "3"); // another intent's address
    await mine(bsc, 2);
    await mine(eth, 2);
    await eventually(() => statusOf(other), (s) => s === "paid", "the other intent to be paid");
    const evidence = await eventually(() => transfersOf(intent), (t) => t.data.filter((d) => d.state === "settled").length === 3, "the evidence to settle");
    expect(evidence.data.map((d) => [d.rail, d.asset, d.amount, d.flags])).toEqual(
      expect.arrayContaining([
        ["bep20", "usdc", "3", { late: false, wrong_network: false, wrong_token: true, dust: false, after_paid: false, vanished: false }],
        ["erc20", "usdt", "3", { late: false, wrong_network: true, wrong_token: false, dust: false, after_paid: false, vanished: false }],
        ["bep20", "usdt", "0.001", { late: false, wrong_network: false, wrong_token: false, dust: true, after_paid: false, vanished: false }],
      ]),
    );
    expect(evidence.data).toHaveLength(3); // the fake token is not a token the platform watches
    expect(evidence.received_amount).toBe("0");
    expect(await statusOf(intent)).toBe("awaiting_payment");
  });

  it("does not pay before the transfer's block is settled", async () => {
    const local = chains.rails.erc20;
    const intent = await createIntent({ asset: "usdc", amount: "1" });
    await armed(intent, local);
    await pay(local, "usdc", intent.address, "1");
    await eventually(() => transfersOf(intent), (t) => t.pending_amount === "1", "the transfer to be seen");
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // ten polls, no new block: the block stays unsettled
    expect(await statusOf(intent)).toBe("awaiting_payment");
    await mine(local, 2);
    await eventually(() => statusOf(intent), (s) => s === "paid", "the intent to be paid once settled");
  });

  it("does not pay with a transfer reorganised out before settlement, then pays once when it is included again", async () => {
    const local = chains.rails.erc20;
    const intent = await createIntent({ asset: "usdc", amount: "2" });
    await armed(intent, local);
    const snapshot = (await local.publicClient.request({ method: "evm_snapshot" as never })) as Hex;
    const request = await local.publicClient.prepareTransactionRequest({
      account: chains.payer,
      chain: local.viemChain,
      to: local.tokens.usdc.address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [intent.address, 2_000_000n] }),
    });
    const raw = await chains.payer.signTransaction(request as never);
    const tx = await local.publicClient.sendRawTransaction({ serializedTransaction: raw });
    const first = await local.publicClient.waitForTransactionReceipt({ hash: tx, pollingInterval: 20 });
    await eventually(() => transfersOf(intent), (t) => t.data[0]?.state === "pending", "the transfer to be seen");
    await local.publicClient.request({ method: "evm_revert" as never, params: [snapshot] as never });
    await mine(local, 3);
    expect((await local.publicClient.getBlock({ blockNumber: first.blockNumber })).hash).not.toBe(first.blockHash);
    await eventually(() => transfersOf(intent), (t) => t.data[0]?.state === "orphaned", "the transfer to be orphaned");
    expect(await statusOf(intent)).toBe("awaiting_payment");
    await local.publicClient.sendRawTransaction({ serializedTransaction: raw });
    await local.publicClient.waitForTransactionReceipt({ hash: tx, pollingInterval: 20 });
    await mine(local, 2);
    await eventually(() => statusOf(intent), (s) => s === "paid", "the re-included transfer to pay the intent");
    const evidence = await transfersOf(intent);
    expect(evidence.data).toEqual([expect.objectContaining({ tx_hash: tx, state: "settled" })]);
    expect(evidence.received_amount).toBe("2");
    expect(await rowsOf(tx)).toEqual({ observed: 1, recorded: 1 });
  });

  it("never pays with a transfer in a block after the deadline", async () => {
    const local = chains.rails.bep20;
    const intent = await createIntent({ amount: "1", expires_at: inFuture(5_000) });
    await armed(intent, local);
    // The chain's clock passes the deadline: the including block is late, however soon it is seen.
    const latest = await local.publicClient.getBlock();
    const deadline = Math.floor(new Date((await api.read(merchant.uuid, merchant.token, intent.intent_uuid)).body.expires_at).getTime() / 1000);
    await local.publicClient.request({ method: "evm_setNextBlockTimestamp" as never, params: [`0x${Math.max(deadline + 2, Number(latest.timestamp) + 1).toString(16)}`] as never });
    await pay(local, "usdt", intent.address, "1");
    await mine(local, 2);
    const evidence = await eventually(() => transfersOf(intent), (t) => t.data[0]?.state === "settled", "the late transfer to settle");
    expect(evidence.data[0]!.flags.late).toBe(true);
    expect(evidence.received_amount).toBe("0");
    expect(await statusOf(intent)).toBe("awaiting_payment");
  });
});

describe("chain observation across failures", () => {
  it("pays exactly once when the observer is killed with its observations not yet reported, and again when payins is", async () => {
    const local = chains.rails.erc20;
    for (const victim of ["observer", "payins"] as const) {
      const intent = await createIntent({ asset: "usdc", amount: "3" });
      await armed(intent, local);
      // payins down: the observer records the transfer and keeps it in its outbox.
      await platform.kill("payins");
      const tx = await pay(local, "usdc", intent.address, "3");
      await mine(local, 2);
      await eventually(() => db.query(`select state from allocation.observed_transfers where tx_hash = $1`, [tx]), (r) => r.rows[0]?.state === "settled", "the observer to settle the transfer");
      if (victim === "observer") await platform.kill("observer");
      await platform.start("payins");
      if (victim === "payins") {
        // Killed again at once, possibly mid-delivery; started again.
        await platform.kill("payins");
        await platform.start("payins");
      } else {
        await platform.start("observer");
      }
      await eventually(() => statusOf(intent), (s) => s === "paid", `the intent to be paid after the ${victim} was killed`);
      expect(await rowsOf(tx)).toEqual({ observed: 1, recorded: 1 });
      expect((await transfersOf(intent)).received_amount).toBe("3");
    }
  });

  it("reports the rail not ready while its endpoint is unreachable, then catches up, paying what happened meanwhile", async () => {
    const local = chains.rails.bep20;
    const readiness = async () => {
      const res = await operator.allocation.getReadiness({ merchantUuid: merchant.uuid, pairs: [{ asset: "usdt", rail: "bep20" }, { asset: "usdc", rail: "erc20" }] });
      return res.pairs.map((p) => `${p.asset}/${p.rail}:${p.reasons.join("+") || "ready"}`);
    };
    await eventually(readiness, (r) => r.join() === "usdt/bep20:ready,usdc/erc20:ready", "both rails to be ready");
    const intent = await createIntent({ amount: "2" });
    await armed(intent, local);
    bep20Proxy.cut();
    await pay(local, "usdt", intent.address, "2");
    await mine(local, 3);
    // The other rail, still observed, stays ready.
    await eventually(readiness, (r) => r.join() === "usdt/bep20:provider_not_ready,usdc/erc20:ready", "only the unobserved rail to be not ready");
    expect(await statusOf(intent)).toBe("awaiting_payment");
    // A transient outage does not refuse creates: the observer catches up from its cursor.
    await createIntent({ amount: "1" });
    bep20Proxy.restore();
    await eventually(() => statusOf(intent), (s) => s === "paid", "the observer to catch up");
    await eventually(readiness, (r) => r[0] === "usdt/bep20:ready", "the rail to be ready again");
  });

  it("refuses new pay-ins on a halted rail as provider_not_ready, as readiness says, and takes them again once an operator resumes it", async () => {
    await db.query(`update allocation.observer_cursors set halted_kind = 'disagreement', halted_reason = 'endpoints disagree: a test', halted_at = now() where rail = 'bep20'`);
    const readiness = async () => (await operator.allocation.getReadiness({ merchantUuid: merchant.uuid, pairs: [{ asset: "usdt", rail: "bep20" }, { asset: "usdc", rail: "erc20" }] })).pairs.map((p) => p.reasons.join("+") || "ready");
    expect(await readiness()).toEqual(["provider_not_ready", "ready"]);
    const refused = await eventually(
      () => api.create(merchant.uuid, merchant.token, createBody({ amount: "1" })),
      (res) => res.status !== 201,
      "creates on the halted rail to be refused",
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "PAYIN_NOT_READY", message: expect.stringContaining("provider_not_ready") });
    // The other rail is not halted.
    await createIntent({ asset: "usdc", amount: "1" });
    expect((await operator.allocation.resumeRail({ rail: "bep20" })).resumed).toBe(true);
    await eventually(() => api.create(merchant.uuid, merchant.token, createBody({ amount: "1" })), (res) => res.status === 201, "creates on the resumed rail");
    await eventually(readiness, (r) => r[0] === "ready", "the resumed rail to be ready");
  });

  it("keeps an observer restarted during a provider outage running, the rail not ready, and pays what happened once the endpoint answers", async () => {
    const local = chains.rails.bep20;
    const intent = await createIntent({ amount: "2.5" });
    await armed(intent, local);
    bep20Proxy.cut();
    await platform.kill("observer");
    await platform.start("observer");
    await pay(local, "usdt", intent.address, "2.5");
    await mine(local, 3);
    const health = async () => {
      const res = await fetch(`http://127.0.0.1:${platform.env.OBSERVER_PORT}/health`);
      return ((await res.json()) as { rails: { rail: string; configured: boolean; endpoints: number; lastError: string | null; halted: unknown }[] }).rails;
    };
    const bep20 = await eventually(health, (rails) => rails.find((r) => r.rail === "bep20")?.lastError != null, "the observer to report the endpoint's failure");
    expect(bep20.find((r) => r.rail === "bep20")).toMatchObject({ configured: true, endpoints: 1, halted: null });
    expect(JSON.stringify(bep20)).not.toContain(bep20Proxy.url);
    // Still the same process a while later: it did not exit (npm start would have restarted it, and stopped the platform after five).
    const pid = platform.processes.get("observer")!.child.pid;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(platform.processes.get("observer")!.child.exitCode).toBeNull();
    expect(platform.processes.get("observer")!.child.pid).toBe(pid);
    const readiness = async () => (await operator.allocation.getReadiness({ merchantUuid: merchant.uuid, pairs: [{ asset: "usdt", rail: "bep20" }] })).pairs[0]!.reasons;
    await eventually(readiness, (r) => r.includes("provider_not_ready"), "the rail to be not ready");
    expect(await statusOf(intent)).toBe("awaiting_payment");
    bep20Proxy.restore();
    await eventually(() => statusOf(intent), (s) => s === "paid", "the observer to catch up after the outage");
    await eventually(readiness, (r) => r.length === 0, "the rail to be ready again");
  });

  it("credits every transfer once with two observers running, and goes on when the one holding the rails dies", async () => {
    const local = chains.rails.erc20;
    const second: RunningProcess = await startProcess(OBSERVER, {
      env: { ...platform.env, OBSERVER_PORT: String(await freePort()) },
      output: path.join(inject("testLogDir"), `observer-2-${randomBytes(4).toString("hex")}.log`),
      extraCallers: ["test"],
    });
    try {
      const intents = await Promise.all([1, 2, 3].map(() => createIntent({ asset: "usdc", amount: "1" })));
      await armed(intents[0]!, local);
      for (const intent of intents) await eventually(() => statusOf(intent), (s) => s === "awaiting_payment", "every intent to await payment");
      const txs: Hex[] = [];
      for (const intent of intents) txs.push(await pay(local, "usdc", intent.address, "1"));
      await mine(local, 2);
      for (const intent of intents) await eventually(() => statusOf(intent), (s) => s === "paid", "every intent to be paid");
      // The platform's observer dies: the second takes the rails over.
      await platform.kill("observer");
      const late = await createIntent({ asset: "usdc", amount: "1" });
      await armed(late, local);
      txs.push(await pay(local, "usdc", late.address, "1"));
      await mine(local, 2);
      await eventually(() => statusOf(late), (s) => s === "paid", "the standby observer to pay the next intent");
      for (const tx of txs) expect(await rowsOf(tx)).toEqual({ observed: 1, recorded: 1 });
    } finally {
      await killProcess(second);
      await platform.start("observer");
    }
  });
});
