/**
 * Provisioning as an operator does it, over the services' RPC APIs: merchants
 * made ready to take pay-ins (rules, policy, profile, provider, wallet), and
 * the observer's cursors a readiness check looks at. Shared by the gateways'
 * end-to-end tests.
 */
import { PAYIN_CAPABILITY } from "@payin/permissions";
import { randomBytes } from "node:crypto";
import type { Client } from "@connectrpc/connect";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { allocationV1, identityV1, merchantsV1 } from "@payin/proto";
import { ConnectError, createServiceClient, reasonOf } from "@payin/rpc";
import pg from "pg";
import type { TestPlatform } from "./platform.js";

export const TEST_MNEMONIC = "test test test test test test test test test test test junk";
export const ACCOUNT_PATH = "m/44'/60'/0'";

/** Account-level xpub (m/44'/60'/0') of a BIP32 seed. */
export function accountXpub(seed: Uint8Array): string {
  return HDKey.fromMasterSeed(seed).derive(ACCOUNT_PATH).publicExtendedKey;
}

/** The account xpub of the well-known test mnemonic. */
export function testMnemonicXpub(): string {
  return accountXpub(mnemonicToSeedSync(TEST_MNEMONIC));
}

/** The account xpub of a fresh random seed (wallets may not share an xpub). */
export function randomXpub(): string {
  return accountXpub(randomBytes(32));
}

export interface TestMerchant {
  uuid: string;
  token: string;
  xpub: string | null;
}

/**
 * Jurisdictions the tests create pay-ins in: each gets an allowing crypto.payin
 * rule, and every merchant a provider bound for it. US is left without a rule
 * (the jurisdiction where no rule allows pay-ins).
 */
export const PAYIN_JURISDICTIONS = ["DE", "GB", "FR"];

/** The provider the merchants service seeds: evm-rpc (EVM JSON-RPC chain observation). */
export const EVM_RPC_PROVIDER_UUID = "01a2008d-7400-7000-8000-000000000001";

/**
 * Sets how recently the chain observer advanced on each rail, in the platform's
 * database as the observer keeps it (allocation.observer_cursors): an instant
 * for a rail observed then, null for a rail never observed (no cursor). The test platform's observer has no chains, so it writes no cursor:
 * without this readiness says provider_not_ready for every pair. A cursor set to
 * now stays fresh for the allocation service's OBSERVER_STALL_MS (a minute).
 */
export async function setObserverCursors(platform: TestPlatform, rails: Record<string, Date | null>): Promise<void> {
  const db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  try {
    for (const [rail, advancedAt] of Object.entries(rails)) {
      if (advancedAt === null) {
        await db.query(`delete from allocation.observer_cursors where rail = $1`, [rail]);
        continue;
      }
      await db.query(
        `insert into allocation.observer_cursors (rail, chain_id, genesis_hash, next_block, advanced_at, updated_at)
         values ($1, $2, $3, 0, $4, $4)
         on conflict (rail) do update set advanced_at = excluded.advanced_at, updated_at = excluded.updated_at`,
        [rail, rail === "bep20" ? 31337 : 31338, `0x${"ab".repeat(32)}`, advancedAt],
      );
    }
  } finally {
    await db.end();
  }
}

/** Provisions merchants the way an operator does: over the services' RPC APIs. */
export class Operator {
  readonly merchants: Client<typeof merchantsV1.MerchantsService>;
  readonly allocation: Client<typeof allocationV1.AllocationService>;
  readonly identity: Client<typeof identityV1.IdentityService>;
  /** Every machine token handed out, for the log check. */
  readonly tokens: string[] = [];
  private rulesOpened = false;

  constructor(platform: TestPlatform) {
    const options = (name: string) => ({ baseUrl: platform.serviceUrls[name]!, serviceToken: platform.serviceToken, timeoutMs: 15_000 });
    this.merchants = createServiceClient(merchantsV1.MerchantsService, options("merchants"));
    this.allocation = createServiceClient(allocationV1.AllocationService, options("allocation"));
    this.identity = createServiceClient(identityV1.IdentityService, options("identity"));
  }

  /** Opens an allowing crypto.payin rule for each jurisdiction (kept if already open). */
  async allowJurisdictions(jurisdictions: string[] = PAYIN_JURISDICTIONS): Promise<void> {
    for (const jurisdiction of jurisdictions) {
      await this.merchants.createRule({ capability: PAYIN_CAPABILITY, jurisdiction, effect: "allow" }).catch((error: unknown) => {
        if (!(error instanceof ConnectError && reasonOf(error) === "RULE_UNCHANGED")) throw error;
      });
    }
  }

  /** Gives a merchant an allowing payin policy and an operating profile. */
  async authorise(uuid: string): Promise<void> {
    await this.merchants.createPolicy({ merchantUuid: uuid, scope: "payin", effect: "allow" });
    await this.merchants.ensureOperatingProfile({ merchantUuid: uuid, operatingMode: "non_custodial" });
  }

  /**
   * Binds the seeded provider (evm-rpc) to a merchant for crypto.payin in each
   * of `jurisdictions` and connects the merchant to it: without both, readiness
   * in a jurisdiction says provider_not_ready and a create there is refused
   * (409 PAYIN_NOT_READY).
   */
  async connectProvider(uuid: string, jurisdictions: readonly string[] = PAYIN_JURISDICTIONS): Promise<void> {
    for (const jurisdiction of jurisdictions) {
      await this.merchants.ensureProviderBinding({ merchantUuid: uuid, providerUuid: EVM_RPC_PROVIDER_UUID, capability: PAYIN_CAPABILITY, jurisdiction });
    }
    await this.merchants.ensureProviderConnection({ merchantUuid: uuid, providerUuid: EVM_RPC_PROVIDER_UUID });
  }

  /**
   * Creates a merchant; by default activates it, allows pay-ins (rules of
   * PAYIN_JURISDICTIONS, payin policy, operating profile), binds it to a
   * provider in those jurisdictions and connects it, registers a wallet with a
   * random xpub and issues a machine credential.
   */
  async merchant(
    options: { name?: string; activate?: boolean; authorise?: boolean; provider?: boolean; xpub?: string | null; credential?: boolean } = {},
  ): Promise<TestMerchant> {
    const { merchant } = await this.merchants.createMerchant({ displayName: options.name ?? "E2E Shop" });
    const uuid = merchant!.uuid;
    if (options.activate ?? true) await this.transition(uuid, merchantsV1.MerchantTransition.ACTIVATE);
    if (options.authorise ?? true) {
      if (!this.rulesOpened) {
        await this.allowJurisdictions();
        this.rulesOpened = true;
      }
      await this.authorise(uuid);
    }
    if (options.provider ?? true) await this.connectProvider(uuid);
    const xpub = options.xpub === undefined ? randomXpub() : options.xpub;
    if (xpub !== null) await this.allocation.setWallet({ merchantUuid: uuid, xpub });
    let token = "";
    if (options.credential ?? true) {
      token = (await this.identity.createMachineCredential({ merchantUuid: uuid })).token;
      this.tokens.push(token);
    }
    return { uuid, token, xpub };
  }

  async transition(uuid: string, transition: merchantsV1.MerchantTransition): Promise<void> {
    await this.merchants.transitionMerchant({ uuid, transition });
  }
}

