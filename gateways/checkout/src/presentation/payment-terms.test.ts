import { describe, expect, it } from "vitest";
import { baseUnits, checksummed, eip681TransferUri, groupInFours, networkName, pairValue, parsePairValue, tokenName, tokenOnNetwork } from "./payment-terms.js";

// Mainnet contracts (lower case, as the rails' configuration keeps them) and an EIP-55 test vector.
const BSC_USDT = "0x55d398326f99059ff775485246999027b3197955";
const ETH_USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

describe("names", () => {
  it("name the tokens and networks so that they cannot be misread", () => {
    expect(tokenName("usdt")).toBe("USDT");
    expect(tokenName("usdc")).toBe("USDC");
    expect(networkName("bep20")).toBe("BNB Smart Chain (BEP20)");
    expect(networkName("erc20")).toBe("Ethereum (ERC20)");
    expect(tokenOnNetwork({ asset: "usdt", rail: "bep20" })).toBe("USDT on BNB Smart Chain (BEP20)");
    expect(tokenOnNetwork({ asset: "usdc", rail: "erc20" })).toBe("USDC on Ethereum (ERC20)");
  });

  it("show codes routing does not know in capitals, and nonsense as unknown", () => {
    expect(tokenName("dai")).toBe("DAI");
    expect(networkName("trc20")).toBe("TRC20");
    expect(tokenName("")).toBe("an unknown token");
    expect(tokenName("<b>")).toBe("an unknown token");
    expect(tokenName("a".repeat(17))).toBe("an unknown token");
    expect(tokenName("a".repeat(16))).toBe("A".repeat(16));
    expect(networkName("")).toBe("an unknown network");
    expect(networkName("x y")).toBe("an unknown network");
  });
});

describe("the start form's pair", () => {
  it("is asset/rail", () => {
    expect(pairValue({ asset: "usdt", rail: "bep20" })).toBe("usdt/bep20");
    expect(parsePairValue("usdt/bep20")).toEqual({ asset: "usdt", rail: "bep20" });
    expect(parsePairValue("usdc/erc20")).toEqual({ asset: "usdc", rail: "erc20" });
  });

  it("is undefined when none is named", () => {
    expect(parsePairValue(null)).toBeUndefined();
    expect(parsePairValue("")).toBeUndefined();
  });

  it("is null for anything but routing's names", () => {
    for (const value of ["usdt", "usdt/", "/bep20", "usdt/bep20/x", "USDT/BEP20", "doge/bep20", "usdt/trc20", " usdt/bep20", "usdt:bep20"]) {
      expect(parsePairValue(value)).toBeNull();
    }
  });
});

describe("addresses", () => {
  it("carry their EIP-55 checksum whatever the case they come in", () => {
    expect(checksummed(ADDRESS.toLowerCase())).toBe(ADDRESS);
    expect(checksummed(ADDRESS.toUpperCase().replace("0X", "0x"))).toBe(ADDRESS);
    expect(checksummed(BSC_USDT)).toBe("0x55d398326f99059fF775485246999027B3197955");
  });

  it("refuse what is not 0x and 40 hex digits", () => {
    for (const bad of ["", "0x", ADDRESS.slice(0, 41), `${ADDRESS}0`, ADDRESS.replace("0x", "0X"), ADDRESS.replace("a", "g"), ` ${ADDRESS}`]) {
      expect(() => checksummed(bad)).toThrow("not an address");
    }
  });

  it("are shown whole, in groups of four after the 0x", () => {
    expect(groupInFours(ADDRESS)).toBe("0x5aAe b605 3F3E 94C9 b9A0 9f33 6694 35E7 Ef1B eAed");
    expect(groupInFours(ADDRESS).replaceAll(" ", "")).toBe(ADDRESS);
    expect(groupInFours("0x")).toBe("0x");
    expect(groupInFours("0x12345")).toBe("0x1234 5");
  });
});

describe("the EIP-681 transfer request", () => {
  it("asks for the exact amount in integer base units of the token", () => {
    expect(baseUnits({ amount: "25.5", decimals: 18 })).toBe(25_500_000_000_000_000_000n);
    expect(baseUnits({ amount: "25.5", decimals: 6 })).toBe(25_500_000n);
    expect(baseUnits({ amount: "0.000001", decimals: 6 })).toBe(1n);
    expect(baseUnits({ amount: "1000000000", decimals: 18 })).toBe(10n ** 27n);
  });

  it("names the checksummed contract, the chain and the checksummed deposit address", () => {
    expect(eip681TransferUri({ contract: BSC_USDT, chainId: 56, to: ADDRESS.toLowerCase(), amount: "25.5", decimals: 18 })).toBe(
      "ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed&uint256=25500000000000000000",
    );
    expect(eip681TransferUri({ contract: ETH_USDC, chainId: 1, to: ADDRESS, amount: "12.5", decimals: 6 })).toBe(
      "ethereum:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48@1/transfer?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed&uint256=12500000",
    );
  });

  it("never writes an amount in exponent form", () => {
    const uri = eip681TransferUri({ contract: ETH_USDC, chainId: 1_337_001, to: ADDRESS, amount: "1000000000", decimals: 18 });
    expect(uri).toContain("@1337001/");
    expect(uri.endsWith("&uint256=1000000000000000000000000000")).toBe(true);
  });

  it("refuses an amount finer than the token's decimals", () => {
    expect(() => eip681TransferUri({ contract: ETH_USDC, chainId: 1, to: ADDRESS, amount: "0.0000001", decimals: 6 })).toThrow();
  });
});
