import { errorCause } from "@payin/logging";
import pg from "pg";

/** The advisory-lock namespace of the observer's leases (the first key of the two-key form). */
const LEASE_NAMESPACE = 0x70617969; // "payi"

/** A stable 32-bit key per lease name (rail or "relay"). */
function leaseKey(name: string): number {
  let hash = 0;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

/** Why the last attempt to take or keep a lease failed, for /health and the log. */
export interface LeaseError {
  /** The error's code (SQLSTATE or Node's) when it has one. */
  code?: string;
  /** Its first line, without values or credentials (errorCause of @payin/logging). */
  reason: string;
  /** When it failed (ISO 8601). */
  at: string;
}

export interface LeaseOptions {
  /** Told of each failure to take or keep the lease (the observer logs the first of a run of them). */
  onError?: (error: unknown) => void;
  now?: () => Date;
}

/**
 * A lease held as a PostgreSQL session advisory lock on a connection of its
 * own: held while that session lives, released when it ends (the process
 * died, the connection broke), when a standby observer takes it. Every write
 * also checks the cursor it moves, so a holder that lost its lease unnoticed
 * changes nothing. A lease held by another process is not an error; a failure
 * to reach the database or to take the lock is, and is kept (`error`) until
 * the lease is held or found held elsewhere again.
 */
export class Lease {
  private client: pg.Client | undefined;
  private lost = false;
  private failure: LeaseError | null = null;

  constructor(
    private readonly url: string,
    readonly name: string,
    private readonly options: LeaseOptions = {},
  ) {}

  /** Why the last attempt to take or keep the lease failed, or null when it did not. */
  get error(): LeaseError | null {
    return this.failure;
  }

  /** True when this process holds the lease (taking it if it is free). */
  async hold(): Promise<boolean> {
    if (this.client && !this.lost) {
      try {
        await this.client.query("select 1");
        this.failure = null;
        return true;
      } catch (error) {
        this.failed(error);
        this.drop();
      }
    }
    if (this.lost) this.drop();
    const client = new pg.Client({ connectionString: this.url, application_name: `allocation observer: lease ${this.name}`, keepAlive: true });
    client.on("error", (error) => {
      this.lost = true;
      this.failed(error);
    });
    try {
      await client.connect();
      const { rows } = await client.query("select pg_try_advisory_lock($1, $2) as held", [LEASE_NAMESPACE, leaseKey(this.name)]);
      this.failure = null;
      if ((rows[0] as { held: boolean }).held) {
        this.client = client;
        this.lost = false;
        return true;
      }
    } catch (error) {
      // The database is unreachable or refuses the lock: not held, and said so.
      this.failed(error);
    }
    await client.end().catch(() => {});
    return false;
  }

  /** Gives the lease up. */
  async release(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private failed(error: unknown): void {
    const cause = errorCause(error);
    this.failure = { ...(cause.code === undefined ? {} : { code: cause.code }), reason: cause.message, at: (this.options.now?.() ?? new Date()).toISOString() };
    this.options.onError?.(error);
  }

  private drop(): void {
    const client = this.client;
    this.client = undefined;
    this.lost = false;
    void client?.end().catch(() => {});
  }
}
