import { loadConfig, url } from "@payin/config";
import { migrate } from "@payin/db";
import { ormOptions } from "./store/orm.js";

const config = loadConfig({ DATABASE_URL: url(undefined, ["postgres:", "postgresql:"]) });
const applied = await migrate(ormOptions(config.DATABASE_URL));
process.stdout.write(`${JSON.stringify({ service: "allocation", applied })}\n`);
