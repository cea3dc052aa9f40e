import { describe, expect, it } from "vitest";
import { validateActor } from "./audit.js";
import { ASSIGNED_COUNTRY_COUNT } from "@payin/ids/countries";
import { checkSecretReference } from "./provider.js";
import { DomainError } from "@payin/errors";
import { newMerchant } from "./merchant.js";
import { checkCapability, checkJurisdiction, checkPage } from "./validation.js";

/** The message of the INVALID_ARGUMENT `run` throws. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).reason).toBe("INVALID_ARGUMENT");
    return (error as Error).message;
  }
  throw new Error("expected a refusal");
}

describe("format rules", () => {
  it("knows the 249 assigned ISO 3166-1 alpha-2 codes", () => {
    expect(ASSIGNED_COUNTRY_COUNT).toBe(249);
    for (const code of ["DE", "US", "GB", "SS", "CW"]) expect(checkJurisdiction(code)).toBe(code);
    for (const code of ["XX", "ZZ", "EU", "UK", "de", "D", "DEU", "*", ""]) expect(() => checkJurisdiction(code)).toThrow();
  });

  it("accepts only the known capabilities, and names them when refusing another", () => {
    expect(checkCapability("crypto.payin")).toBe("crypto.payin");
    for (const c of ["crypto.payout", "test.cap", "Crypto.payin", "crypto.payin ", "", "a", `a${"b".repeat(64)}`]) {
      expect(refusal(() => checkCapability(c)), c).toBe("capability must be one of the known capabilities: crypto.payin");
    }
  });

  it("refuses bidirectional control characters in merchant names, saying which field", () => {
    const now = new Date();
    const make = (displayName: string, legalName?: string) => newMerchant({ uuid: "01a2008d-7400-7000-8000-000000000009", displayName, legalName, now });
    expect(refusal(() => make("Acme\u202Egnp.exe"))).toBe(
      "display_name must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069)",
    );
    expect(refusal(() => make("Acme", "Acme \u2067Ltd\u2069"))).toMatch(/^legal_name must not contain bidirectional control characters/);
    expect(make("شركة أكمي", "Acme GmbH").displayName).toBe("شركة أكمي");
  });

  it("accepts secret references of the form scheme:path", () => {
    for (const r of ["vault:kv/payin/acme", "env:EVM_RPC_KEY", "aws-sm+v2.x:arn:aws:secretsmanager:eu-west-1:1:secret:x"]) {
      expect(checkSecretReference(r)).toBe(r);
    }
    for (const r of ["", "vault", "vault:", ":path", "1x:path", "vault:a b", "Vault:x", `v:${"x".repeat(254)}`]) {
      expect(() => checkSecretReference(r)).toThrow();
    }
    expect(checkSecretReference(`v:${"x".repeat(253)}`)).toHaveLength(255);
  });

  it("bounds pages", () => {
    expect(checkPage(1, 0)).toEqual({ limit: 1, offset: 0 });
    expect(checkPage(100, 5)).toEqual({ limit: 100, offset: 5 });
    for (const [limit, offset] of [[0, 0], [101, 0], [10, -1], [1.5, 0]] as const) expect(() => checkPage(limit, offset)).toThrow();
  });

  it("validates actors by kind", () => {
    const uuid = "01a2008d-7400-7000-8000-000000000001";
    expect(validateActor({ kind: "identity", uuid, requestId: "", osUser: null })).toEqual({ kind: "identity", uuid, requestId: null, osUser: null });
    expect(validateActor({ kind: "operator_cli", uuid: "", requestId: "r-1", osUser: "ops" })).toEqual({ kind: "operator_cli", uuid: null, requestId: "r-1", osUser: "ops" });
    expect(() => validateActor({ kind: "machine_credential", uuid: "", requestId: "", osUser: null })).toThrow();
    expect(() => validateActor({ kind: "system", uuid, requestId: "", osUser: null })).toThrow();
    expect(() => validateActor({ kind: "", uuid: "", requestId: "", osUser: null })).toThrow();
  });
});
