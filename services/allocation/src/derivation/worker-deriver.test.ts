import { afterEach, describe, expect, it } from "vitest";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { deriveRangeInline } from "../domain/wallet.js";
import { WorkerDeriver } from "./worker-deriver.js";

const MNEMONIC = "test test test test test test test test test test test junk";
const xpub = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC)).derive("m/44'/60'/0'").publicExtendedKey;

describe("WorkerDeriver", () => {
  const errors: unknown[] = [];
  let deriver = new WorkerDeriver((e) => errors.push(e));
  afterEach(async () => {
    await deriver.close();
    deriver = new WorkerDeriver((e) => errors.push(e));
    errors.length = 0;
  });

  it("derives in its thread exactly the addresses the service derives inline", async () => {
    const [viaWorker, inline] = await Promise.all([deriver.deriveRange(xpub, 5, 45), deriveRangeInline(xpub, 5, 45)]);
    expect(viaWorker).toEqual(inline);
    expect(viaWorker[0]).toEqual({ index: 5, derivationPath: "m/44'/60'/0'/0/5", address: inline[0]!.address });
    // Anvil's well-known account 0 is m/44'/60'/0'/0/0.
    expect((await deriver.deriveRange(xpub, 0, 1))[0]!.address).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
  });

  it("names each address by its xpub's own account, in the thread as inline", async () => {
    const account7 = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC)).derive("m/44'/60'/7'").publicExtendedKey;
    const [viaWorker, inline] = await Promise.all([deriver.deriveRange(account7, 0, 3), deriveRangeInline(account7, 0, 3)]);
    expect(viaWorker).toEqual(inline);
    // m/44'/60'/7'/0/i of the mnemonic, by private derivation (see the hd tests).
    expect(viaWorker).toEqual([
      { index: 0, derivationPath: "m/44'/60'/7'/0/0", address: "0xAF4311d557fBC876059e39306ec1f3343753df29" },
      { index: 1, derivationPath: "m/44'/60'/7'/0/1", address: "0xd2378898c87F72dE22eb67673fD23889796C694E" },
      { index: 2, derivationPath: "m/44'/60'/7'/0/2", address: "0x40cba5b7A6dC4fd081e247A64029Cb6B63DFB595" },
    ]);
  });

  it("answers concurrent ranges each with its own addresses", async () => {
    const ranges = Array.from({ length: 20 }, (_, i) => [i * 7, i * 7 + 7] as const);
    const results = await Promise.all(ranges.map(([from, to]) => deriver.deriveRange(xpub, from, to)));
    expect(results.flat().map((a) => a.index)).toEqual(Array.from({ length: 140 }, (_, i) => i));
  });

  it("fails a range it cannot derive, and goes on serving the next", async () => {
    await expect(deriver.deriveRange(xpub, 2 ** 31 - 1, 2 ** 31 + 1)).rejects.toThrow(/address index out of range/);
    await expect(deriver.deriveRange("not an xpub", 0, 1)).rejects.toThrow(/xpub is not a BIP32 extended key/);
    expect(await deriver.deriveRange(xpub, 3, 4)).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it("derives on the calling thread, and says so once, when its thread will not start", async () => {
    const failures: unknown[] = [];
    const broken = new WorkerDeriver((e) => failures.push(e), new URL("./no-such-entry.ts", import.meta.url));
    try {
      const expected = await deriveRangeInline(xpub, 0, 5);
      expect(await broken.deriveRange(xpub, 0, 5)).toEqual(expected);
      expect(await broken.deriveRange(xpub, 0, 5)).toEqual(expected);
      expect(failures).toHaveLength(1);
      // A range that cannot be derived still fails, inline as in the thread.
      await expect(broken.deriveRange(xpub, 2 ** 31, 2 ** 31 + 1)).rejects.toThrow(/address index out of range/);
    } finally {
      await broken.close();
    }
  });

  it("fails the ranges in flight when closed, and starts a new thread on the next call", async () => {
    const inFlight = expect(deriver.deriveRange(xpub, 0, 2000)).rejects.toThrow(/address derivation stopped/);
    await deriver.close();
    await inFlight;
    expect(await deriver.deriveRange(xpub, 0, 1)).toHaveLength(1);
    expect(errors).toEqual([]);
  });
});
