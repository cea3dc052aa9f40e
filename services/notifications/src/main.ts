import { loadConfig } from "@payin/config";
import { runUntilStopped } from "@payin/rpc";
import { configSchema } from "./config.js";
import { startService } from "./service.js";

runUntilStopped(await startService(loadConfig(configSchema)));
