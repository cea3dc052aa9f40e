import { railsFromEnv } from "@payin/rails";
import { erc20Abi, parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_CHAIN_IDS, startAnvil, startLocalChains, type LocalChains } from "../src/index.js";

let chains: LocalChains;

beforeAll(async () => {
  chains = await startLocalChains();
});

afterAll(async () => {
  await chains?.stop();
});

describe("local chains", () => {
  it("run two anvil chains with chain ids of their own and the test tokens at their real decimals", async () => {
    const { bep20, erc20 } = chains.rails;
    expect(await bep20.publicClient.getChainId()).toBe(LOCAL_CHAIN_IDS.bep20);
    expect(await erc20.publicClient.getChainId()).toBe(LOCAL_CHAIN_IDS.erc20);
    for (const [rail, asset, decimals] of [
      [bep20, "usdt", 18],
      [bep20, "usdc", 18],
      [erc20, "usdc", 6],
      [erc20, "usdt", 6],
    ] as const) {
      const token = rail.tokens[asset];
      expect(await rail.publicClient.readContract({ address: token.address, abi: erc20Abi, functionName: "decimals" })).toBe(decimals);
      expect(await rail.publicClient.readContract({ address: token.address, abi: erc20Abi, functionName: "balanceOf", args: [chains.payer.address] })).toBe(
        parseUnits("1000000", decimals),
      );
    }
  });

  it("give the platform a rails configuration it accepts", () => {
    const { rails } = railsFromEnv(chains.env);
    expect(rails.bep20).toMatchObject({ chainId: LOCAL_CHAIN_IDS.bep20, rpcUrls: [chains.rails.bep20.chain.url], token: { asset: "usdt", decimals: 18 } });
    expect(rails.bep20.token.contract).toBe(chains.rails.bep20.tokens.usdt.address.toLowerCase());
    expect(rails.erc20).toMatchObject({ chainId: LOCAL_CHAIN_IDS.erc20, token: { asset: "usdc", decimals: 6 } });
    expect(rails.erc20.otherTokens.map((t) => t.asset)).toEqual(["usdt"]);
  });

  it("move the finalized block two behind the head as blocks are mined", async () => {
    const client = chains.rails.erc20.publicClient;
    await client.request({ method: "anvil_mine" as never, params: ["0x3"] as never });
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const finalized = await client.getBlock({ blockTag: "finalized" });
    expect(finalized.number).toBe(head - 2n);
  });

  it("refuse the chain id of a real network", async () => {
    await expect(startAnvil({ chainId: 56 })).rejects.toThrow(/real network/);
    await expect(startAnvil({ chainId: 1 })).rejects.toThrow(/real network/);
  });
});
