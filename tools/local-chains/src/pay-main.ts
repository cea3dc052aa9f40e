/**
 * Pays on the local chains of `npm start`, from the funded local payer:
 *
 * - `npm run -s pay -- <intent uuid> [amount]`: a pay-in intent of the demo
 *   merchant, in the intent's token, its expected amount unless another is
 *   given (a part, or more). Reads the intent through the API with the demo
 *   merchant's token (.data/demo-merchant.json).
 * - `npm run -s pay -- <checkout link> [asset/rail]`: a hosted checkout link
 *   (`http(s)://…/c/<token>`), as a payer would. Reads its public status; when
 *   it is not started yet, starts it with the pair given (default: its only
 *   pair, else usdt/bep20), then sends exactly the expected amount to the
 *   address the checkout shows.
 *
 * The chains' endpoints and tokens come from the data directory (.data/local-chains.json).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_PORTS, localServiceHost } from "@payin/config";
import { REPO_ROOT } from "@payin/launcher";
import type { Rail } from "@payin/rails";
import { createPublicClient, createWalletClient, erc20Abi, http, parseUnits, type Address } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { ANVIL_MNEMONIC, localViemChain } from "./local-chains.js";

interface ChainsFile {
  [rail: string]: { url: string; chain_id: number; tokens: Record<string, { address: Address; decimals: number }> };
}

/** What is paid: a token on a rail, how much, to whom, and what to say once it is sent. */
interface Payment {
  asset: string;
  rail: string;
  amount: string;
  to: Address;
  /** Lines printed after the transfer. */
  after: string[];
}

/** The public status of a checkout (the payer pages' GET /c/<token>/status). */
interface CheckoutStatus {
  presentation_state: string;
  expected_amount: string;
  paid: boolean;
  expired_for_payment: boolean;
  asset: string | null;
  rail: string | null;
  address: Address | null;
  pay_in_status: string | null;
}

const USAGE = "usage: npm run -s pay -- <intent uuid> [amount]\n       npm run -s pay -- <checkout link http(s)://…/c/<token>> [asset/rail, e.g. usdc/erc20]";

const fail = (message: string): never => {
  process.stderr.write(`pay: ${message}\n`);
  process.exit(2);
};

const [target, option] = process.argv.slice(2);
if (!target || target === "--help") fail(USAGE);
const dataDir = process.env.PAYIN_DATA_DIR ?? path.join(REPO_ROOT, ".data");
const readJson = async <T>(file: string, what: string): Promise<T> => {
  try {
    return JSON.parse(await readFile(path.join(dataDir, file), "utf8")) as T;
  } catch {
    return fail(`${what} not found in ${dataDir}: is \`npm start\` running on local chains?`);
  }
};

const link = checkoutLink(target!);
const payment = link ? await checkoutPayment(link, option) : await intentPayment(target!, option);
const chains = await readJson<ChainsFile>("local-chains.json", "the local chains");
const chain = chains[payment.rail] ?? fail(`no local chain for rail ${payment.rail}`);
const token = chain.tokens[payment.asset] ?? fail(`no local ${payment.asset} token on ${payment.rail}`);
const viemChain = localViemChain(payment.rail as Rail, chain.chain_id, chain.url);
const payer = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 1 });
const wallet = createWalletClient({ chain: viemChain, transport: http(chain.url), account: payer });
const client = createPublicClient({ chain: viemChain, transport: http(chain.url) });
const hash = await wallet.writeContract({ address: token.address, abi: erc20Abi, functionName: "transfer", args: [payment.to, parseUnits(payment.amount, token.decimals)] });
const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 200 });
process.stdout.write(
  [`sent ${payment.amount} ${payment.asset.toUpperCase()} on ${payment.rail.toUpperCase()} to ${payment.to}`, `  tx ${hash} in block ${receipt.blockNumber}`, ...payment.after]
    .map((line) => `${line}\n`)
    .join(""),
);

/** The link without a trailing slash when `text` is a checkout link, else undefined. */
function checkoutLink(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  const match = /^(.*\/c\/[A-Za-z0-9_-]+)\/?$/.exec(url.pathname);
  if (!match || url.search || url.hash) return fail(`not a checkout link (http(s)://…/c/<token>): ${text}`);
  return `${url.origin}${match[1]}`;
}

