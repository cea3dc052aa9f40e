/**
 * The SQL a pay-in create runs, copied from the services so that baseline B1 can
 * drive it straight at PostgreSQL, as named prepared statements as they do. When a service changes
 * its statements, change them here too: the bench runs one create with these
 * before it measures and stops B1 with the database's error when they no
 * longer fit the schema.
 *
 * Order and connections, as the services run them (each statement autocommits):
 *   payins      CLAIM_KEY      ┐ at the same time
 *   merchants   catch-up       ┘ (payins asks merchants' feed position, which runs sync() on merchants'
 *                                 one listening connection; merchants' pay-in context statement only
 *                                 when payins holds no answer: not in steady use)
 *   allocation  ALLOCATE       (takes the wallet's row lock until it commits)
 *   payins      COMPLETE_KEY   (the intent and its key, together)
 */

// The catch-up is merchants' feed's code: sql-runner.ts calls listenForNotifications' sync() of @payin/db.

/** services/payins/src/store/pay-in-repository.ts, claimKey: claims the key. */
export const CLAIM_KEY = {
  name: "b1.claim-key",
  text: `insert into idempotency_keys (merchant_uuid, idempotency_key, request_hash, intent_uuid, state, claimed_at, created_at)
       values ($1, $2, $3, $4, 'pending', $5, $5)
       on conflict (merchant_uuid, idempotency_key) do update
         set claimed_at = excluded.claimed_at, state = 'pending', request_hash = excluded.request_hash,
             intent_uuid = case when idempotency_keys.request_hash = excluded.request_hash
                                 and (idempotency_keys.state = 'pending' or idempotency_keys.claimed_at >= $7)
                                then idempotency_keys.intent_uuid else excluded.intent_uuid end
         where idempotency_keys.state = 'released'
            or (idempotency_keys.state = 'pending' and idempotency_keys.claimed_at < $6
                and idempotency_keys.request_hash = excluded.request_hash)
       returning intent_uuid`,
};

/** services/allocation/src/store/wallet-repository.ts, allocate: next index and its pre-derived address. */
export const ALLOCATE = {
  name: "b1.allocate",
  text: `with w as (
           update wallets set next_index = next_index + 1 where merchant_uuid = $1
           returning merchant_uuid, xpub, next_index - 1 as idx)
         insert into allocations (intent_uuid, merchant_uuid, address_index, address, rail, derivation_path, created_at)
         select $2, w.merchant_uuid, w.idx, p.address, $3, p.derivation_path, $4
           from w left join address_pool p
             on p.merchant_uuid = w.merchant_uuid and p.xpub = w.xpub and p.address_index = w.idx
         returning intent_uuid, merchant_uuid, address_index, address, rail, derivation_path, created_at`,
};

/** services/payins/src/store/pay-in-repository.ts, completeKey: stores the intent and completes its key. */
export const COMPLETE_KEY = {
  name: "b1.complete-key",
  text: `with i as (
         insert into pay_in_intents (intent_uuid, merchant_uuid, status, asset, rail, expected_amount, address,
           allocation_reference, reference, jurisdiction, created_at, expires_at, updated_at)
         values ($1, $2, $3, $4, $5, $6::numeric, $7, $8, $9, $10, $11, $12, $13)
         returning intent_uuid)
       update idempotency_keys k set state = 'completed'
         from i where k.merchant_uuid = $2 and k.idempotency_key = $14 and k.intent_uuid = i.intent_uuid`,
};

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
