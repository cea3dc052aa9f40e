import { describe, expect, it } from "vitest";
import { validateActor } from "./audit.js";
import { ASSIGNED_COUNTRY_COUNT } from "@payin/ids/countries";
import { checkSecretReference } from "./provider.js";
import { checkCapability, checkJurisdiction, checkPage } from "./validation.js";

describe("format rules", () => {
  it("knows the 249 assigned ISO 3166-1 alpha-2 codes", () => {
    expect(ASSIGNED_COUNTRY_COUNT).toBe(249);
    for (const code of ["DE", "US", "GB", "SS", "CW"]) expect(checkJurisdiction(code)).toBe(code);
    for (const code of ["XX", "ZZ", "EU", "UK", "de", "D", "DEU", "*", ""]) expect(() => checkJurisdiction(code)).toThrow();
  });

  it("accepts capability identifiers like crypto.payin", () => {
    for (const c of ["crypto.payin", "a", "x_1.y"]) expect(checkCapability(c)).toBe(c);
    for (const c of ["", "Crypto", "1a", ".a", "a-b", "a b", `a${"b".repeat(64)}`]) expect(() => checkCapability(c)).toThrow();
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
    expect(validateActor({ kind: "identity", uuid, requestId: "" })).toEqual({ kind: "identity", uuid, requestId: null });
    expect(validateActor({ kind: "operator_cli", uuid: "", requestId: "r-1" })).toEqual({ kind: "operator_cli", uuid: null, requestId: "r-1" });
    expect(() => validateActor({ kind: "machine_credential", uuid: "", requestId: "" })).toThrow();
    expect(() => validateActor({ kind: "system", uuid, requestId: "" })).toThrow();
    expect(() => validateActor({ kind: "", uuid: "", requestId: "" })).toThrow();
  });
});
