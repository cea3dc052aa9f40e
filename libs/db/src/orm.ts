import { MikroORM, type EntitySchema, type Options } from "@mikro-orm/postgresql";
import { Migrator } from "@mikro-orm/migrations";
import type { Migration } from "@mikro-orm/migrations";

export { MikroORM };
export type { EntityManager } from "@mikro-orm/postgresql";

export interface ServiceOrmOptions {
  /** PostgreSQL connection URL. */
  url: string;
  /** The service's own schema; nothing else is touched. */
  schema: string;
  entities: EntitySchema<any, any>[];
  /** Every migration of the service, oldest first. */
  migrations: { name: string; class: new (...args: any[]) => Migration }[];
  /** Largest number of pooled connections. */
  poolMax?: number;
  debug?: boolean;
  /** Sets `application_name` on the pool's connections, to tell them apart in pg_stat_activity. */
  applicationName?: string;
}

function ormOptions(options: ServiceOrmOptions): Options {
  return {
    clientUrl: options.url,
    schema: options.schema,
    entities: options.entities,
    extensions: [Migrator],
    discovery: { warnWhenNoEntities: false },
    pool: {
      min: 1,
      max: options.poolMax ?? 10,
      // Unqualified names in raw SQL and migrations resolve to the service's schema.
      afterCreate: (conn: { query: (sql: string, cb: (err?: Error) => void) => void }, done: (err: Error | undefined, conn: unknown) => void) => {
        conn.query(`set search_path to "${options.schema}"`, (err) => done(err, conn));
      },
    },
    ...(options.applicationName === undefined ? {} : { driverOptions: { connection: { application_name: options.applicationName } } }),
    debug: options.debug ?? false,
    logger: () => {},
    allowGlobalContext: false,
    forceUtcTimezone: true,
    migrations: {
      tableName: "mikro_orm_migrations",
      migrationsList: options.migrations,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
  };
}

/** Opens the ORM of one service (no migrations are run). */
export async function openOrm(options: ServiceOrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormOptions(options));
}

/**
 * Applies the service's pending migrations inside its schema, creating the schema
 * first when it does not exist. Safe to run from several processes: a
 * transaction-scoped advisory lock keyed on the schema name serialises them.
 * Works under a role that owns its schema but may not create schemas (a
 * deployment's per-service role): an existing schema is not created again.
 */
export async function migrate(options: ServiceOrmOptions): Promise<string[]> {
  const orm = await MikroORM.init(ormOptions({ ...options, poolMax: 2 }));
  try {
    const conn = orm.em.getConnection();
    // PostgreSQL checks the right to create schemas even when the schema exists.
    const existing = await conn.execute("select 1 from pg_namespace where nspname = ?", [options.schema]);
    if (existing.length === 0) await conn.execute(`create schema if not exists "${options.schema}"`);
    const knex = conn.getKnex();
    const trx = await knex.transaction();
    try {
      await trx.raw("select pg_advisory_xact_lock(hashtext(?))", [`migrate:${options.schema}`]);
      const applied = await orm.getMigrator().up();
      await trx.commit();
      return applied.map((m) => m.name);
    } catch (error) {
      await trx.rollback();
      throw error;
    }
  } finally {
    await orm.close(true);
  }
}
