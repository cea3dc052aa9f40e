import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@payin/ids";
import { Code } from "@payin/rpc";
import { expectFailure } from "@payin/testing";
import { closedMerchant, identityActor, startMerchants, UNKNOWN_UUID, type Harness } from "./harness.js";

let h: Harness;

beforeAll(async () => {
  h = await startMerchants();
});

afterAll(async () => {
  await h?.close();
});

/** The events an actor made, oldest first: action, target, outcome and actor. */
async function eventsOf(actorUuid: string) {
  const { events } = await h.client.listAuditEvents({ limit: 100, offset: 0, actorUuid });
  return events.reverse().map((e) => ({ action: e.action, targetType: e.targetType, targetUuid: e.targetUuid, outcome: e.outcome, actor: [e.actor?.kind, e.actor?.uuid] }));
}

async function newMerchant(displayName = "Members"): Promise<string> {
  return (await h.client.createMerchant({ displayName })).merchant!.uuid;
}

async function merchantsOf(identityUuid: string): Promise<string[]> {
  return (await h.client.listMemberships({ identityUuid })).memberships.map((m) => m.merchantUuid);
}

describe("RemoveMember", () => {
  it("removes the membership, answers it, and records merchant.member.remove with the actor", async () => {
    const [a, b] = [await newMerchant("A"), await newMerchant("B")];
    const identity = uuidv7();
    await h.client.ensureMember({ merchantUuid: a, identityUuid: identity, role: "merchant_admin" });
    await h.client.ensureMember({ merchantUuid: b, identityUuid: identity });
    const who = uuidv7();
    const { membership } = await h.client.removeMember({ merchantUuid: a, identityUuid: identity, actor: identityActor(who) });
    expect(membership).toMatchObject({ merchantUuid: a, identityUuid: identity, role: "merchant_admin" });
    expect(await merchantsOf(identity)).toEqual([b]);
    expect(await eventsOf(who)).toEqual([{ action: "merchant.member.remove", targetType: "merchant", targetUuid: a, outcome: "succeeded", actor: ["identity", who] }]);
  });

  it("answers NOT_FOUND (MEMBER_NOT_FOUND) for an identity that is not a member, twice removed included, and records nothing", async () => {
    const merchant = await newMerchant();
    const identity = uuidv7();
    const who = uuidv7();
    await expectFailure(h.client.removeMember({ merchantUuid: merchant, identityUuid: identity, actor: identityActor(who) }), Code.NotFound, "MEMBER_NOT_FOUND");
    await h.client.ensureMember({ merchantUuid: merchant, identityUuid: identity });
    await h.client.removeMember({ merchantUuid: merchant, identityUuid: identity, actor: identityActor(who) });
    await expectFailure(h.client.removeMember({ merchantUuid: merchant, identityUuid: identity, actor: identityActor(who) }), Code.NotFound, "MEMBER_NOT_FOUND");
    // A member of another merchant is not a member of this one.
    const other = await newMerchant();
    await h.client.ensureMember({ merchantUuid: other, identityUuid: identity });
    await expectFailure(h.client.removeMember({ merchantUuid: merchant, identityUuid: identity }), Code.NotFound, "MEMBER_NOT_FOUND");
    expect(await merchantsOf(identity)).toEqual([other]);
    expect((await eventsOf(who)).map((e) => e.action)).toEqual(["merchant.member.remove"]);
  });

  it("answers MERCHANT_NOT_FOUND for an unknown or malformed merchant and INVALID_ARGUMENT for a malformed identity", async () => {
    for (const merchantUuid of [UNKNOWN_UUID, "nope"]) {
      await expectFailure(h.client.removeMember({ merchantUuid, identityUuid: uuidv7() }), Code.NotFound, "MERCHANT_NOT_FOUND");
    }
    await expectFailure(h.client.removeMember({ merchantUuid: await newMerchant(), identityUuid: "x" }), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it("removes a closed merchant's member too", async () => {
    const merchant = await closedMerchant(h.client);
    const identity = uuidv7();
    await h.client.ensureMember({ merchantUuid: merchant, identityUuid: identity });
    await h.client.removeMember({ merchantUuid: merchant, identityUuid: identity });
    expect(await merchantsOf(identity)).toEqual([]);
  });

  it("deletes and records in one transaction: when the audit record fails, the membership stays", async () => {
    const merchant = await newMerchant();
    const identity = uuidv7();
    await h.client.ensureMember({ merchantUuid: merchant, identityUuid: identity });
    const em = h.orm.em.fork();
    const refused = uuidv7();
    // The audit log refuses the records of one actor: its removal's record fails after the delete ran in the same transaction.
    await em.execute(`
      create function refuse_marked_audit() returns trigger language plpgsql as $$
      begin
        if new.actor_uuid = '${refused}' then raise exception 'audit write refused for the test'; end if;
        return new;
      end $$`);
    await em.execute(`create trigger refuse_marked_audit before insert on audit_events for each row execute function refuse_marked_audit()`);
    try {
      await expect(h.client.removeMember({ merchantUuid: merchant, identityUuid: identity, actor: identityActor(refused) })).rejects.toThrow();
      expect(await merchantsOf(identity)).toEqual([merchant]);
      expect(await eventsOf(refused)).toEqual([]);
      const who = uuidv7();
      await h.client.removeMember({ merchantUuid: merchant, identityUuid: identity, actor: identityActor(who) });
      expect(await merchantsOf(identity)).toEqual([]);
      expect((await eventsOf(who)).map((e) => e.action)).toEqual(["merchant.member.remove"]);
    } finally {
      await em.execute(`drop trigger refuse_marked_audit on audit_events`);
      await em.execute(`drop function refuse_marked_audit()`);
    }
  });
});

describe("a membership's role", () => {
  it("is unset unless named, named on attach, answered by ListMemberships", async () => {
    const [a, b] = [await newMerchant("A"), await newMerchant("B")];
    const identity = uuidv7();
    const plain = await h.client.ensureMember({ merchantUuid: a, identityUuid: identity });
    expect(plain.membership!.role).toBeUndefined();
    const named = await h.client.ensureMember({ merchantUuid: b, identityUuid: identity, role: "merchant_member" });
    expect(named).toMatchObject({ created: true, roleChanged: false, membership: { role: "merchant_member" } });
    const { memberships } = await h.client.listMemberships({ identityUuid: identity });
    expect(memberships.map((m) => [m.merchantUuid, m.role])).toEqual([
      [a, undefined],
      [b, "merchant_member"],
    ]);
  });

  it("changes on a repeat naming another role (audited), and stays on a repeat naming none or the same", async () => {
    const merchant = await newMerchant();
    const identity = uuidv7();
    const who = uuidv7();
    const actor = identityActor(who);
    await h.client.ensureMember({ merchantUuid: merchant, identityUuid: identity, actor });
    const promoted = await h.client.ensureMember({ merchantUuid: merchant, identityUuid: identity, role: "merchant_admin", actor });
    expect(promoted).toMatchObject({ created: false, roleChanged: true, membership: { role: "merchant_admin" } });
    const same = await h.client.ensureMember({ merchantUuid: merchant, identityUuid: identity, role: "merchant_admin", actor });
    expect(same).toMatchObject({ created: false, roleChanged: false, membership: { role: "merchant_admin" } });
    const none = await h.client.ensureMember({ merchantUuid: merchant, identityUuid: identity, actor });
    expect(none).toMatchObject({ created: false, roleChanged: false, membership: { role: "merchant_admin" } });
    const demoted = await h.client.ensureMember({ merchantUuid: merchant, identityUuid: identity, role: "merchant_member", actor });
    expect(demoted).toMatchObject({ roleChanged: true, membership: { role: "merchant_member" } });
    expect((await eventsOf(who)).map((e) => e.action)).toEqual(["merchant.member.attach", "merchant.member.role_change", "merchant.member.role_change"]);
  });

  it.each(["platform_admin", "Merchant_admin", "", "owner"])("refuses the role %j with INVALID_ARGUMENT, changing nothing", async (role) => {
    const merchant = await newMerchant();
    const identity = uuidv7();
    await expectFailure(h.client.ensureMember({ merchantUuid: merchant, identityUuid: identity, role }), Code.InvalidArgument, "INVALID_ARGUMENT");
    expect(await merchantsOf(identity)).toEqual([]);
  });

  it("is kept by the database to the merchant roles", async () => {
    const merchant = await newMerchant();
    const identity = uuidv7();
    await h.client.ensureMember({ merchantUuid: merchant, identityUuid: identity });
    const em = h.orm.em.fork();
    await expect(em.execute(`update memberships set role = 'platform_admin' where identity_uuid = '${identity}'`)).rejects.toThrow(/memberships_role_check/);
  });
});

