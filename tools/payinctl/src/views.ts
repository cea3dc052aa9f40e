/**
 * What only payinctl prints: the first admin's secrets. Every resource it prints
 * otherwise is the admin API's JSON view of it (@payin/operations' views), so an
 * operator reads the same fields whichever way they asked.
 */
import type { identityV1 } from "@payin/proto";

/** JSON of a bootstrapped admin, as printed and as kept in .data/bootstrap-admin.json. */
export function bootstrapView(res: identityV1.BootstrapAdminResponse) {
  const i = res.identity;
  return {
    identity: { uuid: i?.uuid, email: i?.email, status: i?.status, roles: i?.roles ?? [] },
    password: res.password,
    totp_uri: res.totpUri,
    recovery_codes: [...res.recoveryCodes],
  };
}

/**
 * The lines `npm start` prints about a new first admin whose credentials are kept
 * in `file`. The credentials themselves only when the output is a terminal: output
 * that is piped or redirected tends to end up in logs, and the 0600 file holds them.
 */
export function bootstrapBanner(file: string, view: ReturnType<typeof bootstrapView>, terminal: boolean): string[] {
  if (!terminal) {
    return ["", `first platform admin created; its password, TOTP secret and recovery codes are in ${file} (mode 0600, not printed: output is not a terminal)`];
  }
  return ["", `first platform admin created (shown once; also kept in ${file}):`, JSON.stringify(view)];
}
