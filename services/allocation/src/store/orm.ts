import type { ServiceOrmOptions } from "@payin/db";
import { entities } from "./entities.js";
import { migrations } from "./migrations/index.js";

/** ORM options of the allocation schema. */
export function ormOptions(url: string, poolMax?: number): ServiceOrmOptions {
  return { url, schema: "allocation", entities, migrations, poolMax };
}
