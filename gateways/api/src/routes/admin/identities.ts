/**
 * /admin/identities: create, list, read, disable, lock, activate, forgive
 * sign-in failures, remove a role, as a table (table.ts). Every change needs MFA
 * completed within the last 15 minutes; the identity service re-checks the
 * permission and MFA from the session token; the gateway checks them first so
 * a refusal needs no round trip. The changes and their audit are
 * @payin/operations'.
 */
import { rpcOffset } from "@payin/http";
import { createIdentity, IDENTITY_STATUS_CHANGES, identityView, listView, removeRole, resetSignInFailures, setIdentityStatus, type IdentityStatusVerb } from "@payin/operations";
import { ROLES } from "@payin/permissions";
import { ADMIN_PREFIX, type AdminRoute } from "./table.js";

/** Each status change's summary and the conflicts it documents. */
const STATUS_CHANGE_DOCS: Readonly<Record<IdentityStatusVerb, { id: string; summary: string; description: string }>> = {
  disable: {
    id: "disableIdentity",
    summary: "Disable an identity, revoking its sessions",
    description: "409 IDENTITY_ALREADY_DISABLED; LAST_PLATFORM_ADMIN for the last active platform_admin.",
  },
  lock: {
    id: "lockIdentity",
    summary: "Lock an identity, revoking its sessions",
    description: "409 IDENTITY_ALREADY_LOCKED; LAST_PLATFORM_ADMIN for the last active platform_admin.",
  },
  activate: { id: "activateIdentity", summary: "Restore a disabled or locked identity", description: "409 IDENTITY_ALREADY_ACTIVE." },
};

export const IDENTITY_ROUTES: readonly AdminRoute[] = [
  {
    method: "POST",
    path: "/identities",
    permission: "identity.create",
    mfa: "recent",
    body: {
      name: "IdentityCreate",
      fields: {
        email: { min: 3, max: 254, email: true },
        password: { min: 12, max: 128 },
        roles: { list: { maxItems: 16, items: { type: "string", enum: [...ROLES] } } },
      },
    },
    doc: {
      id: "createIdentity",
      tag: "identities",
      summary: "Create an identity",
      description: "409 IDENTITY_EMAIL_TAKEN (emails are case-insensitive).",
      ok: { 201: "IdentityEnvelope" },
      refusals: [409],
      location: "the identity's path",
    },
    async change({ ports, actor, caller, checked }) {
      // Refused before the body is looked at: 403 whatever it holds.
      const identity = await createIdentity(ports, actor, caller, async () => {
        const { body, lists } = await checked();
        return { email: body.email!, password: body.password!, roles: lists.roles! };
      });
      return { status: 201, location: `${ADMIN_PREFIX}/identities/${identity.uuid}`, body: { identity: identityView(identity) } };
    },
  },
  {
    method: "GET",
    path: "/identities",
    permission: "identity.read",
    paged: true,
    doc: { id: "listIdentities", tag: "identities", summary: "List identities", ok: { 200: "IdentityList" } },
    async read({ ports, caller, page }) {
      const res = await ports.identity.listIdentities({ caller, limit: page.limit, offset: rpcOffset(page.offset) });
      return { body: listView(res.identities.map(identityView), res.total, page) };
    },
  },
  // The resource an identity create's Location names. Unknown or malformed uuid: 404 IDENTITY_NOT_FOUND.
  {
    method: "GET",
    path: "/identities/{uuid}",
    permission: "identity.read",
    doc: {
      id: "getIdentity",
      tag: "identities",
      summary: "Read an identity",
      description: "404 IDENTITY_NOT_FOUND: no such identity, or a malformed uuid.",
      ok: { 200: "IdentityEnvelope" },
      refusals: [404],
    },
    async read({ ports, param }) {
      return { body: { identity: identityView((await ports.identity.getIdentity({ identityUuid: param("uuid") })).identity!) } };
    },
  },
  // Activate restores a disabled or locked identity (409 IDENTITY_ALREADY_ACTIVE when active).
  ...IDENTITY_STATUS_CHANGES.map(
    ([verb]): AdminRoute => ({
      method: "POST",
      path: `/identities/{uuid}/${verb}`,
      permission: "identity.manage",
      mfa: "recent",
      body: "empty",
      doc: { ...STATUS_CHANGE_DOCS[verb], tag: "identities", ok: { 200: "IdentityEnvelope" }, refusals: [404, 409] },
      async change({ ports, actor, caller, param, checked }) {
        const identity = await setIdentityStatus(ports, actor, caller, param("uuid"), verb, async () => void (await checked()));
        return { body: { identity: identityView(identity) } };
      },
    }),
  ),
  // Forgives the identity's counted sign-in failures: they stop counting toward
  // the account's delays and cap (100 consecutive failures refuse sign-in for up
  // to 24 hours) and toward the limit per email and client address; they still
  // count toward their address's own limit. Activating an identity does the same.
  {
    method: "POST",
    path: "/identities/{uuid}/sign-in-failures/reset",
    permission: "identity.manage",
    mfa: "recent",
    body: "empty",
    doc: {
      id: "resetSignInFailures",
      tag: "identities",
      summary: "Forgive an identity's counted sign-in failures",
      description:
        "Lifts the account's sign-in delays and cap and the limit per email and client address; the failures still count toward " +
        "their client address's own limit. Answers the identity and how many failures were forgiven (0 when none).",
      ok: { 200: "SignInFailuresReset" },
      refusals: [404],
    },
    async change({ ports, actor, caller, param, checked }) {
      const res = await resetSignInFailures(ports, actor, caller, param("uuid"), async () => void (await checked()));
      return { body: { identity: identityView(res.identity), forgiven_failures: res.forgiven } };
    },
  },
  {
    method: "DELETE",
    path: "/identities/{uuid}/roles/{role}",
    permission: "identity.manage",
    mfa: "recent",
    body: "empty",
    doc: {
      id: "removeIdentityRole",
      tag: "identities",
      summary: "Remove a role",
      description: "409 ROLE_NOT_HELD (also for a name that is no role); LAST_PLATFORM_ADMIN when no active platform_admin would be left.",
      ok: { 200: "IdentityEnvelope" },
      refusals: [404, 409],
    },
    async change({ ports, actor, caller, param, checked }) {
      const identity = await removeRole(ports, actor, caller, param("uuid"), async () => {
        await checked();
        return { role: param("role") };
      });
      return { body: { identity: identityView(identity) } };
    },
  },
];
