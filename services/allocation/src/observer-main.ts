/**
 * The chain observer: its own process (placed and scaled apart from address
 * allocation), one loop per configured rail under a per-rail lease, and the
 * relay of what it observed to payins (observer-service.ts). GET /health on
 * OBSERVER_PORT tells how each rail and the relay stand.
 */
import { loadConfig } from "@payin/config";
import { runUntilStopped } from "@payin/rpc";
import { observerConfigSchema } from "./config.js";
import { startObserver } from "./observer-service.js";

runUntilStopped(await startObserver(loadConfig(observerConfigSchema)));
