import { Migration } from "@payin/db";

/**
 * Each listed event gets a per-merchant position, given when this service
 * records it, and the events API pages by it. Event ids are minted where the
 * change happens: an event with an older id can be recorded after one with a
 * newer id (two relays, a long transaction), so paging by id could pass an
 * event before it was recorded and never list it.
 *
 * A merchant's counter row (`merchant_event_positions`) is bumped in the
 * transaction that records its new events and stays locked until that
 * transaction ends: a later batch for the merchant waits, takes higher
 * positions and commits later. Positions are therefore visible in their order.
 * Test events are never listed and have none.
 *
 * The events kept so far are numbered per merchant in the order of their ids.
 */
export class EventPositions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table merchant_event_positions (
        merchant_uuid uuid primary key,
        -- The highest position given to one of the merchant's events.
        last bigint not null constraint merchant_event_positions_last check (last >= 1)
      )`);
    this.addSql(`alter table events add column position bigint`);
    this.addSql(`
      update events e set position = n.position
        from (select event_uuid, row_number() over (partition by merchant_uuid order by event_uuid) as position from events where not test) n
       where e.event_uuid = n.event_uuid`);
    this.addSql(`
      insert into merchant_event_positions (merchant_uuid, last)
      select merchant_uuid, max(position) from events where not test group by merchant_uuid`);
    this.addSql(`alter table events add constraint events_position check ((position is null) = test)`);
    this.addSql(`create unique index events_merchant_position_idx on events (merchant_uuid, position) where not test`);
    this.addSql(`drop index events_merchant_order_idx`);
    this.addSql(`drop index events_merchant_intent_idx`);
    this.addSql(`create index events_merchant_intent_idx on events (merchant_uuid, intent_uuid, position) where intent_uuid is not null and not test`);
  }
}
