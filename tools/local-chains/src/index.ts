/**
 * Local EVM chains for `npm start` and the tests: anvil processes standing in
 * for BNB Smart Chain and Ethereum, with the project's test USDT and USDC.
 */
export { anvilBinary, startAnvil, type AnvilChain, type AnvilOptions } from "./anvil.js";
export { ANVIL_MNEMONIC, LOCAL_CHAIN_IDS, localViemChain, mineBlocks, startLocalChains, transferToken, type LocalChains, type LocalChainsOptions, type LocalRail, type LocalToken } from "./local-chains.js";
export { compileTestToken, TEST_TOKEN_SOURCE, type CompiledContract } from "./test-token.js";
