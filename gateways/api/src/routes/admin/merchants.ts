/**
 * /admin/merchants: list, create, read, lifecycle transitions, members and
 * pay-in readiness, as a table (table.ts): each route's permission, MFA, query
 * and body are data, from which its checks and its OpenAPI entry follow. The operations are
 * @payin/operations' (the merchants service records its own changes; refused
 * attempts are recorded by the library's audit rule).
 */
import { MERCHANT_STATUS, MERCHANT_STATUS_NAMES, MERCHANT_TRANSITION_NAMES, merchantsV1, type MerchantTransitionName } from "@payin/proto";
import { attachMember, createMerchant, listView, membershipView, merchantView, readinessView, readMember, removeMember, transitionMerchant } from "@payin/operations";
import { MERCHANT_ROLES } from "@payin/permissions";
import { ApiError, rpcOffset } from "@payin/http";
import { isUuidAnyCase } from "@payin/ids";
import { ADMIN_PREFIX, type AdminRoute } from "./table.js";

/** Not blank, and (as every text people read: displayTextProblem) no bidirectional control or zero-width characters. */
const TEXT_RULE = "not blank; no bidirectional control or zero-width characters";

const TRANSITION_SUMMARIES: Readonly<Record<MerchantTransitionName, string>> = {
  activate: "Activate",
  deactivate: "Deactivate",
  suspend: "Suspend",
  close: "Close (terminal)",
};

