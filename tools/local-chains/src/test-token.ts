import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Abi, Hex } from "viem";

/** The project's own test ERC-20 (contracts/TestToken.sol). */
export const TEST_TOKEN_SOURCE = fileURLToPath(new URL("../contracts/TestToken.sol", import.meta.url));

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

let compiled: Promise<CompiledContract> | undefined;

/**
 * TestToken compiled with the `solc` package (the Solidity compiler as
 * WebAssembly). The result is kept in the system's temporary folder by the
 * source's and the compiler's digest, so only the first start compiles.
 */
export function compileTestToken(): Promise<CompiledContract> {
  compiled ??= compile();
  return compiled;
}

async function compile(): Promise<CompiledContract> {
  const source = await readFile(TEST_TOKEN_SOURCE, "utf8");
  const require = createRequire(import.meta.url);
  const solcVersion = (require("solc/package.json") as { version: string }).version;
  const digest = createHash("sha256").update(solcVersion).update("\0").update(source).digest("hex").slice(0, 24);
  const cacheFile = path.join(os.tmpdir(), "payin-local-chains", `test-token-${digest}.json`);
  try {
    return JSON.parse(await readFile(cacheFile, "utf8")) as CompiledContract;
  } catch {
    // not compiled yet
  }
  const solc = require("solc") as { compile(input: string): string };
  const input = {
    language: "Solidity",
    sources: { "TestToken.sol": { content: source } },
    settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { "*": { TestToken: ["abi", "evm.bytecode.object"] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(`TestToken.sol does not compile:\n${errors.map((e) => e.formattedMessage).join("\n")}`);
  const contract = output.contracts?.["TestToken.sol"]?.TestToken;
  if (!contract) throw new Error("solc produced no TestToken");
  const result: CompiledContract = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  await mkdir(path.dirname(cacheFile), { recursive: true });
  const partial = `${cacheFile}.${process.pid}.tmp`;
  await writeFile(partial, JSON.stringify(result));
  await rename(partial, cacheFile);
  return result;
}
