/**
 * `npm run -s pay -- <intent uuid> [amount]`: pays a pay-in intent of the demo
 * merchant of `npm start` on the local chain, from the funded local payer, in
 * the intent's token, its expected amount unless another is given (a part, or
 * more). Reads the intent through the API with the demo merchant's token, and
 * the chains from the data directory (.data/local-chains.json).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_PORTS, localServiceHost } from "@payin/config";
import { REPO_ROOT } from "@payin/launcher";
import { createPublicClient, createWalletClient, erc20Abi, http, parseUnits, type Address } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { ANVIL_MNEMONIC, localViemChain } from "./local-chains.js";

interface ChainsFile {
  [rail: string]: { url: string; chain_id: number; tokens: Record<string, { address: Address; decimals: number }> };
}

const fail = (message: string): never => {
  process.stderr.write(`pay: ${message}\n`);
  process.exit(2);
};

const [intentUuid, amountArg] = process.argv.slice(2);
if (!intentUuid || intentUuid === "--help") fail("usage: npm run -s pay -- <intent uuid> [amount]");
if (amountArg !== undefined && !/^\d+(\.\d+)?$/.test(amountArg)) fail(`the amount must be a decimal number, got "${amountArg}"`);
const dataDir = process.env.PAYIN_DATA_DIR ?? path.join(REPO_ROOT, ".data");
const readJson = async <T>(file: string, what: string): Promise<T> => {
  try {
    return JSON.parse(await readFile(path.join(dataDir, file), "utf8")) as T;
  } catch {
    return fail(`${what} not found in ${dataDir}: is \`npm start\` running on local chains?`);
  }
};
const chains = await readJson<ChainsFile>("local-chains.json", "the local chains");
const demo = await readJson<{ merchant_uuid: string; token: string }>("demo-merchant.json", "the demo merchant");
const apiUrl = `http://${localServiceHost(process.env)}:${process.env.API_PORT ?? DEFAULT_PORTS.API_PORT}`;
const res = await fetch(`${apiUrl}/api/v1/merchants/${demo.merchant_uuid}/pay-in-intents/${encodeURIComponent(intentUuid!)}`, {
  headers: { authorization: `Bearer ${demo.token}` },
}).catch(() => fail(`the API does not answer at ${apiUrl}`));
if (res.status === 404) fail(`no pay-in intent ${intentUuid} of the demo merchant`);
if (!res.ok) fail(`the API answered ${res.status}`);
const intent = (await res.json()) as { address: Address; asset: string; rail: string; expected_amount: string; status: string };
const chain = chains[intent.rail] ?? fail(`no local chain for rail ${intent.rail}`);
const token = chain.tokens[intent.asset] ?? fail(`no local ${intent.asset} token on ${intent.rail}`);
const amount = amountArg ?? intent.expected_amount;
const viemChain = localViemChain(intent.rail as "bep20" | "erc20", chain.chain_id, chain.url);
const payer = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 1 });
const wallet = createWalletClient({ chain: viemChain, transport: http(chain.url), account: payer });
const client = createPublicClient({ chain: viemChain, transport: http(chain.url) });
const hash = await wallet.writeContract({ address: token.address, abi: erc20Abi, functionName: "transfer", args: [intent.address, parseUnits(amount, token.decimals)] });
const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 200 });
process.stdout.write(
  `sent ${amount} ${intent.asset.toUpperCase()} on ${intent.rail.toUpperCase()} to ${intent.address}\n  tx ${hash} in block ${receipt.blockNumber}\n` +
    `  the intent becomes paid once the block is finalized (a few seconds on the local chain); it is ${intent.status} now\n`,
);
