import type { KeyObject } from "node:crypto";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { systemClock, type Clock, type Database } from "@payin/db";
import { uuidv7 } from "@payin/ids";
import { merchantsV1 } from "@payin/proto";
import { fromTimestamp } from "@payin/rpc";
import { appendAuditEvents, listAuditEvents, recordAuditEvent } from "../domain/audit.js";
import { ensureMember, listMemberships, removeMember } from "../domain/membership.js";
import { changeMerchantStatus, createMerchant, getMerchant, listMerchants } from "../domain/merchant.js";
import { ensureOperatingProfile } from "../domain/operating-profile.js";
import { getPayinContext, getReadinessInputs } from "../domain/payin-context.js";
import { createPolicy, getPolicy } from "../domain/policy.js";
import {
  createProvider,
  ensureProviderBinding,
  ensureProviderConnection,
  getProvider,
  getProviderBinding,
  getProviderConnection,
  listProviders,
  rotateProviderConnectionSecret,
} from "../domain/provider.js";
import { createRule, getRule, listRules } from "../domain/rule.js";
import type { Deps } from "../domain/unit-of-work.js";
import { checkMerchantUuid, invalid } from "../domain/validation.js";
import { FeedUnavailableError, type PayinContextFeed } from "../store/payin-context-feed.js";
import { unitOfWork } from "../store/unit-of-work.js";
import { actorOfCall } from "./actor.js";
import {
  auditEventToPb,
  bindingToPb,
  connectionToPb,
  membershipToPb,
  merchantToPb,
  policyToPb,
  profileToPb,
  providerToPb,
  ruleToPb,
  STATUS_TO_PB,
  statusFilterFromPb,
  transitionFromPb,
} from "./mappers.js";

/** The feed's unavailability as the RPC's UNAVAILABLE; anything else as it is. */
function feedError(error: unknown): unknown {
  return error instanceof FeedUnavailableError ? new ConnectError(error.message, Code.Unavailable) : error;
}

/**
 * MerchantsService handlers: proto in, domain call, proto out. Without `feed`
 * (an in-memory harness), the pay-in context feed's RPCs answer UNAVAILABLE.
 * Every instant written (creations, versions, audit events) is `clock`'s. The
 * actor of every change is stamped (rpc/actor.ts), its assertion verified with
 * `assertionKey`, identity's public key.
 */
