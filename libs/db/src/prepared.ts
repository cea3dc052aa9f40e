import type { MikroORM } from "@mikro-orm/postgresql";

type Row = Record<string, unknown>;

/** A statement run as a named prepared statement: parsed and planned once per connection. */
export interface PreparedStatement {
  /** Unique per text: a connection refuses one name with two texts. */
  readonly name: string;
  /** SQL with `$1`, `$2`, … placeholders. */
  readonly text: string;
}

/** Runs hot-path statements on the ORM's own connection pool. */
export interface SqlClient {
  /** Runs `statement` with `values` on a pooled connection and answers its rows. */
  query<R extends Row = Row>(statement: PreparedStatement, values: readonly unknown[]): Promise<R[]>;
}

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Row[] }>;
}

interface KnexClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
}

/**
 * A SqlClient over the connections of `orm` (the same pool, the same
 * `search_path`). Unlike `em.execute`, which sends each statement as text with
 * its values inlined, this sends named prepared statements: PostgreSQL parses
 * and plans each text once per connection and the values travel as parameters.
 * For the few statements on a request's hot path; everything else stays on the
 * EntityManager.
 */
export function sqlClient(orm: MikroORM): SqlClient {
  const client = orm.em.getConnection().getKnex().client as unknown as KnexClient;
  return {
    async query<R extends Row = Row>(statement: PreparedStatement, values: readonly unknown[]): Promise<R[]> {
      const connection = await client.acquireConnection();
      try {
        const result = await connection.query({ name: statement.name, text: statement.text, values: [...values] });
        return result.rows as R[];
      } finally {
        await client.releaseConnection(connection);
      }
    },
  };
}
