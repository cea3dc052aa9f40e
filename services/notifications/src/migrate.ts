import { loadConfig, url } from "@payin/config";
import { migrate } from "@payin/db";
import { installJobQueue } from "./store/job-queue.js";
import { ormOptions } from "./store/orm.js";

const config = loadConfig({ DATABASE_URL: url(undefined, ["postgres:", "postgresql:"]) });
const applied = await migrate(ormOptions(config.DATABASE_URL));
// The delivery queue's own schema (graphile-worker's migrations).
await installJobQueue(config.DATABASE_URL);
process.stdout.write(`${JSON.stringify({ service: "notifications", applied })}\n`);
