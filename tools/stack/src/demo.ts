/**
 * The demo of `npm start` on local chains: a ready demo merchant (kept in the
 * data directory, created once) and, at every start, a fresh pay-in intent
 * created through the API and a fresh hosted checkout link, with the commands
 * that pay them on the local chain.
 */
import { PAYIN_CAPABILITY } from "@payin/permissions";
import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { deriveCredential, localServiceHost } from "@payin/config";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { allocationV1, identityV1, merchantsV1, payinsV1 } from "@payin/proto";
import { ConnectError, createServiceClient, reasonOf, STACK_CALLER } from "@payin/rpc";

/**
 * The demo merchant's receiving wallet: account 1' of the local chains'
 * well-known test mnemonic (never for real funds). Not account 0', whose
 * addresses are anvil's funded accounts (the deployer and the payer).
 */
const DEMO_MNEMONIC = "test test test test test test test test test test test junk";
const DEMO_JURISDICTION = "DE";
/** The provider the merchants service seeds (evm-rpc: EVM JSON-RPC chain observation). */
const EVM_RPC_PROVIDER_UUID = "01a2008d-7400-7000-8000-000000000001";

export interface DemoMerchant {
  merchant_uuid: string;
  /** Its machine credential for the API (the file is 0600, like the admin's). */
  token: string;
}

/** Where the demo merchant is kept. */
export function demoMerchantFile(dataDir: string): string {
  return path.join(dataDir, "demo-merchant.json");
}

/** The demo merchant of this data directory, created (ready to take pay-ins) on the first start. */
export async function ensureDemoMerchant(env: Record<string, string>, dataDir: string): Promise<DemoMerchant> {
  const file = demoMerchantFile(dataDir);
  const host = localServiceHost(process.env);
  const serviceToken = deriveCredential(env.SERVICE_TOKEN!, STACK_CALLER);
  const merchants = createServiceClient(merchantsV1.MerchantsService, { baseUrl: `http://${host}:${env.MERCHANTS_PORT}`, serviceToken });
  // npm start's own changes: audited with the actor system.
  const actor = {};
  // A provider bound for crypto.payin with a connection to it: without both the
  // merchant is provider_not_ready and its creates are refused (409 PAYIN_NOT_READY).
  const connectProvider = async (merchantUuid: string) => {
    await merchants.ensureProviderBinding({ merchantUuid, providerUuid: EVM_RPC_PROVIDER_UUID, capability: PAYIN_CAPABILITY, jurisdiction: DEMO_JURISDICTION, actor });
    await merchants.ensureProviderConnection({ merchantUuid, providerUuid: EVM_RPC_PROVIDER_UUID, actor });
  };
  let kept: DemoMerchant | undefined;
  try {
    kept = JSON.parse(await readFile(file, "utf8")) as DemoMerchant;
  } catch {
    // first start of this data directory
  }
  if (kept) {
    // Kept from an earlier start (both calls are idempotent).
    await connectProvider(kept.merchant_uuid);
    return kept;
  }
  const allocation = createServiceClient(allocationV1.AllocationService, { baseUrl: `http://${host}:${env.ALLOCATION_PORT}`, serviceToken });
  const identity = createServiceClient(identityV1.IdentityService, { baseUrl: `http://${host}:${env.IDENTITY_PORT}`, serviceToken });
  try {
    await merchants.createRule({ capability: PAYIN_CAPABILITY, jurisdiction: DEMO_JURISDICTION, effect: "allow", actor });
  } catch (error) {
    // A rule for the jurisdiction may exist already (an operator made one).
    if (!(error instanceof ConnectError) || !/RULE/.test(reasonOf(error) ?? "")) throw error;
  }
  const { merchant } = await merchants.createMerchant({ displayName: "Demo merchant", legalName: "Demo Merchant Ltd", actor });
  const merchantUuid = merchant!.uuid;
  await merchants.transitionMerchant({ uuid: merchantUuid, transition: merchantsV1.MerchantTransition.ACTIVATE, actor });
  await merchants.createPolicy({ merchantUuid, scope: "payin", effect: "allow", actor });
  await merchants.ensureOperatingProfile({ merchantUuid, operatingMode: "non_custodial", actor });
  await connectProvider(merchantUuid);
  const xpub = HDKey.fromMasterSeed(mnemonicToSeedSync(DEMO_MNEMONIC)).derive("m/44'/60'/1'").publicExtendedKey;
  await allocation.setWallet({ merchantUuid, xpub });
  const { token } = await identity.createMachineCredential({ merchantUuid });
  const demo: DemoMerchant = { merchant_uuid: merchantUuid, token };
  await writeFile(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  return demo;
}

/** A fresh pay-in intent of the demo merchant, created through the API: 10 USDT on BEP20, due in an hour. */
export async function createDemoIntent(apiUrl: string, demo: DemoMerchant): Promise<{ intent_uuid: string; address: string; expected_amount: string; asset: string; rail: string }> {
  const res = await fetch(`${apiUrl}/api/v1/merchants/${demo.merchant_uuid}/pay-in-intents`, {
    method: "POST",
    headers: { authorization: `Bearer ${demo.token}`, "content-type": "application/json", "idempotency-key": randomUUID() },
    body: JSON.stringify({
      asset: "usdt",
      amount: "10",
      jurisdiction: DEMO_JURISDICTION,
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      reference: "demo",
    }),
  });
  const body = (await res.json()) as { intent_uuid: string; address: string; expected_amount: string; asset: string; rail: string; error?: { message: string } };
  if (!res.ok) throw new Error(`the demo intent was refused: ${body.error?.message ?? res.status}`);
  return body;
}

/**
 * A fresh hosted checkout of the demo merchant (12.5, USDT on BEP20 or USDC on
 * ERC20, the payer's choice), created with npm start's own credential. Its link's token is answered only here: it is not kept.
 */
export async function createDemoCheckout(env: Record<string, string>, demo: DemoMerchant): Promise<{ token: string; amount: string }> {
  const payins = createServiceClient(payinsV1.PayinsService, {
    baseUrl: `http://${localServiceHost(process.env)}:${env.PAYINS_PORT}`,
    serviceToken: deriveCredential(env.SERVICE_TOKEN!, STACK_CALLER),
  });
  const { session, token } = await payins.createCheckoutSession({
    merchantUuid: demo.merchant_uuid,
    reference: "demo-checkout",
    description: "Demo order",
    amount: "12.5",
    pairs: [
      { asset: "usdt", rail: "bep20" },
      { asset: "usdc", rail: "erc20" },
    ],
    jurisdiction: DEMO_JURISDICTION,
  });
  return { token, amount: session!.amount };
}
