import { describe, expect, it } from "vitest";
import { localServiceHost, serviceUrl } from "./index.js";

describe("serviceUrl", () => {
  const payins = serviceUrl("PAYINS_PORT");

  it("reaches a service on loopback by default, and on HOST when the services listen only there", () => {
    expect(payins({}, "PAYINS_URL")).toBe("http://127.0.0.1:50053");
    expect(payins({ HOST: "10.1.2.3", PAYINS_PORT: "6000" }, "PAYINS_URL")).toBe("http://10.1.2.3:6000");
    expect(payins({ HOST: "::1" }, "PAYINS_URL")).toBe("http://[::1]:50053");
  });

  it("uses loopback for a wildcard HOST, and PAYINS_URL over everything", () => {
    for (const host of ["0.0.0.0", "::", "[::]", ""]) expect(localServiceHost({ HOST: host })).toBe("127.0.0.1");
    expect(payins({ HOST: "10.1.2.3", PAYINS_URL: "http://payins.internal:9" }, "PAYINS_URL")).toBe("http://payins.internal:9");
  });
});