export function merchantsHandlers(
  db: Database,
  options: { feed?: PayinContextFeed; clock?: Clock; assertionKey: KeyObject },
): ServiceImpl<typeof merchantsV1.MerchantsService> {
  const { feed, clock = systemClock, assertionKey } = options;
  const deps: Deps = { uow: unitOfWork(db), now: () => clock.now(), newUuid: uuidv7 };
  const actorOf = (actor: merchantsV1.Actor | undefined, ctx: HandlerContext, options?: { operatorAlone?: boolean }) => actorOfCall(assertionKey, actor, ctx, clock.now(), options);
  const read = () => deps.uow.read();
  return {
    async createMerchant(req, ctx) {
      const merchant = await createMerchant(deps, { displayName: req.displayName, legalName: req.legalName, actor: actorOf(req.actor, ctx) });
      return { merchant: merchantToPb(merchant) };
    },
    async getMerchant(req) {
      const merchant = await getMerchant(read().merchants, checkMerchantUuid(req.uuid), { requireOpen: req.requireOpen });
      return { merchant: merchantToPb(merchant) };
    },
    async transitionMerchant(req, ctx) {
      const transition = transitionFromPb(req.transition) ?? invalid("transition is required");
      const merchant = await changeMerchantStatus(deps, { uuid: req.uuid, transition, actor: actorOf(req.actor, ctx) });
      return { merchant: merchantToPb(merchant) };
    },
    async getPayinContext(req) {
      const context = await getPayinContext(deps.uow.payinContexts, req.merchantUuid, req.jurisdiction);
      return {
        status: STATUS_TO_PB[context.status],
        ruleEffect: context.ruleEffect ?? "",
        payinPolicyEffect: context.payinPolicyEffect ?? "",
        operatingMode: context.operatingMode ?? "",
        payinProviderConnected: context.providerConnected,
        payinProviderConnectedInJurisdiction: context.providerConnectedInJurisdiction,
      };
    },
    async *watchPayinContextChanges(_req, ctx) {
      if (!feed) throw feedError(new FeedUnavailableError());
      try {
        for await (const event of feed.subscribe(ctx.signal)) {
          yield event.kind === "synced"
            ? { event: { case: "synced", value: { feedId: event.feedId, sequence: event.sequence } } }
            : { event: { case: "change", value: { sequence: event.sequence, merchantUuid: event.merchantUuid ?? "" } } };
        }
      } catch (error) {
        throw feedError(error);
      }
    },
    async getPayinContextFeedPosition() {
      if (!feed) throw feedError(new FeedUnavailableError());
      try {
        return await feed.position();
      } catch (error) {
        throw feedError(error);
      }
    },
    async getReadinessInputs(req) {
      const inputs = await getReadinessInputs(deps.uow.payinContexts, req.merchantUuid);
      return {
        status: STATUS_TO_PB[inputs.status],
        payinPolicyEffect: inputs.payinPolicyEffect ?? "",
        operatingMode: inputs.operatingMode ?? "",
        payinProviderConnected: inputs.providerConnected,
      };
    },
    async listMerchants(req) {
      const { merchants, total } = await listMerchants(read().merchants, {
        limit: req.limit,
        offset: req.offset,
        status: statusFilterFromPb(req.status),
        uuid: req.uuid,
        displayName: req.displayName,
      });
      return { merchants: merchants.map(merchantToPb), total: BigInt(total) };
    },
    async ensureMember(req, ctx) {
      const { membership, created, roleChanged } = await ensureMember(deps, {
        merchantUuid: req.merchantUuid,
        identityUuid: req.identityUuid,
        role: req.role,
        actor: actorOf(req.actor, ctx),
      });
      return { membership: membershipToPb(membership), created, roleChanged };
    },
    async listMemberships(req) {
      return { memberships: (await listMemberships(read().memberships, req.identityUuid)).map(membershipToPb) };
    },
    async removeMember(req, ctx) {
      const membership = await removeMember(deps, { merchantUuid: req.merchantUuid, identityUuid: req.identityUuid, actor: actorOf(req.actor, ctx) });
      return { membership: membershipToPb(membership) };
    },
    async createRule(req, ctx) {
      const rule = await createRule(deps, {
        capability: req.capability,
        jurisdiction: req.jurisdiction,
        effect: req.effect,
        actor: actorOf(req.actor, ctx),
      });
      return { rule: ruleToPb(rule) };
    },
    async listRules(req) {
      const { rules, total } = await listRules(read().rules, { includeClosed: req.includeClosed, limit: req.limit, offset: req.offset });
      return { rules: rules.map(ruleToPb), total: BigInt(total) };
    },
    async getRule(req) {
      return { rule: ruleToPb(await getRule(read().rules, req.ruleUuid)) };
    },
    async ensureOperatingProfile(req, ctx) {
      const profile = await ensureOperatingProfile(deps, {
        merchantUuid: req.merchantUuid,
        operatingMode: req.operatingMode,
        actor: actorOf(req.actor, ctx),
      });
      return { profile: profileToPb(profile) };
    },
    async createPolicy(req, ctx) {
      const policy = await createPolicy(deps, {
        merchantUuid: req.merchantUuid,
        scope: req.scope,
        effect: req.effect,
        actor: actorOf(req.actor, ctx),
      });
      return { policy: policyToPb(policy) };
    },
    async getPolicy(req) {
      return { policy: policyToPb(await getPolicy(read(), { merchantUuid: req.merchantUuid, policyUuid: req.policyUuid })) };
    },
    async createProvider(req, ctx) {
      return { provider: providerToPb(await createProvider(deps, { name: req.name, actor: actorOf(req.actor, ctx) })) };
    },
    async listProviders(req) {
      const { providers, total } = await listProviders(read().providers, { limit: req.limit, offset: req.offset });
      return { providers: providers.map(providerToPb), total: BigInt(total) };
    },
    async getProvider(req) {
      return { provider: providerToPb(await getProvider(read().providers, req.providerUuid)) };
    },
    async ensureProviderBinding(req, ctx) {
      const { binding, created } = await ensureProviderBinding(deps, {
        merchantUuid: req.merchantUuid,
        providerUuid: req.providerUuid,
        capability: req.capability,
        jurisdiction: req.jurisdiction,
        actor: actorOf(req.actor, ctx),
      });
      return { binding: bindingToPb(binding), created };
    },
    async getProviderBinding(req) {
      return { binding: bindingToPb(await getProviderBinding(read(), { merchantUuid: req.merchantUuid, bindingUuid: req.bindingUuid })) };
    },
    async ensureProviderConnection(req, ctx) {
      const { connection, created } = await ensureProviderConnection(deps, {
        merchantUuid: req.merchantUuid,
        providerUuid: req.providerUuid,
        secretReference: req.secretReference,
        actor: actorOf(req.actor, ctx),
      });
      return { connection: connectionToPb(connection), created };
    },
    async getProviderConnection(req) {
      const connection = await getProviderConnection(read(), { merchantUuid: req.merchantUuid, connectionUuid: req.connectionUuid });
      return { connection: connectionToPb(connection) };
    },
    async rotateProviderConnectionSecret(req, ctx) {
      const connection = await rotateProviderConnectionSecret(deps, {
        merchantUuid: req.merchantUuid,
        connectionUuid: req.connectionUuid,
        secretReference: req.secretReference,
        actor: actorOf(req.actor, ctx),
      });
      return { connection: connectionToPb(connection) };
    },
    async recordAuditEvent(req, ctx) {
      const e = req.event;
      const input = e && {
        // The operator CLI records its break-glass work (and refusals) here without a person.
        actor: actorOf(e.actor, ctx, { operatorAlone: true }),
        action: e.action,
        targetType: e.targetType,
        targetUuid: e.targetUuid,
        outcome: e.outcome,
        errorCode: e.errorCode,
      };
      return { event: auditEventToPb(await recordAuditEvent(deps, input)) };
    },
    async appendAuditEvents(req) {
      // Identity's outbox: the events of its own changes, with the actor identity stamped.
      const inputs = req.events.map((e) => {
        if (e.actor?.assertion) invalid("actor.assertion must be empty: the event's actor is the recording service's own");
        return {
          eventUuid: e.eventUuid,
          occurredAt: fromTimestamp(e.occurredAt),
          actor: e.actor && { kind: e.actor.kind, uuid: e.actor.uuid, requestId: e.actor.requestId, osUser: e.actor.osUser },
          action: e.action,
          targetType: e.targetType,
          targetUuid: e.targetUuid,
          outcome: e.outcome,
          errorCode: e.errorCode,
        };
      });
      return { appended: await appendAuditEvents(deps, inputs) };
    },
    async listAuditEvents(req) {
      const filter = {
        action: req.action,
        targetType: req.targetType,
        targetUuid: req.targetUuid,
        actorKind: req.actorKind,
        actorUuid: req.actorUuid,
        outcome: req.outcome,
      };
      const { events, total } = await listAuditEvents(read().audit, { limit: req.limit, offset: req.offset }, filter);
      return { events: events.map(auditEventToPb), total: BigInt(total) };
    },
  };
}
