import { describe, expect, it } from "vitest";
import { expectSecurityHeaders, merchantPerson, PageClient, readyMerchant, useCheckoutPlatform } from "./support.js";

const e2e = useCheckoutPlatform();

describe("checkout gateway", () => {
  it("answers its health and unknown pages with the security headers", async () => {
    const client = new PageClient(e2e.checkoutUrl);
    const health = await client.get("/health");
    expect(health.status).toBe(200);
    expect(health.json.status).toBe("ok");
    expectSecurityHeaders(health);
    const missing = await client.get("/nowhere");
    expect(missing.status).toBe(404);
    expect(missing.text).toContain("Page not found");
    const merchant = await readyMerchant(e2e);
    const person = await merchantPerson(e2e, [merchant.uuid], { mfa: true });
    expect(person.totpSecret).toMatch(/^[A-Z2-7]+=*$/);
  });
});
