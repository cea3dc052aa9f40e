import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import "./provided-context.js";
import { withDatabase } from "@payin/db";

/**
 * Creates an empty database for the calling test file on the run's PostgreSQL
 * server and returns its URL. Services' migrations make their schemas in it.
 */
export async function createTestDatabase(prefix = "t"): Promise<string> {
  const server = inject("pgServerUrl");
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  return withDatabase(server, name);
}
