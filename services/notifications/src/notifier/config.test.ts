import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "@payin/config";
import { DEFAULT_WEBHOOK_TIMEOUT_MS, notifierConfigSchema } from "./config.js";

const key = randomBytes(32);
const env = { DATABASE_URL: "postgres://u@127.0.0.1:5432/db", WEBHOOK_SECRET_KEY: key.toString("base64url") };

describe("the notifier's settings", () => {
  it("default to the contract: 15 s to answer, https only, the system's resolver, port 50057", () => {
    const config = parseConfig(notifierConfigSchema, env);
    expect(DEFAULT_WEBHOOK_TIMEOUT_MS).toBe(15_000);
    expect(config.WEBHOOK_TIMEOUT_MS).toBe(15_000);
    expect(config.WEBHOOK_ALLOW_INSECURE_URLS).toBe("false");
    expect(config.WEBHOOK_DNS_SERVERS).toEqual([]);
    expect(config.NOTIFIER_PORT).toBe(50057);
    expect(config.NOTIFIER_ENDPOINT_CONCURRENCY).toBe(16);
    expect(config.NOTIFIER_STALE_AFTER_MS).toBe(15_000);
    expect(config.WEBHOOK_SECRET_KEY.equals(key)).toBe(true);
  });

  it("refuse a sealing key that is not base64url of 32 bytes, without echoing it", () => {
    for (const bad of ["short", randomBytes(31).toString("base64url") + "AA", randomBytes(32).toString("base64")]) {
      let error: unknown;
      try {
        parseConfig(notifierConfigSchema, { ...env, WEBHOOK_SECRET_KEY: bad });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).not.toContain(bad);
    }
  });

  it("take DNS servers as addresses with an optional port", () => {
    expect(parseConfig(notifierConfigSchema, { ...env, WEBHOOK_DNS_SERVERS: "127.0.0.1:5353, ::1" }).WEBHOOK_DNS_SERVERS).toEqual(["127.0.0.1:5353", "::1"]);
    expect(() => parseConfig(notifierConfigSchema, { ...env, WEBHOOK_DNS_SERVERS: "dns.example" })).toThrow(ConfigError);
  });
});
