import pg from "pg";

/** The advisory-lock namespace of the observer's leases (the first key of the two-key form). */
const LEASE_NAMESPACE = 0x70617969; // "payi"

/** A stable 32-bit key per lease name (rail or "relay"). */
function leaseKey(name: string): number {
  let hash = 0;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

/**
 * A lease held as a PostgreSQL session advisory lock on a connection of its
 * own: held while that session lives, released when it ends (the process
 * died, the connection broke), when a standby observer takes it. Every write
 * also checks the cursor it moves, so a holder that lost its lease unnoticed
 * changes nothing.
 */
export class Lease {
  private client: pg.Client | undefined;
  private lost = false;

  constructor(
    private readonly url: string,
    readonly name: string,
  ) {}

  /** True when this process holds the lease (taking it if it is free). */
  async hold(): Promise<boolean> {
    if (this.client && !this.lost) {
      try {
        await this.client.query("select 1");
        return true;
      } catch {
        this.drop();
      }
    }
    if (this.lost) this.drop();
    const client = new pg.Client({ connectionString: this.url, application_name: `allocation observer: lease ${this.name}`, keepAlive: true });
    client.on("error", () => {
      this.lost = true;
    });
    try {
      await client.connect();
      const { rows } = await client.query("select pg_try_advisory_lock($1, $2) as held", [LEASE_NAMESPACE, leaseKey(this.name)]);
      if ((rows[0] as { held: boolean }).held) {
        this.client = client;
        this.lost = false;
        return true;
      }
    } catch {
      // the database is unreachable: not held
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

  private drop(): void {
    const client = this.client;
    this.client = undefined;
    this.lost = false;
    void client?.end().catch(() => {});
  }
}
