import pg from "pg";

/**
 * Samples pg_stat_activity of one database every `intervalMs` while started, and
 * reports what its sessions were doing on average: how many were running, waiting
 * on a lock, waiting on WAL, or sitting idle inside a transaction (waiting for
 * their client, i.e. for the service that opened the transaction).
 */
export class PgWaitSampler {
  private timer: NodeJS.Timeout | undefined;
  private samples = 0;
  private readonly counts = new Map<string, number>();
  private inFlight = false;

  private constructor(private readonly client: pg.Client, private readonly database: string) {}

  static async connect(url: string): Promise<PgWaitSampler> {
    const client = new pg.Client({ connectionString: url });
    client.on("error", () => {});
    await client.connect();
    return new PgWaitSampler(client, new URL(url).pathname.slice(1));
  }

  start(intervalMs = 100): void {
    this.stop();
    this.samples = 0;
    this.counts.clear();
    this.timer = setInterval(() => void this.sample(), intervalMs);
  }

  private async sample(): Promise<void> {
    if (this.inFlight) return;
    this.inFlight = true;
    try {
      const { rows } = await this.client.query(
        `select state, coalesce(wait_event_type || ':' || wait_event, 'running') as wait,
                left(regexp_replace(query, '\\s+', ' ', 'g'), 28) as query, count(*)::int as n
           from pg_stat_activity
          where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend' and state <> 'idle'
          group by 1, 2, 3`,
        [this.database],
      );
      this.samples++;
      for (const row of rows as { state: string; wait: string; query: string; n: number }[]) {
        // Which statement a session waits in (or last ran, when idle in a
        // transaction) tells whose transaction it is: payins' or allocation's.
        const query = `"${row.query.trim()}…"`;
        const where = row.state !== "active" ? ` after ${query}` : row.wait.startsWith("Lock:") ? ` in ${query}` : "";
        const key = `${row.state === "active" ? row.wait : row.state}${where}`;
        this.counts.set(key, (this.counts.get(key) ?? 0) + row.n);
      }
    } catch {
      // a missed sample changes nothing
    } finally {
      this.inFlight = false;
    }
  }

  /** Stops sampling; returns the average number of sessions per activity, largest first. */
  stop(): Record<string, number> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const averages: Record<string, number> = {};
    if (this.samples === 0) return averages;
    for (const [key, total] of [...this.counts].sort((a, b) => b[1] - a[1])) {
      const average = total / this.samples;
      if (average >= 0.05) averages[key] = Math.round(average * 10) / 10;
    }
    return averages;
  }

  async close(): Promise<void> {
    this.stop();
    await this.client.end().catch(() => {});
  }
}
