import { randomBytes } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { DomainError } from "@payin/errors";
import { authenticate } from "./authenticate.js";
import {
  authenticateMachineToken,
  issueMachineCredential,
  LAST_USED_RESOLUTION_MS,
  type MachineCredential,
  type MachineCredentialStore,
  type StoredMachineCredential,
} from "./machine-credential.js";
import { IdentityReason } from "./reasons.js";
import type { SessionStore } from "./stores.js";

/** An in-memory store with the same "one active per merchant" rule as the database. */
class MemoryStore implements MachineCredentialStore {
  readonly rows = new Map<string, StoredMachineCredential>();
  readonly recordUse = vi.fn(async (credentialUuid: string, at: Date, olderThan: Date) => {
    const row = [...this.rows.values()].find((r) => r.credentialUuid === credentialUuid);
    if (row && (row.lastUsedAt === null || row.lastUsedAt < olderThan)) row.lastUsedAt = at;
  });

  async insertActive(credential: MachineCredential, secretHash: Buffer): Promise<boolean> {
    const active = [...this.rows.values()].some((r) => r.merchantUuid === credential.merchantUuid && r.status === "active");
    if (active) return false;
    this.rows.set(credential.keyId, { ...credential, secretHash });
    return true;
  }

  async findByKeyId(keyId: string): Promise<StoredMachineCredential | null> {
    const row = this.rows.get(keyId);
    return row ? { ...row } : null;
  }
}

const MERCHANT = "01935c4e-7a3b-7c2d-8e4f-5a6b7c8d9e0f";
const now = new Date("2026-11-21T12:00:00.000Z");
const options = { now, onBackgroundError: () => {} };

async function reasonOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return (error as DomainError).reason;
}

async function issued(store = new MemoryStore()) {
  const result = await issueMachineCredential(store, { credentialUuid: "01935c4e-7a3b-7c2d-8e4f-000000000001", merchantUuid: MERCHANT, now });
  return { store, ...result };
}

describe("issueMachineCredential", () => {
  it("issues an active credential whose key id is the token's", async () => {
    const { credential, token } = await issued();
    expect(credential).toMatchObject({ merchantUuid: MERCHANT, status: "active", createdAt: now, lastUsedAt: null, revokedAt: null });
    expect(token).toBe(`mpk_${credential.keyId}${token.slice(36)}`);
    expect(JSON.stringify(credential)).not.toContain(token.slice(36));
  });

  it("refuses a second active credential for the merchant", async () => {
    const { store } = await issued();
    expect(await reasonOf(issued(store))).toBe(IdentityReason.CredentialAlreadyActive);
  });

  it.each(["", "not-a-uuid", MERCHANT.toUpperCase(), ` ${MERCHANT}`])("refuses merchant uuid %j", async (merchantUuid) => {
    const store = new MemoryStore();
    expect(await reasonOf(issueMachineCredential(store, { credentialUuid: "x", merchantUuid, now }))).toBe(IdentityReason.InvalidArgument);
    expect(store.rows.size).toBe(0);
  });
});

describe("authenticateMachineToken", () => {
  it("resolves a good token to the machine principal and records the use", async () => {
    const { store, token, credential } = await issued();
    const principal = await authenticateMachineToken(store, token, options);
    expect(principal).toEqual({
      kind: "machine",
      merchantUuid: MERCHANT,
      credentialUuid: credential.credentialUuid,
      permissions: ["merchant.payin.create", "merchant.payin.read"],
    });
    expect(store.recordUse).toHaveBeenCalledTimes(1);
    expect(store.rows.get(credential.keyId)?.lastUsedAt).toEqual(now);
  });

  it("writes last_used_at at most once per interval", async () => {
    const { store, token } = await issued();
    await authenticateMachineToken(store, token, options);
    await authenticateMachineToken(store, token, { ...options, now: new Date(now.getTime() + LAST_USED_RESOLUTION_MS - 1) });
    expect(store.recordUse).toHaveBeenCalledTimes(1);
    await authenticateMachineToken(store, token, { ...options, now: new Date(now.getTime() + LAST_USED_RESOLUTION_MS + 1) });
    expect(store.recordUse).toHaveBeenCalledTimes(2);
  });

  it("hands a failed use record to the callback, not to the caller", async () => {
    const { store, token, credential } = await issued();
    store.recordUse.mockRejectedValueOnce(new Error("db down"));
    const onBackgroundError = vi.fn();
    await expect(authenticateMachineToken(store, token, { now, onBackgroundError })).resolves.toMatchObject({ kind: "machine" });
    await vi.waitFor(() => expect(onBackgroundError).toHaveBeenCalledWith(expect.any(Error), credential.credentialUuid));
  });

  it("refuses wrong secrets, unknown key ids, revoked credentials and malformed tokens alike", async () => {
    const { store, token, credential } = await issued();
    const wrongSecret = `mpk_${credential.keyId}${randomBytes(32).toString("base64url")}`;
    const unknownKey = `mpk_${randomBytes(16).toString("hex")}${token.slice(36)}`;
    for (const candidate of [wrongSecret, unknownKey, token.slice(0, -1), `${token}x`, "", "mpk_"]) {
      expect(await reasonOf(authenticateMachineToken(store, candidate, options))).toBe(IdentityReason.InvalidToken);
    }
    store.rows.get(credential.keyId)!.status = "revoked";
    expect(await reasonOf(authenticateMachineToken(store, token, options))).toBe(IdentityReason.InvalidToken);
    expect(store.recordUse).not.toHaveBeenCalled();
  });
});

describe("authenticate", () => {
  it("routes machine tokens to machine credentials only, and refuses unknown sessions", async () => {
    const { store, token } = await issued();
    const findByTokenHash = vi.fn(async () => null);
    const stores = { machineCredentials: store, sessions: { findByTokenHash } as unknown as SessionStore };
    expect((await authenticate(stores, token, options)).kind).toBe("machine");
    for (const candidate of [randomBytes(32).toString("base64url"), "Bearer abc", `mpk_${"0".repeat(75)}`]) {
      const error = await authenticate(stores, candidate, options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).reason).toBe(IdentityReason.InvalidToken);
      expect((error as DomainError).message).toBe("invalid token");
    }
    // Only the session-style token was looked up as a session; "mpk_…" and malformed ones never were.
    expect(findByTokenHash).toHaveBeenCalledTimes(1);
  });
});
