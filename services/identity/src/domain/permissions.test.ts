import { describe, expect, it } from "vitest";
import { permissionsOf } from "./permissions.js";

describe("permissionsOf", () => {
  it("gives a machine credential exactly the two pay-in permissions", () => {
    expect(permissionsOf(["machine_credential"])).toEqual(["merchant.payin.create", "merchant.payin.read"]);
  });

  it("grants nothing without a grant, and never duplicates", () => {
    expect(permissionsOf([])).toEqual([]);
    expect(permissionsOf(["machine_credential", "machine_credential"])).toHaveLength(2);
  });
});
