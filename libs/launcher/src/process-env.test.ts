import { describe, expect, it } from "vitest";
import { deriveCredential, parseCallerDigests } from "@payin/config";
import { INTERNAL_CALLERS, processEnv } from "./index.js";

const MASTER = "launcher-test-master-secret-0123456789abcdef";

describe("processEnv", () => {
  it("hands a process its own credential and the callers' digests, never the master secret", () => {
    const env = processEnv("payins", { SERVICE_TOKEN: MASTER, LOG_LEVEL: "info" }, ["test"]);
    expect(env.SERVICE_TOKEN).toBeUndefined();
    expect(env.SERVICE_CREDENTIAL).toBe(deriveCredential(MASTER, "payins"));
    expect(env.LOG_LEVEL).toBe("info");
    expect([...parseCallerDigests(env.SERVICE_CALLER_DIGESTS!).keys()]).toEqual([...INTERNAL_CALLERS, "test"]);
    expect(JSON.stringify(env)).not.toContain(MASTER);
    for (const caller of INTERNAL_CALLERS.filter((c) => c !== "payins")) {
      expect(JSON.stringify(env)).not.toContain(deriveCredential(MASTER, caller).slice(caller.length + 1));
    }
  });

  it("hands the key sealing webhook secrets to the notifications service and the notifier alone", () => {
    const key = processEnv("notifications", { SERVICE_TOKEN: MASTER }).WEBHOOK_SECRET_KEY;
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(processEnv("notifier", { SERVICE_TOKEN: MASTER }).WEBHOOK_SECRET_KEY).toBe(key);
    for (const name of ["identity", "merchants", "payins", "allocation", "api", "checkout"]) {
      expect(processEnv(name, { SERVICE_TOKEN: MASTER }).WEBHOOK_SECRET_KEY, name).toBeUndefined();
    }
    expect(processEnv("notifications", { SERVICE_TOKEN: `${MASTER}-other` }).WEBHOOK_SECRET_KEY).not.toBe(key);
  });

  it("passes an environment without the master secret as it is", () => {
    const env = { SERVICE_CREDENTIAL: "set-by-the-deployment", SERVICE_CALLER_DIGESTS: "also" };
    expect(processEnv("api", env)).toEqual(env);
  });
});
