import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { identityV1 } from "@payin/proto";
import { bootstrapBanner, bootstrapView } from "./views.js";

const response = create(identityV1.BootstrapAdminResponseSchema, {
  identity: { uuid: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", email: "admin@example.com", status: "active", roles: ["platform_admin"] },
  password: "Gq3_secret-password-xyz9",
  totpUri: "otpauth://totp/Payin:admin@example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Payin",
  recoveryCodes: ["ABCDE-FGH23", "KLMNO-PQR45"],
});

describe("bootstrap views", () => {
  it("keeps the identity, password, TOTP URI and recovery codes, in that order", () => {
    const view = bootstrapView(response);
    expect(Object.keys(view)).toEqual(["identity", "password", "totp_uri", "recovery_codes"]);
    expect(view.recovery_codes).toEqual(["ABCDE-FGH23", "KLMNO-PQR45"]);
  });

  it("names only the file when the output is not a terminal", () => {
    const text = bootstrapBanner("/data/bootstrap-admin.json", bootstrapView(response), false).join("\n");
    expect(text).toContain("/data/bootstrap-admin.json");
    for (const secret of [response.password, "JBSWY3DPEHPK3PXP", ...response.recoveryCodes]) expect(text).not.toContain(secret);
  });

  it("shows the credentials once on a terminal", () => {
    const lines = bootstrapBanner("/data/bootstrap-admin.json", bootstrapView(response), true);
    expect(lines[1]).toContain("/data/bootstrap-admin.json");
    expect(JSON.parse(lines[2]!)).toEqual(bootstrapView(response));
  });
});