/** A pay-in intent of the demo merchant, read through the API. */
async function intentPayment(intentUuid: string, amountArg: string | undefined): Promise<Payment> {
  if (amountArg !== undefined && !/^\d+(\.\d+)?$/.test(amountArg)) fail(`the amount must be a decimal number, got "${amountArg}"`);
  const demo = await readJson<{ merchant_uuid: string; token: string }>("demo-merchant.json", "the demo merchant");
  const apiUrl = `http://${localServiceHost(process.env)}:${process.env.API_PORT ?? DEFAULT_PORTS.API_PORT}`;
  const res = await fetch(`${apiUrl}/api/v1/merchants/${demo.merchant_uuid}/pay-in-intents/${encodeURIComponent(intentUuid)}`, {
    headers: { authorization: `Bearer ${demo.token}` },
  }).catch(() => fail(`the API does not answer at ${apiUrl}`));
  if (res.status === 404) fail(`no pay-in intent ${intentUuid} of the demo merchant`);
  if (!res.ok) fail(`the API answered ${res.status}`);
  const intent = (await res.json()) as { address: Address; asset: string; rail: string; expected_amount: string; status: string };
  return {
    asset: intent.asset,
    rail: intent.rail,
    amount: amountArg ?? intent.expected_amount,
    to: intent.address,
    after: [`  the intent becomes paid once the block is finalized (a few seconds on the local chain); it is ${intent.status} now`],
  };
}

/** A checkout link, as its payer: its status, a start when it has none, then what it asks for. */
async function checkoutPayment(link: string, pairArg: string | undefined): Promise<Payment> {
  if (pairArg !== undefined && !/^[a-z0-9]+\/[a-z0-9]+$/.test(pairArg)) fail(`the pair must be written asset/rail (e.g. usdc/erc20), got "${pairArg}"`);
  let status = await checkoutStatus(link);
  if (status.pay_in_status === null) {
    if (status.presentation_state === "unavailable") fail(`the checkout cannot be paid now (unavailable): ${link}`);
    // Several pairs offered: the status names none, so the default is usdt/bep20.
    const pair = pairArg ?? (status.asset && status.rail ? `${status.asset}/${status.rail}` : "usdt/bep20");
    const res = await fetch(`${link}/start`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ pair }).toString(),
      redirect: "manual",
    }).catch(() => fail(`the checkout does not answer at ${link}`));
    if (res.status !== 303) fail(`the checkout refused to start with ${pair} (${res.status}${pageHeading(await res.text())})`);
    status = await checkoutStatus(link);
  } else if (pairArg && pairArg !== `${status.asset}/${status.rail}`) {
    process.stderr.write(`pay: the checkout was started with ${status.asset}/${status.rail} already; paying that\n`);
  }
  if (status.paid) fail(`the checkout is paid already: ${link}`);
  if (status.expired_for_payment) fail(`the checkout's deadline has passed; do not send: ${link}`);
  if (!status.address || !status.asset || !status.rail) fail(`the checkout shows no address to pay (${status.presentation_state}): ${link}`);
  return {
    asset: status.asset!,
    rail: status.rail!,
    amount: status.expected_amount,
    to: status.address!,
    after: [`  the checkout turns to paid once the block is finalized (a few seconds on the local chain); watch it: ${link}`],
  };
}

async function checkoutStatus(link: string): Promise<CheckoutStatus> {
  const res = await fetch(`${link}/status`).catch(() => fail(`the checkout does not answer at ${link}`));
  if (res.status === 404) fail(`no checkout at ${link}`);
  if (res.status === 429) fail(`the checkout asks to wait ${res.headers.get("retry-after") ?? "a while"} s before asking again (429)`);
  if (!res.ok) fail(`the checkout's status answered ${res.status}`);
  return (await res.json()) as CheckoutStatus;
}

/** ": <the refusal page's heading>", when it has one. */
function pageHeading(html: string): string {
  const heading = /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html)?.[1]?.replace(/<[^>]+>/g, "").replace(/\s+/g, " ").trim();
  return heading ? `: ${heading}` : "";
}
