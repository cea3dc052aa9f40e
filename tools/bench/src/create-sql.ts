/**
 * The SQL a pay-in create runs, copied from the services so that baseline B1 can
 * drive it straight at PostgreSQL, as named prepared statements as they do. When a service changes
 * its statements, change them here too: the bench runs one create with these
 * before it measures and stops B1 with the database's error when they no
 * longer fit the schema.
 *
 * Order and connections, as the services run them (each statement autocommits):
 *   payins      CLAIM_KEY      ┐
 *   merchants   PAYIN_CONTEXT  ├ at the same time
 *   allocation  ALLOCATE       ┘ (takes the wallet's row lock until it commits)
 *   payins      COMPLETE_KEY   (the intent and its key, together)
 */

/** services/payins/src/store/pay-in-repository.ts, claimKey: claims the key. */
export const CLAIM_KEY = {
  name: "b1.claim-key",
  text: `insert into idempotency_keys (merchant_uuid, idempotency_key, request_hash, intent_uuid, state, claimed_at, created_at)
       values ($1, $2, $3, $4, 'pending', $5, $5)
       on conflict (merchant_uuid, idempotency_key) do update set claimed_at = excluded.claimed_at
         where idempotency_keys.state = 'pending' and idempotency_keys.claimed_at < $6
           and idempotency_keys.request_hash = excluded.request_hash
       returning intent_uuid`,
};

/** services/merchants/src/store/merchant-repository.ts, payinContext (as payins asks it: with the request's jurisdiction). */
export const PAYIN_CONTEXT = {
  name: "b1.payin-context",
  text: `select m.status,
              (select r.effect from rules r
                where r.capability = $1 and r.jurisdiction = $2 and r.valid_to is null) as rule_effect,
              (select p.effect from policies p
                where p.merchant_uuid = m.uuid and p.scope = 'payin' and p.valid_to is null) as payin_policy_effect,
              (select o.operating_mode from operating_profiles o where o.merchant_uuid = m.uuid) as operating_mode
         from merchants m
        where m.uuid = $3`,
};

/**
 * services/allocation/src/store/wallet-repository.ts, ALLOCATE_MANY (a create's
 * own allocation: one intent): a released address, or the next index and its
 * pre-derived address.
 */
export const ALLOCATE = {
  name: "b1.allocate",
  text: `with rel as (
           delete from released_addresses ra
            using (select address_index from released_addresses
                    where merchant_uuid = $1 and xpub = (select xpub from wallets where merchant_uuid = $1)
                    order by address_index limit cardinality($2::uuid[])) pick
            where ra.merchant_uuid = $1 and ra.address_index = pick.address_index
           returning ra.address_index, ra.address, ra.derivation_path, ra.xpub),
         fresh as (select cardinality($2::uuid[]) - (select count(*) from rel)::int as n),
         w as (
           update wallets set next_index = next_index + (select n from fresh) where merchant_uuid = $1
           returning merchant_uuid, xpub, next_index - (select n from fresh) as first_idx),
         slots as (
           select (row_number() over (order by address_index) - 1)::int as n, address_index as idx, address, derivation_path, xpub
             from rel
           union all
           select (select count(*) from rel)::int + g, w.first_idx + g,
                  (select p.address from address_pool p
                    where p.merchant_uuid = w.merchant_uuid and p.xpub = w.xpub and p.address_index = w.first_idx + g),
                  (select p.derivation_path from address_pool p
                    where p.merchant_uuid = w.merchant_uuid and p.xpub = w.xpub and p.address_index = w.first_idx + g),
                  w.xpub
             from w cross join generate_series(0, (select n from fresh) - 1) g),
         r as (
           select t.intent_uuid, t.rail, (t.ord - 1)::int as n
             from unnest($2::uuid[], $3::text[]) with ordinality as t(intent_uuid, rail, ord))
         insert into allocations (intent_uuid, merchant_uuid, address_index, address, rail, derivation_path, created_at, xpub)
         select r.intent_uuid, w.merchant_uuid, s.idx, s.address, r.rail, s.derivation_path, $4, s.xpub
           from r join slots s on s.n = r.n join w on w.xpub = s.xpub
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
