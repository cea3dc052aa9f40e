import { dateOrNull, sql, type Queryable } from "@payin/db";
import type { Transport } from "../domain/principal.js";
import { withoutHash, type Identity, type SessionStore, type StoredChallenge, type StoredSession } from "../domain/stores.js";
import { IDENTITY_COLUMNS, identityFromRow, type IdentityRow } from "./identity-repository.js";

const SESSION_COLUMNS = `s.session_uuid, s.identity_uuid as session_identity_uuid, s.token_hash, s.csrf_token, s.transport,
  s.created_at as session_created_at, s.primary_authenticated_at, s.mfa_authenticated_at, s.last_seen_at,
  s.absolute_expires_at, s.revoked_at`;

/** A row of SESSION_COLUMNS (bytea as a Buffer, timestamps as text). */
interface SessionRow {
  session_uuid: string;
  session_identity_uuid: string;
  token_hash: Buffer;
  csrf_token: string;
  transport: Transport;
  session_created_at: string;
  primary_authenticated_at: string;
  mfa_authenticated_at: string | null;
  last_seen_at: string;
  absolute_expires_at: string;
  revoked_at: string | null;
}

function sessionFromRow(row: SessionRow): StoredSession {
  return {
    sessionUuid: row.session_uuid,
    identityUuid: row.session_identity_uuid,
    tokenHash: row.token_hash,
    csrfToken: row.csrf_token,
    transport: row.transport,
    createdAt: new Date(row.session_created_at),
    primaryAuthenticatedAt: new Date(row.primary_authenticated_at),
    mfaAuthenticatedAt: dateOrNull(row.mfa_authenticated_at),
    lastSeenAt: new Date(row.last_seen_at),
    absoluteExpiresAt: new Date(row.absolute_expires_at),
    revokedAt: dateOrNull(row.revoked_at),
  };
}

interface ChallengeRow {
  challenge_uuid: string;
  identity_uuid: string;
  token_hash: Buffer;
  transport: Transport;
  created_at: string;
  expires_at: string;
  consumed_at: string | null;
}

function challengeFromRow(row: ChallengeRow): StoredChallenge {
  return {
    challengeUuid: row.challenge_uuid,
    identityUuid: row.identity_uuid,
    tokenHash: row.token_hash,
    transport: row.transport,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    consumedAt: dateOrNull(row.consumed_at),
  };
}

/** SessionStore on PostgreSQL. Sessions are never cached: every lookup reads the row. */
export class SessionRepository implements SessionStore {
  constructor(private readonly db: Queryable) {}

  async insert(s: StoredSession): Promise<void> {
    await this.db.query(sql(`insert into sessions (session_uuid, identity_uuid, token_hash, csrf_token, transport, created_at,
         primary_authenticated_at, mfa_authenticated_at, last_seen_at, absolute_expires_at, revoked_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`),
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
    const rows = await this.db.query(sql<SessionRow & IdentityRow>(`select ${SESSION_COLUMNS}, ${IDENTITY_COLUMNS}
         from sessions s join identities i on i.identity_uuid = s.identity_uuid
        where s.token_hash = $1`),
      [tokenHash],
    );
    if (!rows[0]) return null;
    return { session: sessionFromRow(rows[0]), identity: withoutHash(identityFromRow(rows[0])) };
  }

  async findByUuid(sessionUuid: string): Promise<StoredSession | null> {
    const rows = await this.db.query(sql<SessionRow>(`select ${SESSION_COLUMNS} from sessions s where s.session_uuid = $1`), [sessionUuid]);
    return rows[0] ? sessionFromRow(rows[0]) : null;
  }

  async touch(sessionUuid: string, at: Date, olderThan: Date): Promise<void> {
    await this.db.query(sql(`update sessions set last_seen_at = $1 where session_uuid = $2 and last_seen_at < $3 and revoked_at is null`), [
      at,
      sessionUuid,
      olderThan,
    ]);
  }

  async revoke(sessionUuid: string, at: Date): Promise<boolean> {
    const rows = await this.db.query(sql(`update sessions set revoked_at = $1 where session_uuid = $2 and revoked_at is null returning session_uuid`),
      [at, sessionUuid],
    );
    return rows.length > 0;
  }

  async revokeAllOf(identityUuid: string, at: Date, exceptSessionUuid?: string): Promise<number> {
    const rows = await this.db.query(sql(`update sessions set revoked_at = $1
        where identity_uuid = $2 and revoked_at is null and session_uuid is distinct from $3
        returning session_uuid`),
      [at, identityUuid, exceptSessionUuid ?? null],
    );
    return rows.length;
  }

  async listLive(identityUuid: string, now: Date, idleCutoff: Date): Promise<StoredSession[]> {
    const rows = await this.db.query(sql<SessionRow>(`select ${SESSION_COLUMNS} from sessions s
        where s.identity_uuid = $1 and s.revoked_at is null and s.last_seen_at > $2 and s.absolute_expires_at > $3
        order by s.created_at desc, s.session_uuid desc`),
      [identityUuid, idleCutoff, now],
    );
    return rows.map(sessionFromRow);
  }

  async insertChallenge(c: StoredChallenge): Promise<void> {
    await this.db.query(sql(`insert into mfa_challenges (challenge_uuid, identity_uuid, token_hash, transport, created_at, expires_at, consumed_at)
       values ($1, $2, $3, $4, $5, $6, $7)`),
      [c.challengeUuid, c.identityUuid, c.tokenHash, c.transport, c.createdAt, c.expiresAt, c.consumedAt],
    );
  }

  async findChallenge(tokenHash: Buffer): Promise<StoredChallenge | null> {
    const rows = await this.db.query(sql<ChallengeRow>(`select challenge_uuid, identity_uuid, token_hash, transport, created_at, expires_at, consumed_at
         from mfa_challenges where token_hash = $1`),
      [tokenHash],
    );
    return rows[0] ? challengeFromRow(rows[0]) : null;
  }

  async consumeChallenge(challengeUuid: string, at: Date): Promise<boolean> {
    const rows = await this.db.query(sql(`update mfa_challenges set consumed_at = $1 where challenge_uuid = $2 and consumed_at is null returning challenge_uuid`),
      [at, challengeUuid],
    );
    return rows.length > 0;
  }
}
