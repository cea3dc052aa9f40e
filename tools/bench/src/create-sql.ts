/**
 * The SQL a pay-in create runs: the services' own prepared statements, imported
 * from their store modules, so that baseline B1 drives exactly them straight at
 * PostgreSQL, as named prepared statements as the services do. The bench runs
 * one create with them before it measures and stops B1 with the database's
 * error when they no longer fit the schema (a migration not yet applied).
 *
 * Order and connections, as the services run them (each statement autocommits):
 *   payins      CLAIM_KEY      ┐ at the same time
 *   merchants   catch-up       ┘ (payins asks merchants' feed position, which runs sync() on merchants'
 *                                 one listening connection; merchants' pay-in context statement only
 *                                 when payins holds no answer: not in steady use)
 *   allocation  ALLOCATE       (takes the wallet's row lock until it commits)
 *   payins      COMPLETE_KEY   (the intent, its key and its created event, together)
 */

// The catch-up is merchants' feed's code: sql-runner.ts calls listenForNotifications' sync() of @payin/db.

/** payins' claimKey (claims the key) and completeKey (stores the intent, completes its key, writes its created event). */
export { CLAIM_KEY, COMPLETE_KEY } from "@payin/payins/store/pay-in-repository";
/** allocation's allocate: next index and its pre-derived address. */
export { ALLOCATE } from "@payin/allocation/store/wallet-repository";

/**
 * Fills the allocation pool of the B1 merchant with `$2` addresses from index 0
 * (what the allocation service's pool keeper derives ahead; here made-up unique
 * addresses, as B1 measures SQL, not key derivation).
 */
export const FILL_B1_POOL = `insert into address_pool (merchant_uuid, xpub, address_index, address, derivation_path)
       select w.merchant_uuid, w.xpub, g, '0x' || left(md5('b1:' || g) || md5('b1+' || g), 40), 'm/44''/60''/0''/0/' || g
         from wallets w, generate_series(0, $2::int - 1) g
        where w.merchant_uuid = $1
       on conflict do nothing`;
