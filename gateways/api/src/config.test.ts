import { describe, expect, it } from "vitest";
import { parseConfig } from "@payin/config";
import { configSchema } from "./config.js";

describe("TRUSTED_PROXIES", () => {
  const base = { SERVICE_CREDENTIAL: "x".repeat(64) };

  it("is read through the gateway's configuration", () => {
    const read = (value?: string) => {
      try {
        return parseConfig({ TRUSTED_PROXIES: configSchema.TRUSTED_PROXIES }, { ...base, TRUSTED_PROXIES: value }).TRUSTED_PROXIES;
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(read()).toEqual([]);
    expect(read(" 10.0.0.0/8 , 192.0.2.1,")).toEqual(["10.0.0.0/8", "192.0.2.1"]);
    expect(read("10.0.0.0/8,nonsense")).toMatch(/^configuration error: TRUSTED_PROXIES has an item "nonsense"/);
  });
});
