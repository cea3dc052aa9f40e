import type { ServiceOrmOptions } from "@payin/db";
import { migrations } from "./migrations/index.js";

/**
 * ORM options of the notifications schema. The repositories speak SQL and map
 * rows to domain types themselves, so the ORM knows no entities.
 */
export function ormOptions(url: string, poolMax?: number): ServiceOrmOptions {
  return { url, schema: "notifications", entities: [], migrations, poolMax };
}
