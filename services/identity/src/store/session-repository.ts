import type { EntityManager } from "@payin/db";
import type { Transport } from "../domain/principal.js";
import { withoutHash, type Identity, type SessionStore, type StoredChallenge, type StoredSession } from "../domain/stores.js";
import { IDENTITY_COLUMNS, identityFromRow } from "./identity-repository.js";
import { date, requiredDate } from "./rows.js";

const SESSION_COLUMNS = `s.session_uuid, s.identity_uuid as session_identity_uuid, s.token_hash, s.csrf_token, s.transport,
  s.created_at as session_created_at, s.primary_authenticated_at, s.mfa_authenticated_at, s.last_seen_at,
  s.absolute_expires_at, s.revoked_at`;

function sessionFromRow(row: Record<string, unknown>): StoredSession {
  return {
    sessionUuid: row.session_uuid as string,
    identityUuid: row.session_identity_uuid as string,
    tokenHash: row.token_hash as Buffer,
    csrfToken: row.csrf_token as string,
    transport: row.transport as Transport,
    createdAt: requiredDate(row.session_created_at),
    primaryAuthenticatedAt: requiredDate(row.primary_authenticated_at),
    mfaAuthenticatedAt: date(row.mfa_authenticated_at),
    lastSeenAt: requiredDate(row.last_seen_at),
    absoluteExpiresAt: requiredDate(row.absolute_expires_at),
    revokedAt: date(row.revoked_at),
  };
}

function challengeFromRow(row: Record<string, unknown>): StoredChallenge {
  return {
    challengeUuid: row.challenge_uuid as string,
    identityUuid: row.identity_uuid as string,
    tokenHash: row.token_hash as Buffer,
    transport: row.transport as Transport,
    createdAt: requiredDate(row.created_at),
    expiresAt: requiredDate(row.expires_at),
    consumedAt: date(row.consumed_at),
  };
}

/** SessionStore on PostgreSQL. Sessions are never cached: every lookup reads the row. */
export class SessionRepository implements SessionStore {
  constructor(private readonly em: EntityManager) {}

  async insert(s: StoredSession): Promise<void> {
    await this.em.execute(
      `insert into sessions (session_uuid, identity_uuid, token_hash, csrf_token, transport, created_at,
         primary_authenticated_at, mfa_authenticated_at, last_seen_at, absolute_expires_at, revoked_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        s.sessionUuid,
        s.identityUuid,
        s.tokenHash,
        s.csrfToken,
        s.transport,
        s.createdAt,
        s.primaryAuthenticatedAt,
        s.mfaAuthenticatedAt,
        s.lastSeenAt,
        s.absoluteExpiresAt,
        s.revokedAt,
      ],
    );
  }

  async findByTokenHash(tokenHash: Buffer): Promise<{ session: StoredSession; identity: Identity } | null> {
    const rows = await this.em.execute(
      `select ${SESSION_COLUMNS}, ${IDENTITY_COLUMNS}
         from sessions s join identities i on i.identity_uuid = s.identity_uuid
        where s.token_hash = ?`,
      [tokenHash],
    );
    if (!rows[0]) return null;
    return { session: sessionFromRow(rows[0]), identity: withoutHash(identityFromRow(rows[0])) };
  }

  async findByUuid(sessionUuid: string): Promise<StoredSession | null> {
    const rows = await this.em.execute(`select ${SESSION_COLUMNS} from sessions s where s.session_uuid = ?`, [sessionUuid]);
    return rows[0] ? sessionFromRow(rows[0]) : null;
  }

  async touch(sessionUuid: string, at: Date, olderThan: Date): Promise<void> {
    await this.em.execute(`update sessions set last_seen_at = ? where session_uuid = ? and last_seen_at < ? and revoked_at is null`, [
      at,
      sessionUuid,
      olderThan,
    ]);
  }

  async revoke(sessionUuid: string, at: Date): Promise<boolean> {
    const rows = await this.em.execute(
      `update sessions set revoked_at = ? where session_uuid = ? and revoked_at is null returning session_uuid`,
      [at, sessionUuid],
    );
    return rows.length > 0;
  }

  async revokeAllOf(identityUuid: string, at: Date, exceptSessionUuid?: string): Promise<number> {
    const rows = await this.em.execute(
      `update sessions set revoked_at = ?
        where identity_uuid = ? and revoked_at is null and session_uuid is distinct from ?
        returning session_uuid`,
      [at, identityUuid, exceptSessionUuid ?? null],
    );
    return rows.length;
  }

  async listLive(identityUuid: string, now: Date, idleCutoff: Date): Promise<StoredSession[]> {
    const rows = await this.em.execute(
      `select ${SESSION_COLUMNS} from sessions s
        where s.identity_uuid = ? and s.revoked_at is null and s.last_seen_at > ? and s.absolute_expires_at > ?
        order by s.created_at desc, s.session_uuid desc`,
      [identityUuid, idleCutoff, now],
    );
    return rows.map(sessionFromRow);
  }

  async insertChallenge(c: StoredChallenge): Promise<void> {
    await this.em.execute(
      `insert into mfa_challenges (challenge_uuid, identity_uuid, token_hash, transport, created_at, expires_at, consumed_at)
       values (?, ?, ?, ?, ?, ?, ?)`,
      [c.challengeUuid, c.identityUuid, c.tokenHash, c.transport, c.createdAt, c.expiresAt, c.consumedAt],
    );
  }

  async findChallenge(tokenHash: Buffer): Promise<StoredChallenge | null> {
    const rows = await this.em.execute(
      `select challenge_uuid, identity_uuid, token_hash, transport, created_at, expires_at, consumed_at
         from mfa_challenges where token_hash = ?`,
      [tokenHash],
    );
    return rows[0] ? challengeFromRow(rows[0]) : null;
  }

  async consumeChallenge(challengeUuid: string, at: Date): Promise<boolean> {
    const rows = await this.em.execute(
      `update mfa_challenges set consumed_at = ? where challenge_uuid = ? and consumed_at is null returning challenge_uuid`,
      [at, challengeUuid],
    );
    return rows.length > 0;
  }
}