export const MERCHANT_ROUTES: readonly AdminRoute[] = [
  {
    method: "GET",
    path: "/merchants",
    permission: "merchant.read",
    query: {
      status: { kind: "enum", values: MERCHANT_STATUS_NAMES },
      uuid: { kind: "uuid" },
      display_name: { kind: "text", min: 1, max: 150, description: "exact" },
    },
    paged: true,
    doc: { id: "listMerchants", tag: "merchants", summary: "List merchants, newest first", ok: { 200: "MerchantList" } },
    async read({ ports, query, page }) {
      const res = await ports.merchants.listMerchants({
        limit: page.limit,
        offset: rpcOffset(page.offset),
        status: query.status && MERCHANT_STATUS.isName(query.status) ? MERCHANT_STATUS.byName[query.status] : merchantsV1.MerchantStatus.UNSPECIFIED,
        uuid: query.uuid?.toLowerCase(),
        displayName: query.display_name,
      });
      return { body: listView(res.merchants.map(merchantView), res.total, page) };
    },
  },
  {
    method: "POST",
    path: "/merchants",
    permission: "merchant.manage",
    body: {
      name: "MerchantCreate",
      fields: {
        display_name: { min: 1, max: 150, notBlank: true, description: `${TEXT_RULE} (U+202A–U+202E, U+2066–U+2069; U+200B–U+200F, U+2060, U+FEFF)` },
        legal_name: { min: 1, max: 255, notBlank: true, optional: true, description: TEXT_RULE },
      },
    },
    doc: { id: "createMerchant", tag: "merchants", summary: "Create a merchant, always inactive", ok: { 201: "MerchantEnvelope" }, location: "the merchant's path" },
    async change({ ports, actor, checked }) {
      const merchant = await createMerchant(ports, actor, async () => {
        const { body } = await checked();
        return { displayName: body.display_name!, legalName: body.legal_name };
      });
      return { status: 201, location: `${ADMIN_PREFIX}/merchants/${merchant.uuid}`, body: { merchant: merchantView(merchant) } };
    },
  },
  {
    method: "GET",
    path: "/merchants/{uuid}",
    permission: "merchant.read",
    doc: { id: "getMerchant", tag: "merchants", summary: "Read a merchant, closed ones included", ok: { 200: "MerchantEnvelope" }, refusals: [404] },
    async read({ ports, param }) {
      const res = await ports.merchants.getMerchant({ uuid: param("uuid") });
      return { body: { merchant: merchantView(res.merchant!) } };
    },
  },
  // Lifecycle operations, one per transition of the contract; the source states each allows are the merchants service's table.
  ...MERCHANT_TRANSITION_NAMES.map(
    (verb): AdminRoute => ({
      method: "POST",
      path: `/merchants/{uuid}/${verb}`,
      permission: "merchant.manage",
      mfa: "recent",
      body: "empty",
      doc: {
        id: `${verb}Merchant`,
        tag: "merchants",
        summary: TRANSITION_SUMMARIES[verb],
        description: "409 MERCHANT_TRANSITION_NOT_ALLOWED: the transition table does not allow it from the merchant's status.",
        ok: { 200: "MerchantEnvelope" },
        refusals: [404, 409],
      },
      async change({ ports, actor, param, checked }) {
        const merchant = await transitionMerchant(ports, actor, param("uuid"), verb, async () => void (await checked()));
        return { body: { merchant: merchantView(merchant) } };
      },
    }),
  ),
  // Idempotent: 201 when the identity became a member, 200 when it already was.
  // An identity that does not exist is 404 (IDENTITY_NOT_FOUND), before anything is written.
  // `role`, when given, is the member's role for this merchant (set, or changed on a repeat).
  {
    method: "PUT",
    path: "/merchants/{uuid}/members",
    permission: "merchant.manage",
    mfa: "recent",
    body: {
      name: "MemberRequest",
      fields: {
        identity_uuid: { uuid: true },
        role: {
          optional: true,
          oneOf: {
            values: MERCHANT_ROLES,
            message: `role must be one of: ${MERCHANT_ROLES.join(", ")}`,
            description:
              "the member's role for this merchant: for it, the person has that role's merchant permissions, whatever merchant roles the identity holds. " +
              "Absent or null: a new membership names no role (the identity's own merchant roles apply) and an existing one keeps its role; " +
              "another role than the membership's changes it (200)",
          },
        },
      },
    },
    doc: {
      id: "attachMerchantMember",
      tag: "merchants",
      summary: "Attach an identity as member, idempotent: 201 attached, 200 already",
      description: "With role, a repeat naming another role changes the membership's role (200). 404 MERCHANT_NOT_FOUND or IDENTITY_NOT_FOUND.",
      ok: { 200: "MembershipEnvelope", 201: "MembershipEnvelope" },
      refusals: [404],
      location: "the membership's path",
    },
    async change({ ports, actor, param, checked }) {
      const uuid = param("uuid");
      const res = await attachMember(ports, actor, uuid, async () => {
        const { body } = await checked();
        return { identityUuid: body.identity_uuid!, role: body.role };
      });
      const location = res.created ? `${ADMIN_PREFIX}/merchants/${uuid}/members/${res.membership.identityUuid}` : undefined;
      return { status: res.created ? 201 : 200, location, body: { membership: membershipView(res.membership) } };
    },
  },
  // The resource an attach's Location names: a read like the merchant's.
  {
    method: "GET",
    path: "/merchants/{uuid}/members/{identity_uuid}",
    permission: "merchant.read",
    doc: {
      id: "getMerchantMember",
      tag: "merchants",
      summary: "Read a membership, closed merchants included",
      description: "404 MERCHANT_NOT_FOUND; MEMBER_NOT_FOUND when the identity (unknown, or a malformed uuid) is not a member of the merchant.",
      ok: { 200: "MembershipEnvelope" },
      refusals: [404],
    },
    async read({ ports, param }) {
      return { body: { membership: membershipView(await readMember(ports, param("uuid"), param("identity_uuid"))) } };
    },
  },
  // Removal ends what the membership gave at the person's next request: the
  // gateways read memberships on every request and keep none.
  {
    method: "DELETE",
    path: "/merchants/{uuid}/members/{identity_uuid}",
    permission: "merchant.manage",
    mfa: "recent",
    body: "empty",
    doc: {
      id: "removeMerchantMember",
      tag: "merchants",
      summary: "Remove a member: the person's next request for the merchant is refused",
      description: "404 MERCHANT_NOT_FOUND; MEMBER_NOT_FOUND when the identity (unknown, or a malformed uuid) is not a member of the merchant.",
      ok: { 204: null },
      refusals: [404],
    },
    async change({ ports, actor, param, checked }) {
      await removeMember(ports, actor, param("uuid"), param("identity_uuid"), async () => void (await checked()));
      return { status: 204, body: null };
    },
  },
  // Readiness is decided by the allocation service, from the merchant's side
  // (merchants service) and its own (wallet, address space), for pay-ins in
  // `?jurisdiction=` (its rule and provider binding count, as at pay-in create)
  // or merchant-wide without it. A read: any merchant, closed ones included;
  // an unknown or malformed uuid is 404.
  {
    method: "GET",
    path: "/merchants/{uuid}/readiness",
    permission: "merchant.read",
    query: { jurisdiction: { kind: "country", description: "the jurisdiction of the sale; any other value than an assigned code is 400 VALIDATION_ERROR" } },
    doc: {
      id: "getMerchantReadiness",
      tag: "merchants",
      summary: "Pay-in readiness of each (asset, rail) pair, with every failing reason",
      description:
        "With jurisdiction, the decision a pay-in create in that jurisdiction makes (its crypto.payin rule counts in payin_not_allowed, " +
        "a provider bound for it with a connection in provider_not_ready); without, merchant-wide (no rule, a provider bound in any jurisdiction).",
      ok: { 200: "ReadinessEnvelope" },
      refusals: [404],
    },
    async read({ ports, param, query }) {
      const uuid = param("uuid");
      if (!isUuidAnyCase(uuid)) throw new ApiError("MERCHANT_NOT_FOUND", "merchant not found");
      const res = await ports.allocation.getReadiness({ merchantUuid: uuid, jurisdiction: query.jurisdiction });
      return { body: { readiness: readinessView(uuid, res.pairs) } };
    },
  },
];
