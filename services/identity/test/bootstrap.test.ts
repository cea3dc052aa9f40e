import { describe, expect, it } from "vitest";
import type { identityV1 } from "@payin/proto";
import { Code, reasonOf, ConnectError } from "@payin/rpc";
import { expectFailure } from "@payin/testing";
import { RECOVERY_CODE_COUNT, recoveryCodeDigest, recoveryCodeHash, recoveryCodePepper } from "../src/domain/recovery-codes.js";
import { open } from "@payin/sealing";
import { randomEmail, randomIp, secretOfUri, signIn, useHarness } from "./support.js";

const h = useHarness();
/** The winning bootstrap's answer and email. */
let first: { response: identityV1.BootstrapAdminResponse; email: string } | undefined;

describe("BootstrapAdmin", () => {
  it("refuses a malformed email before anything exists", async () => {
    await expectFailure(h.client.bootstrapAdmin({ email: "not an email" }), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it("creates exactly one platform_admin when ten bootstraps race", async () => {
    const emails = Array.from({ length: 10 }, () => randomEmail("first"));
    const results = await Promise.allSettled(emails.map((email) => h.client.bootstrapAdmin({ email })));
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(won).toHaveLength(1);
    for (const r of lost) {
      expect(r.reason).toBeInstanceOf(ConnectError);
      expect((r.reason as ConnectError).code).toBe(Code.FailedPrecondition);
      expect(reasonOf(r.reason as ConnectError)).toBe("ADMIN_EXISTS");
    }
    const rows = await h.sql(`select count(*)::int as n from identity.identity_roles where role = 'platform_admin'`);
    expect(rows[0]!.n).toBe(1);

    const response = won[0]!.value;
    const email = emails[results.indexOf(won[0]!)]!;
    h.secrets.add(response.password).add(response.totpUri);
    for (const code of response.recoveryCodes) h.secrets.add(code);
    first = { response, email };
    expect(response.identity).toMatchObject({ email: email.toLowerCase(), status: "active", roles: ["platform_admin"], mfaEnrolled: true });
    expect(response.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(response.totpUri).toMatch(
      new RegExp(`^otpauth://totp/Payin:${email.toLowerCase().replace(/\./g, "\\.")}\\?secret=[A-Z2-7]{32}&issuer=Payin&algorithm=SHA1&digits=6&period=30$`),
    );

    // The admin signs in with the generated password and the enrolled TOTP factor.
    const secret = secretOfUri(response.totpUri);
    const token = await signIn(h, { email, password: response.password, secret });
    const { session } = await h.client.getSession({ caller: { sessionToken: token } });
    expect(session?.mfaSatisfied).toBe(true);
    expect(session?.identity?.roles).toEqual(["platform_admin"]);

    // The secret is stored sealed: neither its bytes nor its base32 are in the row.
    const [row] = await h.sql(`select secret_ciphertext, confirmed_at from identity.totp_factors where identity_uuid = ?`, [response.identity!.uuid]);
    const sealed = row!.secret_ciphertext as Buffer;
    expect(sealed.includes(secret)).toBe(false);
    expect(sealed.toString("latin1")).not.toContain(new URL(response.totpUri).searchParams.get("secret"));
    expect(open(h.totpKey, sealed, response.identity!.uuid).equals(secret)).toBe(true);
    expect(row!.confirmed_at).not.toBeNull();
    // The password is stored as an argon2id hash only.
    const [identity] = await h.sql(`select password_hash from identity.identities where identity_uuid = ?`, [response.identity!.uuid]);
    expect(identity!.password_hash).toMatch(/^\$argon2id\$/);
  });

  it("issues ten recovery codes with the factor, stored salted and keyed, each signing the admin in once", async () => {
    const { response, email } = first!;
    expect(response.recoveryCodes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(response.recoveryCodes).size).toBe(RECOVERY_CODE_COUNT);
    for (const code of response.recoveryCodes) expect(code).toMatch(/^[A-Z2-7]{5}-[A-Z2-7]{5}$/);

    const rows = await h.sql(`select code_hash, salt from identity.recovery_codes where identity_uuid = ? and used_at is null`, [response.identity!.uuid]);
    expect(rows).toHaveLength(RECOVERY_CODE_COUNT);
    const pepper = recoveryCodePepper(h.totpKey);
    for (const code of response.recoveryCodes) {
      const digest = recoveryCodeDigest(code)!;
      const matching = rows.filter((r) => (r.code_hash as Buffer).equals(recoveryCodeHash(pepper, r.salt as Buffer, digest)));
      expect(matching).toHaveLength(1);
      expect(rows.some((r) => (r.code_hash as Buffer).equals(digest))).toBe(false);
    }

    const login = async () => {
      const res = await h.client.login({ email, password: response.password, transport: "bearer", clientIp: randomIp() });
      h.secrets.add(res.result.value as string);
      return res.result.value as string;
    };
    const code = response.recoveryCodes[0]!;
    const done = await h.client.completeMfa({ mfaChallengeToken: await login(), code, clientIp: randomIp() });
    h.secrets.add(done.authenticated!.sessionToken);
    expect(done.authenticated?.session?.mfaSatisfied).toBe(true);
    await expectFailure(h.client.completeMfa({ mfaChallengeToken: await login(), code, clientIp: randomIp() }), Code.Unauthenticated, "AUTH_INVALID_CREDENTIALS");
  });

  it("refuses once a platform_admin exists", async () => {
    await expectFailure(h.client.bootstrapAdmin({ email: randomEmail("second") }), Code.FailedPrecondition, "ADMIN_EXISTS");
  });
});
