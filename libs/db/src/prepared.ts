import type { MikroORM } from "@mikro-orm/postgresql";
import { database, type Statement } from "./database.js";

/** A named prepared statement (see Statement.name). */
export type PreparedStatement<Row extends object = Record<string, unknown>> = Statement<Row> & { readonly name: string };

/** Runs named prepared statements on the ORM's pool (the Database's `query`, for stores not yet on typed statements). */
export interface SqlClient {
  query<R extends object = Record<string, unknown>>(statement: PreparedStatement, values: readonly unknown[]): Promise<R[]>;
}

/** The prepared statements of `orm`'s Database. */
export function sqlClient(orm: MikroORM): SqlClient {
  const db = database(orm);
  return { query: <R extends object>(statement: PreparedStatement, values: readonly unknown[]) => db.query(statement as Statement<R>, values) };
}
