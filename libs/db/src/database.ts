import type { MikroORM } from "@mikro-orm/postgresql";
import { openOrm, type ServiceOrmOptions } from "./orm.js";

/**
 * One SQL statement with `$1`, `$2`, … placeholders, and the shape of the rows
 * it answers as the driver gives them: int8 and numeric as strings (exact),
 * timestamps as strings (the ORM's pool leaves them unparsed), json as parsed
 * values. `Row` exists for the compiler only.
 */
export interface Statement<Row extends object = Record<string, unknown>> {
  /**
   * Set: run as a named prepared statement, parsed and planned once per
   * connection (for the hot paths where the bench shows it matters). Unique per
   * text: a connection refuses one name with two texts. Prepared statements
   * name their columns: a prepared `returning *` breaks ("cached plan must not
   * change result type") when a migration adds a column under a running process.
   */
  readonly name?: string;
  readonly text: string;
  /** Never set: carries `Row` for the compiler. */
  readonly row?: Row;
}

/** A statement sent as text each time (its values still travel as parameters). */
export function sql<Row extends object = Record<string, unknown>>(text: string): Statement<Row> {
  return { text };
}

/** A named prepared statement (see Statement.name). */
export function prepared<Row extends object = Record<string, unknown>>(name: string, text: string): Statement<Row> & { readonly name: string } {
  return { name, text };
}

/** The rows a statement answers. */
export type RowOf<S> = S extends Statement<infer Row> ? Row : never;

/** A row of a left join that may have found nothing: every column may be null. */
export type Nullable<Row> = { [K in keyof Row]: Row[K] | null };

/**
 * A filter keeping the rows of a left join that found something, told by `key`
 * (a column the joined table never has null), and typing them as found: for
 * "page and total in one round trip" statements, whose one row has a null page.
 */
export function found<Row>(key: keyof Row) {
  return <R extends Nullable<Row>>(row: R): row is R & Row => row[key] !== null;
}

/** A nullable timestamp column (text from the pool) as a Date or null. */
export function dateOrNull(value: string | Date | null): Date | null {
  return value === null ? null : new Date(value);
}

/** Runs statements: on a pooled connection each (Database), or on the connection of one transaction (Transaction). */
export interface Queryable {
  /** Runs `statement` with `values` (bound as parameters: arrays as PostgreSQL arrays, Dates as instants) and answers its rows. */
  query<Row extends object>(statement: Statement<Row>, values?: readonly unknown[]): Promise<Row[]>;
}

export type IsolationLevel = "read committed" | "repeatable read" | "serializable";

export interface TransactionOptions {
  /** Default: the server's (read committed). */
  isolation?: IsolationLevel;
  readOnly?: boolean;
}

/** The statements of one transaction: all on one connection, between its BEGIN and COMMIT. */
export type Transaction = Queryable;

/** How a service reaches its schema: statements, one transaction helper, and the ORM (migrations, shutdown). */
export interface Database extends Queryable {
  /**
   * Runs `work` in one transaction on one connection: BEGIN, `work`, COMMIT;
   * ROLLBACK when `work` (or the COMMIT) throws, and the error goes on to the
   * caller. Not retried: no service runs serializable transactions.
   */
  transaction<T>(work: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** The ORM the connections come from. */
  readonly orm: MikroORM;
  /** Closes the pool. */
  close(): Promise<void>;
}

/** What the driver's connection answers (pg's Client.query). */
interface DriverConnection {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: object[]; command: string }>;
  /** Closes the connection; the pool then discards it (knex marks an ended connection disposed). */
  end(): Promise<void>;
}

interface PoolClient {
  acquireConnection(): Promise<DriverConnection>;
  releaseConnection(connection: DriverConnection): Promise<unknown>;
}

/**
 * Lends `work` a driver connection of the ORM's own pool (so its size and its
 * `search_path` apply). The one place that goes past MikroORM's public API, and
 * why: `Connection.execute` (and `em.execute`) inline the values into the SQL
 * text (an array becomes a comma list, so `$1::uuid[]` and `unnest` cannot take
 * one) and never send a named prepared statement, which the create path's
 * bench needs; the transaction it hands out (`connection.transactional`) runs
 * only such inlined text. The pool is knex's, under MikroORM's connection:
 * `acquireConnection` / `releaseConnection` of its client are what knex itself
 * runs every query with. Checked by libs/db/test/database.test.ts; re-check on
 * a MikroORM or knex upgrade.
 */
async function withConnection<T>(orm: MikroORM, work: (connection: DriverConnection) => Promise<T>): Promise<T> {
  const pool = orm.em.getConnection().getKnex().client as unknown as PoolClient;
  const connection = await pool.acquireConnection();
  try {
    return await work(connection);
  } finally {
    await pool.releaseConnection(connection);
  }
}

function run<Row extends object>(connection: DriverConnection, statement: Statement<Row>, values: readonly unknown[]): Promise<Row[]> {
  const config = statement.name === undefined ? { text: statement.text, values: [...values] } : { name: statement.name, text: statement.text, values: [...values] };
  return connection.query(config).then((result) => result.rows as Row[]);
}

const BEGIN: Record<IsolationLevel, string> = {
  "read committed": "begin isolation level read committed",
  "repeatable read": "begin isolation level repeatable read",
  serializable: "begin isolation level serializable",
};

function beginText(options: TransactionOptions): string {
  const begin = options.isolation ? BEGIN[options.isolation] : "begin";
  return options.readOnly ? `${begin} read only` : begin;
}

/** COMMIT rolled the transaction back: a statement in it had failed, and the work went on after its error. */
export class TransactionRolledBack extends Error {
  constructor() {
    super("the transaction was rolled back at commit: a statement in it had failed");
    this.name = "TransactionRolledBack";
  }
}

/**
 * Rolls back after the work failed. A connection that cannot roll back may still
 * be inside the transaction: it is closed, so the pool discards it rather than
 * lend it out mid-transaction.
 */
async function rollback(connection: DriverConnection): Promise<void> {
  try {
    await connection.query({ text: "rollback", values: [] });
  } catch {
    await connection.end().catch(() => {});
  }
}

/** The Database over the connections of `orm`. */
export function database(orm: MikroORM): Database {
  return {
    orm,
    query: (statement, values = []) => withConnection(orm, (connection) => run(connection, statement, values)),
    transaction: (work, options = {}) =>
      withConnection(orm, async (connection) => {
        await connection.query({ text: beginText(options), values: [] });
        let open = true;
        const tx: Transaction = {
          query: (statement, values = []) => {
            if (!open) return Promise.reject(new Error("the transaction has ended"));
            return run(connection, statement, values);
          },
        };
        let result: Awaited<ReturnType<typeof work>>;
        try {
          result = await work(tx);
        } catch (error) {
          open = false;
          await rollback(connection);
          throw error;
        }
        open = false;
        // PostgreSQL answers COMMIT of a transaction in which a statement failed
        // (an error the work caught and went on from) with ROLLBACK: nothing was kept.
        const committed = await connection.query({ text: "commit", values: [] });
        if (committed.command !== "COMMIT") throw new TransactionRolledBack();
        return result;
      }),
    close: () => orm.close(),
  };
}

/** Opens the service's ORM (no migrations run) and answers its Database. */
export async function openDatabase(options: ServiceOrmOptions): Promise<Database> {
  return database(await openOrm(options));
}

/** What the domain reads the time from: passed in, so tests can set it. */
export interface Clock {
  now(): Date;
}

/** The system's clock. */
export const systemClock: Clock = { now: () => new Date() };
