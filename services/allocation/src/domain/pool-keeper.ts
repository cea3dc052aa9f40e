import { deriveRangeInline, POOL_LOW_WATER, topUpPool, type DeriveRange, type WalletStore } from "./wallet.js";

/**
 * Keeps each merchant's address pool ahead of its counter. At most one top-up
 * runs per merchant in this process: concurrent callers share it, so a burst of
 * allocations on an empty pool derives each address once, not once per caller.
 */
export class PoolKeeper {
  private readonly highByMerchant = new Map<string, number>();
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly store: () => WalletStore,
    private readonly onError: (error: unknown) => void,
    private readonly deriveRange: DeriveRange = deriveRangeInline,
  ) {}

  /** Tops the merchant's pool up now (sharing a top-up already under way). */
  ensure(merchantUuid: string): Promise<void> {
    let run = this.running.get(merchantUuid);
    if (!run) {
      run = this.topUp(merchantUuid).finally(() => this.running.delete(merchantUuid));
      this.running.set(merchantUuid, run);
    }
    return run;
  }

  /** Notes that `index` was just allocated; tops up in the background when needed. */
  allocated(merchantUuid: string, index: number): void {
    const high = this.highByMerchant.get(merchantUuid);
    if (high !== undefined && index + POOL_LOW_WATER < high) return;
    this.ensure(merchantUuid).catch(this.onError);
  }

  private async topUp(merchantUuid: string): Promise<void> {
    const store = this.store();
    const wallet = await store.find(merchantUuid);
    if (!wallet) return;
    const high = await topUpPool(store, { merchantUuid, xpub: wallet.xpub, nextIndex: wallet.nextIndex }, this.deriveRange);
    this.highByMerchant.set(merchantUuid, high);
  }
}
