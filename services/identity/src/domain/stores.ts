import type { AuditOutboxStore, ChangeOrigin } from "./audit-outbox.js";
import type { MachineCredential, MachineCredentialStore, StoredMachineCredential } from "./machine-credential.js";
import type { Role } from "./permissions.js";
import type { Transport } from "./principal.js";
import type { SecurityEvent } from "./security-events.js";
import type { IdentityStatus } from "@payin/permissions";

export type { IdentityStatus };

/** Public view of an identity. */
export interface Identity {
  identityUuid: string;
  /** Lower-cased. */
  email: string;
  status: IdentityStatus;
  /** Sorted. */
  roles: Role[];
  /** True once TOTP enrolment was confirmed. */
  mfaEnrolled: boolean;
  createdAt: Date;
}

/** An identity with its password hash (argon2id PHC string). */
export interface StoredIdentity extends Identity {
  passwordHash: string;
}

/** A TOTP factor: pending until `confirmedAt` is set. */
export interface TotpFactor {
  identityUuid: string;
  /** AES-256-GCM sealed secret (@payin/sealing). */
  secretCiphertext: Buffer;
  confirmedAt: Date | null;
  /** Last step accepted; a step at or below it is refused. */
  lastUsedStep: number | null;
}

/** A recovery code as stored: HMAC-SHA256(pepper, salt ‖ SHA-256(code)) and its salt (see mfa.ts). */
export interface StoredRecoveryCode {
  /** 16 random bytes, one per code. */
  salt: Buffer;
  codeHash: Buffer;
}

/** A session as stored (its token only as a hash). */
export interface StoredSession {
  sessionUuid: string;
  identityUuid: string;
  tokenHash: Buffer;
  csrfToken: string;
  transport: Transport;
  createdAt: Date;
  primaryAuthenticatedAt: Date;
  mfaAuthenticatedAt: Date | null;
  lastSeenAt: Date;
  absoluteExpiresAt: Date;
  revokedAt: Date | null;
}

/** A pending MFA challenge (its token only as a hash). */
export interface StoredChallenge {
  challengeUuid: string;
  identityUuid: string;
  tokenHash: Buffer;
  transport: Transport;
  createdAt: Date;
  expiresAt: Date;
  consumedAt: Date | null;
}

/** Storage of identities, their roles and their second factors. */
export interface IdentityStore {
  /** Stores a new identity with its roles; false, storing nothing, when the email is taken. */
  insert(identity: Identity, passwordHash: string): Promise<boolean>;
  findByEmail(email: string): Promise<StoredIdentity | null>;
  /** With `forUpdate`, the identity's row stays locked until the transaction ends. */
  findByUuid(identityUuid: string, options?: { forUpdate?: boolean }): Promise<StoredIdentity | null>;
  /** A page in creation order, and the total count. */
  list(limit: number, offset: number): Promise<{ identities: Identity[]; total: number }>;
  setStatus(identityUuid: string, status: IdentityStatus, at: Date): Promise<void>;
  setPasswordHash(identityUuid: string, passwordHash: string, at: Date): Promise<void>;
  /** Removes a role; false when it was not held. */
  deleteRole(identityUuid: string, role: Role): Promise<boolean>;
  /**
   * Takes the transaction-scoped lock that serialises every change to who is an
   * active platform_admin (role removal, status changes, bootstrap).
   */
  lockAdminRoster(): Promise<void>;
  /** Active identities holding `role`, other than `excludingUuid`. */
  countActiveHolders(role: Role, excludingUuid: string): Promise<number>;
  /** True when any identity, whatever its status, holds `role`. */
  anyHolder(role: Role): Promise<boolean>;
  findTotpFactor(identityUuid: string): Promise<TotpFactor | null>;
  /** Stores or replaces a pending factor; false when a confirmed one exists. */
  savePendingTotp(identityUuid: string, secretCiphertext: Buffer, at: Date): Promise<boolean>;
  /**
   * Confirms the pending factor, but only while it still holds `secretCiphertext`
   * (a concurrent re-enrolment makes it fail); false when nothing was confirmed.
   */
  confirmTotp(identityUuid: string, secretCiphertext: Buffer, lastUsedStep: number | null, at: Date): Promise<boolean>;
  /** Records `step` as used, only if it is newer than the stored one; false otherwise. */
  useTotpStep(identityUuid: string, step: number): Promise<boolean>;
  /** Replaces every recovery code of the identity with these. */
  replaceRecoveryCodes(identityUuid: string, codes: StoredRecoveryCode[], at: Date): Promise<void>;
  /** The identity's unused recovery codes that have a salt. */
  listUnusedRecoveryCodes(identityUuid: string): Promise<StoredRecoveryCode[]>;
  /**
   * Marks an unused recovery code used, in one conditional statement, so two
   * concurrent uses of one code cannot both succeed; false when there is no such
   * unused code.
   */
  useRecoveryCode(identityUuid: string, codeHash: Buffer, at: Date): Promise<boolean>;
  /** Up to `limit` recovery codes, used or not, still in the unsalted form (SHA-256 of the code). */
  listUnsaltedRecoveryCodes(limit: number): Promise<{ identityUuid: string; digest: Buffer }[]>;
  /** Replaces one unsalted code by its salted form; false when it is gone or was salted meanwhile. */
  saltRecoveryCode(identityUuid: string, digest: Buffer, code: StoredRecoveryCode): Promise<boolean>;
}

