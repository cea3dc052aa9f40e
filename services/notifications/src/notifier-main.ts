/**
 * The webhook notifier: its own process (replicable; each delivery job is
 * taken by one notifier), delivering the notifications service's deliveries
 * from graphile-worker's queue. GET /health on NOTIFIER_PORT tells how far
 * behind delivery is.
 */
import { loadConfig } from "@payin/config";
import { runUntilStopped } from "@payin/rpc";
import { notifierConfigSchema } from "./notifier/config.js";
import { startNotifier } from "./notifier/service.js";

runUntilStopped(await startNotifier(loadConfig(notifierConfigSchema)));
