import type { identityV1 } from "@payin/proto";

/** JSON of a bootstrapped admin, as printed and as kept in .data/bootstrap-admin.json. */
export function bootstrapView(res: identityV1.BootstrapAdminResponse) {
  const i = res.identity;
  return {
    identity: { uuid: i?.uuid, email: i?.email, status: i?.status, roles: i?.roles ?? [] },
    password: res.password,
    totp_uri: res.totpUri,
  };
}
