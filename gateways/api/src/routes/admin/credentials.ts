/**
 * /admin/merchants/{uuid}/machine-credentials: list, read, create, rotate,
 * revoke, as a table (table.ts). Only a person may manage credentials (a
 * machine bearer gets 403 before anything else); credential.manage and a
 * session that completed MFA — within the last 15 minutes for a change, a
 * credential moves money — are checked before any lookup, and the identity
 * service checks them again from the session token passed as the caller. The
 * merchant checks and the audit are the operations' (@payin/operations,
 * machine-credentials); a rotate or revoke makes this gateway's authenticator
 * forget the merchant's cached tokens at once. Tokens appear only in the create
 * and rotate answers, never in logs or audit.
 */
import {
  createMachineCredential,
  credentialView,
  issuedCredentialView,
  listMachineCredentials,
  readMachineCredential,
  revokeMachineCredential,
  rotateMachineCredential,
} from "@payin/operations";
import { ADMIN_PREFIX, type AdminRoute } from "./table.js";

const PATH = "/merchants/{uuid}/machine-credentials";

export const CREDENTIAL_ROUTES: readonly AdminRoute[] = [
  {
    method: "GET",
    path: PATH,
    person: true,
    permission: "credential.manage",
    mfa: "any",
    doc: { id: "listMachineCredentials", tag: "machine-credentials", summary: "List machine credentials", ok: { 200: "MachineCredentialList" }, refusals: [404] },
    async read({ ports, caller, param }) {
      return { body: { credentials: (await listMachineCredentials(ports, caller, param("uuid"))).map(credentialView) } };
    },
  },
  {
    method: "POST",
    path: PATH,
    person: true,
    permission: "credential.manage",
    mfa: "recent",
    body: "empty",
    doc: {
      id: "createMachineCredential",
      tag: "machine-credentials",
      summary: "Create a machine credential (token returned once)",
      description: "409 CREDENTIAL_ALREADY_ACTIVE, MERCHANT_CLOSED.",
      ok: { 201: "IssuedMachineCredentialEnvelope" },
      refusals: [404, 409],
      location: "the credential's path",
    },
    async change({ ports, actor, caller, param, checked }) {
      const merchantUuid = param("uuid");
      const res = await createMachineCredential(ports, actor, caller, merchantUuid, async () => void (await checked()));
      return {
        status: 201,
        location: `${ADMIN_PREFIX}/merchants/${merchantUuid}/machine-credentials/${res.credential.credentialUuid}`,
        body: { credential: issuedCredentialView(res.credential, res.token) },
      };
    },
  },
  // The resource a create's Location names, as the listing shows it.
  {
    method: "GET",
    path: `${PATH}/{credential_uuid}`,
    person: true,
    permission: "credential.manage",
    mfa: "any",
    doc: {
      id: "getMachineCredential",
      tag: "machine-credentials",
      summary: "Read a machine credential as listed, never its token",
      description: "404 MERCHANT_NOT_FOUND; CREDENTIAL_NOT_FOUND for an unknown or malformed uuid, or another merchant's credential.",
      ok: { 200: "MachineCredentialEnvelope" },
      refusals: [404],
    },
    async read({ ports, caller, param }) {
      return { body: { credential: credentialView(await readMachineCredential(ports, caller, param("uuid"), param("credential_uuid"))) } };
    },
  },
  {
    method: "POST",
    path: `${PATH}/rotate`,
    person: true,
    permission: "credential.manage",
    mfa: "recent",
    body: "empty",
    doc: {
      id: "rotateMachineCredential",
      tag: "machine-credentials",
      summary: "Rotate the active credential atomically (token returned once)",
      description: "409 NO_ACTIVE_CREDENTIAL, MERCHANT_CLOSED.",
      ok: { 200: "IssuedMachineCredentialEnvelope" },
      refusals: [404, 409],
    },
    async change({ ports, actor, caller, param, checked }) {
      const res = await rotateMachineCredential(ports, actor, caller, param("uuid"), async () => void (await checked()));
      return { body: { credential: issuedCredentialView(res.credential, res.token) } };
    },
  },
  // Revoking is always allowed, a closed merchant's credentials included.
  {
    method: "POST",
    path: `${PATH}/{credential_uuid}/revoke`,
    person: true,
    permission: "credential.manage",
    mfa: "recent",
    body: "empty",
    doc: {
      id: "revokeMachineCredential",
      tag: "machine-credentials",
      summary: "Revoke a credential",
      description: "404 CREDENTIAL_NOT_FOUND. 409 CREDENTIAL_ALREADY_REVOKED.",
      ok: { 200: "MachineCredentialEnvelope" },
      refusals: [404, 409],
    },
    async change({ ports, actor, caller, param, checked }) {
      const credential = await revokeMachineCredential(ports, actor, caller, param("uuid"), param("credential_uuid"), async () => void (await checked()));
      return { body: { credential: credentialView(credential) } };
    },
  },
];
