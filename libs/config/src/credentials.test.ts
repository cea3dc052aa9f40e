import { describe, expect, it } from "vitest";
import {
  callerDigestsFor,
  callerDigests,
  callerOfCredential,
  credentialDigest,
  deriveCredential,
  parseCallerDigests,
  serviceCredential,
} from "./index.js";

const MASTER = "credentials-test-master-0123456789abcdef";

describe("service credentials", () => {
  it("derives one credential per caller from the master secret, named by the caller", () => {
    const api = deriveCredential(MASTER, "api");
    expect(api).toMatch(/^api\.[A-Za-z0-9_-]{43}$/);
    expect(deriveCredential(MASTER, "api")).toBe(api);
    expect(deriveCredential(MASTER, "payins").slice("payins.".length)).not.toBe(api.slice("api.".length));
    expect(deriveCredential(`${MASTER}x`, "api")).not.toBe(api);
    expect(callerOfCredential(api)).toBe("api");
    expect(callerOfCredential(MASTER)).toBeUndefined();
    expect(callerOfCredential("api.short")).toBeUndefined();
    expect(() => deriveCredential(MASTER, "Not A Name")).toThrow();
  });

  it("gives services digests only, which parse back by caller", () => {
    const text = callerDigestsFor(MASTER, ["api", "payins"]);
    expect(text).not.toContain(deriveCredential(MASTER, "api").slice("api.".length));
    const digests = parseCallerDigests(text);
    expect([...digests.keys()]).toEqual(["api", "payins"]);
    expect(digests.get("api")!.toString("hex")).toBe(credentialDigest(deriveCredential(MASTER, "api")));
    expect(parseCallerDigests(` api : ${"a".repeat(64)} , payins:${"B".repeat(64)}`).size).toBe(2);
  });

  it("refuses malformed digests and credentials with one line that shows no value", () => {
    const secretLooking = "api:not-a-digest-but-secret-looking-0123456789";
    expect(() => callerDigests()({ D: secretLooking }, "D")).toThrow("configuration error: D must be a comma-separated list of <caller>:<SHA-256 hex digest>");
    expect(() => callerDigests()({ D: `api:${"a".repeat(64)},api:${"b".repeat(64)}` }, "D")).toThrow("configuration error: D names caller api twice");
    expect(() => callerDigests()({}, "D")).toThrow("configuration error: D is required but not set");

    const read = serviceCredential("api");
    expect(read({ C: deriveCredential(MASTER, "api") }, "C")).toBe(deriveCredential(MASTER, "api"));
    for (const wrong of [deriveCredential(MASTER, "payins"), MASTER, "api.short"]) {
      let message = "";
      try {
        read({ C: wrong }, "C");
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toBe("configuration error: C must be the api caller's credential, api.<secret of at least 32 characters>");
    }
  });
});