/** Storage of sessions and MFA challenges. */
export interface SessionStore {
  insert(session: StoredSession): Promise<void>;
  /** The session with this token hash and its identity, whatever their state. */
  findByTokenHash(tokenHash: Buffer): Promise<{ session: StoredSession; identity: Identity } | null>;
  findByUuid(sessionUuid: string): Promise<StoredSession | null>;
  /** Sets last_seen_at to `at` only when it is older than `olderThan`. */
  touch(sessionUuid: string, at: Date, olderThan: Date): Promise<void>;
  /** Revokes one session; false when it was already revoked or does not exist. */
  revoke(sessionUuid: string, at: Date): Promise<boolean>;
  /** Revokes every unrevoked session of an identity, except `exceptSessionUuid`. */
  revokeAllOf(identityUuid: string, at: Date, exceptSessionUuid?: string): Promise<number>;
  /** Unrevoked sessions seen after `idleCutoff` whose absolute expiry is after `now`, newest first. */
  listLive(identityUuid: string, now: Date, idleCutoff: Date): Promise<StoredSession[]>;
  insertChallenge(challenge: StoredChallenge): Promise<void>;
  findChallenge(tokenHash: Buffer): Promise<StoredChallenge | null>;
  /** Marks a challenge used; false when it already was (single use under concurrency). */
  consumeChallenge(challengeUuid: string, at: Date): Promise<boolean>;
}

/**
 * How a counted attempt ended: `succeeded` is a completed sign-in (password
 * without MFA, or a right code); `verified` a right password whose second factor
 * is still to come (neither a failure nor a completed sign-in); `throttled` a
 * refused attempt, which checked nothing and counts for nothing.
 */
export type AttemptOutcome = "failed" | "succeeded" | "verified" | "throttled";

/** Failures an attempt sees before it (failed, or pending: not settled yet), itself not included. */
export interface FailureCount {
  count: number;
  /** When the most recent of them was attempted; null when there is none. */
  latestAt: Date | null;
  /**
   * When the `limit`-th most recent of them was attempted (null with fewer): once
   * it leaves the window, fewer than `limit` remain.
   */
  nthLatestAt: Date | null;
}

/** A recorded (pending) attempt and what it sees of the earlier ones. */
export interface Reservation {
  attemptId: string;
  /** For this email from this client IP since `pairSince`, after the pair's last completed sign-in. */
  pair: FailureCount;
  /** For this email from anywhere since `accountSince`, after the email's last completed sign-in. */
  account: FailureCount;
  /**
   * From this client IP since `ipSince`, whatever the email, including failures a
   * later success of their email forgave; none when the client IP is null.
   */
  ip: FailureCount;
  /** Wrong codes for this MFA challenge; 0 without a challenge. */
  challengeFailures: number;
}

/** Sign-in attempts, kept in PostgreSQL so throttling holds across replicas. */
export interface LoginAttemptStore {
  /**
   * Records a pending attempt (counted as a failure until settled), commits it,
   * and then counts the earlier failures it sees (see Reservation). Recording
   * before counting means concurrent attempts see each other and cannot all slip
   * under a limit. `limits` are the `limit` of each FailureCount.
   */
  reserve(input: {
    email: string;
    clientIp: string | null;
    challengeUuid: string | null;
    at: Date;
    pairSince: Date;
    accountSince: Date;
    ipSince: Date;
    limits: { pair: number; account: number; ip: number };
  }): Promise<Reservation>;
  /** Records the attempt's outcome. */
  settle(attemptId: string, outcome: AttemptOutcome): Promise<void>;
  /**
   * Forgives the email's failed attempts: they no longer count toward the
   * account's delays and cap nor toward the limit per (email, client IP), only
   * toward their client IP's own limit. Answers how many were forgiven.
   */
  forgive(email: string): Promise<number>;
}

/** Machine-credential storage for management operations. */
export interface MachineCredentialAdminStore extends MachineCredentialStore {
  listByMerchant(merchantUuid: string): Promise<MachineCredential[]>;
  /** Serialises credential changes of one merchant until the transaction ends. */
  lockMerchant(merchantUuid: string): Promise<void>;
  /** The merchant's active credential, locked FOR UPDATE. */
  findActiveForUpdate(merchantUuid: string): Promise<StoredMachineCredential | null>;
  /** A credential by uuid, locked FOR UPDATE. */
  findForUpdate(credentialUuid: string): Promise<StoredMachineCredential | null>;
  /** Marks a credential revoked at `at`, recording its replacement when there is one. */
  markRevoked(credentialUuid: string, at: Date, replacedByUuid: string | null): Promise<void>;
}

/** Every store, and a way to run several operations in one transaction. */
export interface Stores {
  identities: IdentityStore;
  sessions: SessionStore;
  attempts: LoginAttemptStore;
  machineCredentials: MachineCredentialAdminStore;
  /** The audit records of administrative changes, waiting for the relay. */
  outbox: AuditOutboxStore;
  /** Runs `work` in one database transaction; the stores it receives act inside it. */
  transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T>;
}

/** What every identity operation depends on. */
export interface IdentityDeps {
  stores: Stores;
  /** The current time; tests move it. */
  clock: () => Date;
  /** A new UUIDv7. */
  newId: () => string;
  /** AES-256 key sealing TOTP secrets at rest. */
  totpKey: Buffer;
  /** Receives failures of work done after answering (recording machine token use). */
  onBackgroundError: (error: unknown, credentialUuid: string) => void;
  /** Receives sign-in security events (see security-events.ts). */
  securityEvents: (event: SecurityEvent) => void;
  /** Where the current request came from, for the audit record of a change (audit-outbox.ts). */
  origin?: ChangeOrigin;
  /** The prefix length IPv6 clients are throttled by (countedClientIp); default 64. */
  ipv6Prefix?: number;
}

/** The public view of a stored identity: everything but the password hash. */
export function withoutHash(identity: StoredIdentity): Identity {
  const { passwordHash: _hash, ...rest } = identity;
  return rest;
}
