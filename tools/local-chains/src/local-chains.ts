import { RAIL_ENV_PREFIX, RAILS, type Asset, type Rail } from "@payin/rails";
import { createPublicClient, createWalletClient, erc20Abi, http, parseUnits, type Address, type Chain, type Hex, type HDAccount, type PublicClient, type WalletClient } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { startAnvil, type AnvilChain } from "./anvil.js";
import { compileTestToken } from "./test-token.js";


/** anvil's default mnemonic: its accounts start with 10,000 ETH each. Local use only. */
export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";

/** Chain ids of the local stand-ins: their own, never 1 or 56. */
export const LOCAL_CHAIN_IDS: Readonly<Record<Rail, number>> = { bep20: 1_337_056, erc20: 1_337_001 };

/** The tokens of each local chain: as on the real networks, USDT has 18 decimals on BSC, both have 6 on Ethereum. */
const LOCAL_TOKENS: Readonly<Record<Rail, readonly { asset: Asset; name: string; symbol: string; decimals: number }[]>> = {
  bep20: [
    { asset: "usdt", name: "Tether USD (local BEP20)", symbol: "USDT", decimals: 18 },
    { asset: "usdc", name: "USD Coin (local BEP20)", symbol: "USDC", decimals: 18 },
  ],
  erc20: [
    { asset: "usdc", name: "USD Coin (local ERC20)", symbol: "USDC", decimals: 6 },
    { asset: "usdt", name: "Tether USD (local ERC20)", symbol: "USDT", decimals: 6 },
  ],
};

export interface LocalToken {
  asset: Asset;
  address: Address;
  decimals: number;
}

export interface LocalRail {
  rail: Rail;
  chain: AnvilChain;
  viemChain: Chain;
  tokens: Readonly<Record<Asset, LocalToken>>;
  publicClient: PublicClient;
  /** Signs as the deployer (anvil account 0), which mints. */
  deployer: WalletClient;
}

export interface LocalChains {
  rails: Readonly<Record<Rail, LocalRail>>;
  /** The rails' configuration for the platform (BEP20_RPC_URL, BEP20_CHAIN_ID, BEP20_TOKENS, …). */
  env: Record<string, string>;
  /** A funded payer (anvil account 1): 1,000,000 of every token on both chains. */
  payer: HDAccount;
  stop(): Promise<void>;
}

export interface LocalChainsOptions {
  /** Seconds between blocks; default none: a block per transaction (tests mine more with `anvil_mine`). */
  blockTimeS?: number;
  /** How many blocks the platform counts as settled where `finalized` is not served (default 2). */
  confirmations?: number;
  /** The observer's poll interval on these chains (default 500 ms). */
  pollIntervalMs?: number;
  log?: (line: string) => void;
}

/** A viem chain for a local anvil. */
export function localViemChain(rail: Rail, chainId: number, url: string): Chain {
  return {
    id: chainId,
    name: `local ${rail}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  };
}

/**
 * Starts two anvil chains, one standing in for BNB Smart Chain (BEP20) and one
 * for Ethereum (ERC20), deploys the test USDT and USDC on each, and funds a
 * payer. Resolves with the chains, the tokens and the rails' configuration.
 */
export async function startLocalChains(options: LocalChainsOptions = {}): Promise<LocalChains> {
  const artifact = await compileTestToken();
  const deployerAccount = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 });
  const payer = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 1 });
  const started: AnvilChain[] = [];
  try {
    const rails = {} as Record<Rail, LocalRail>;
    for (const rail of RAILS) {
      const chain = await startAnvil({ chainId: LOCAL_CHAIN_IDS[rail], blockTimeS: options.blockTimeS, log: options.log });
      started.push(chain);
      const viemChain = localViemChain(rail, chain.chainId, chain.url);
      const publicClient = createPublicClient({ chain: viemChain, transport: http(chain.url), pollingInterval: 50, cacheTime: 0 });
      const deployer = createWalletClient({ chain: viemChain, transport: http(chain.url), account: deployerAccount });
      const tokens = {} as Record<Asset, LocalToken>;
      for (const token of LOCAL_TOKENS[rail]) {
        const hash = await deployer.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args: [token.name, token.symbol, token.decimals] });
        const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
        if (!receipt.contractAddress) throw new Error(`${token.symbol} on local ${rail} was not deployed`);
        tokens[token.asset] = { asset: token.asset, address: receipt.contractAddress, decimals: token.decimals };
        const mint = await deployer.writeContract({
          address: receipt.contractAddress,
          abi: artifact.abi,
          functionName: "mint",
          args: [payer.address, parseUnits("1000000", token.decimals)],
          chain: viemChain,
          account: deployerAccount,
        });
        await publicClient.waitForTransactionReceipt({ hash: mint, pollingInterval: 50 });
      }
      rails[rail] = { rail, chain, viemChain, tokens, publicClient: publicClient as PublicClient, deployer };
    }
    return {
      rails,
      env: railsEnv(rails, options),
      payer,
      stop: async () => {
        await Promise.all(started.map((chain) => chain.stop()));
      },
    };
  } catch (error) {
    await Promise.all(started.map((chain) => chain.stop()));
    throw error;
  }
}

/** The platform's rail variables for these chains. */
function railsEnv(rails: Record<Rail, LocalRail>, options: LocalChainsOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const rail of RAILS) {
    const p = RAIL_ENV_PREFIX[rail];
    const local = rails[rail];
    env[`${p}_RPC_URL`] = local.chain.url;
    env[`${p}_CHAIN_ID`] = String(local.chain.chainId);
    env[`${p}_TOKENS`] = Object.values(local.tokens)
      .map((t) => `${t.asset}:${t.address}:${t.decimals}`)
      .join(",");
    env[`${p}_CONFIRMATIONS`] = String(options.confirmations ?? 2);
    env[`${p}_POLL_INTERVAL_MS`] = String(options.pollIntervalMs ?? 500);
  }
  return env;
}

/**
 * Sends `amount` (token units) of the rail's `asset` from `from` to `to` and
 * resolves with the transaction's hash once it is in a block.
 */
export async function transferToken(local: LocalRail, from: HDAccount, asset: Asset, to: Address, amount: string): Promise<Hex> {
  const token = local.tokens[asset];
  const hash = await local.deployer.writeContract({
    address: token.address,
    abi: erc20Abi,
    functionName: "transfer",
    args: [to, parseUnits(amount, token.decimals)],
    account: from,
    chain: local.viemChain,
  });
  await local.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  return hash;
}

/** Mines `blocks` empty blocks at once (anvil_mine). */
export async function mineBlocks(local: LocalRail, blocks: number): Promise<void> {
  await local.publicClient.request({ method: "anvil_mine" as never, params: [`0x${blocks.toString(16)}`] as never });
}
