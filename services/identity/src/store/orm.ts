import type { ServiceOrmOptions } from "@payin/db";
import { entities } from "./entities.js";
import { migrations } from "./migrations/index.js";

/** ORM options of the identity schema. */
export function ormOptions(url: string, poolMax?: number): ServiceOrmOptions {
  return { url, schema: "identity", entities, migrations, poolMax };
}
