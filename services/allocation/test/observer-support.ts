import { uuidv7 } from "@payin/ids";
import type pg from "pg";
import type { Address } from "viem";
import { mnemonicToAccount } from "viem/accounts";

/**
 * An allocated address for a new intent on `rail`, straight into allocation's
 * tables: anvil's test mnemonic's account `addressIndex` (so a test can also
 * spend from it), under a wallet of its own.
 */
export async function allocateTestAddress(pool: pg.Pool, rail: "bep20" | "erc20", addressIndex: number): Promise<{ intentUuid: string; address: Address }> {
  const merchantUuid = uuidv7();
  const intentUuid = uuidv7();
  const address = mnemonicToAccount("test test test test test test test test test test test junk", { addressIndex }).address;
  const now = new Date();
  await pool.query(`insert into wallets (merchant_uuid, xpub, next_index, created_at, updated_at) values ($1, 'xpub-test', 1, $2, $2)`, [merchantUuid, now]);
  await pool.query(
    `insert into allocations (intent_uuid, merchant_uuid, address_index, address, rail, derivation_path, created_at) values ($1, $2, 0, $3, $4, 'm/44''/60''/0''/0/0', $5)`,
    [intentUuid, merchantUuid, address, rail, now],
  );
  return { intentUuid, address };
}
