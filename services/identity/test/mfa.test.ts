import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { identityV1 } from "@payin/proto";
import { Code, ConnectError, reasonOf, retryAfterOf } from "@payin/rpc";
import { totpCode } from "@payin/otp";
import { base32nopad } from "@scure/base";
import { expectFailure } from "@payin/testing";
import { RECOVERY_CODE_COUNT, recoveryCodeHash, recoveryCodePepper, saltUnsaltedRecoveryCodes } from "../src/domain/recovery-codes.js";
import { IdentityRepository } from "../src/store/identity-repository.js";
import { caller, createPerson, enrolTotp, freshCode, type Person, randomIp, secretOfUri, signIn, useAdmin, useHarness } from "./support.js";

const { PrincipalKind } = identityV1;
const h = useHarness();
const admin = useAdmin(h);

/** A fresh person with a given role, signed in without MFA. */
async function person(roles = ["merchant_admin"]): Promise<Person & { uuid: string; token: string }> {
  const p = await createPerson(h, await signIn(h, admin), roles);
  return { ...p, token: await signIn(h, p) };
}

/** A fresh person with TOTP enrolled. */
async function enrolled(): Promise<Person & { uuid: string; recoveryCodes: string[] }> {
  const p = await person();
  const { secret, recoveryCodes } = await enrolTotp(h, p.token, p.password);
  return { ...p, secret, recoveryCodes };
}

/** Logs in with the password and answers the MFA challenge token. */
async function challenge(p: Person, transport = "bearer", clientIp = randomIp()): Promise<string> {
  const login = await h.client.login({ email: p.email, password: p.password, transport, clientIp });
  expect(login.result.case).toBe("mfaChallengeToken");
  const token = login.result.value as string;
  h.secrets.add(token);
  return token;
}

describe("EnrollTotp and ConfirmTotp", () => {
  it("returns an otpauth URI, replaces a pending secret on re-enrolment, and confirms with a code", async () => {
    const p = await person();
    const first = await h.client.enrollTotp({ ...caller(p.token), currentPassword: p.password });
    h.secrets.add(first.otpauthUri);
    const escaped = p.email.toLowerCase().replace(/[.+]/g, "\\$&");
    expect(first.otpauthUri).toMatch(new RegExp(`^otpauth://totp/Payin:${escaped}\\?secret=[A-Z2-7]{32}&issuer=Payin&algorithm=SHA1&digits=6&period=30$`));
    const second = await h.client.enrollTotp({ ...caller(p.token), currentPassword: p.password });
    h.secrets.add(second.otpauthUri);
    expect(second.otpauthUri).not.toBe(first.otpauthUri);

    // A code of the replaced secret no longer confirms; one of the new secret does.
    await expectFailure(
      h.client.confirmTotp({ ...caller(p.token), code: freshCode(h, secretOfUri(first.otpauthUri)) }),
      Code.InvalidArgument,
      "TOTP_CODE_INVALID",
    );
    await expectFailure(h.client.confirmTotp({ ...caller(p.token), code: "abc" }), Code.InvalidArgument, "TOTP_CODE_INVALID");
    const secret = secretOfUri(second.otpauthUri);
    const { recoveryCodes } = await h.client.confirmTotp({ ...caller(p.token), code: totpCode(secret, h.now()) });
    for (const code of recoveryCodes) h.secrets.add(code);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[A-Z2-7]{5}-[A-Z2-7]{5}$/);

    // Stored: the secret sealed, the recovery codes as salted keyed hashes only.
    const [factor] = await h.sql(`select secret_ciphertext from identity.totp_factors where identity_uuid = ?`, [p.uuid]);
    const sealed = factor!.secret_ciphertext as Buffer;
    expect(sealed.includes(secret)).toBe(false);
    expect(sealed.toString("latin1")).not.toContain(base32nopad.encode(secret));
    const codes = await h.sql(`select code_hash from identity.recovery_codes where identity_uuid = ?`, [p.uuid]);
    expect(codes).toHaveLength(10);
    const stored = codes.map((c) => (c.code_hash as Buffer).toString("latin1")).join("");
    for (const code of recoveryCodes) expect(stored).not.toContain(code.replace("-", ""));

    await expectFailure(h.client.enrollTotp({ ...caller(p.token), currentPassword: p.password }), Code.FailedPrecondition, "TOTP_ALREADY_ENROLLED");
    await expectFailure(h.client.confirmTotp({ ...caller(p.token), code: freshCode(h, secret) }), Code.FailedPrecondition, "TOTP_ALREADY_ENROLLED");
    const { session } = await h.client.getSession(caller(p.token));
    expect(session?.identity?.mfaEnrolled).toBe(true);
  });

  it("refuses confirmation without a pending enrolment", async () => {
    const p = await person();
    await expectFailure(h.client.confirmTotp({ ...caller(p.token), code: "123456" }), Code.FailedPrecondition, "TOTP_NOT_PENDING");
  });

  it("needs a session", async () => {
    await expectFailure(h.client.enrollTotp({}), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
    await expectFailure(h.client.confirmTotp({ code: "123456" }), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
  });
});

describe("Login with MFA and CompleteMfa", () => {
  it("answers a challenge instead of a session, and completes it with a TOTP code", async () => {
    const p = await enrolled();
    const token = await challenge(p, "cookie");
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The challenge token is not a session anywhere.
    await expectFailure(h.client.getSession(caller(token)), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
    await expectFailure(h.client.authenticate({ token }), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
    await expectFailure(h.client.listSessions(caller(token)), Code.Unauthenticated, "AUTH_INVALID_TOKEN");

    const before = h.now().getTime();
    const code = freshCode(h, p.secret!);
    const { authenticated } = await h.client.completeMfa({ mfaChallengeToken: token, code, clientIp: randomIp() });
    h.secrets.add(authenticated!.sessionToken);
    const session = authenticated!.session!;
    expect(session.mfaSatisfied).toBe(true);
    expect(session.transport).toBe("cookie");
    const mfaAt = timestampDate(session.mfaAuthenticatedAt!).getTime();
    expect(mfaAt).toBeGreaterThan(before);
    expect(timestampDate(session.primaryAuthenticatedAt!).getTime()).toBeLessThan(mfaAt);
    const { principal } = await h.client.authenticate({ token: authenticated!.sessionToken });
    expect(principal).toMatchObject({ kind: PrincipalKind.HUMAN, identityUuid: p.uuid, mfaSatisfied: true, transport: "cookie" });
    expect(timestampDate(principal!.mfaAuthenticatedAt!).getTime()).toBe(mfaAt);

    // The challenge is single use, and the session is still refused for it.
    await expectFailure(
      h.client.completeMfa({ mfaChallengeToken: token, code: freshCode(h, p.secret!), clientIp: randomIp() }),
      Code.Unauthenticated,
      "AUTH_INVALID_TOKEN",
    );
    // A used TOTP step is refused again, even with a new challenge.
    const again = await challenge(p);
    await expectFailure(h.client.completeMfa({ mfaChallengeToken: again, code, clientIp: randomIp() }), Code.Unauthenticated, "AUTH_INVALID_CREDENTIALS");
    // The challenge survives a wrong code until it expires.
    h.advance(30_000);
    const next = await h.client.completeMfa({ mfaChallengeToken: again, code: totpCode(p.secret!, h.now()), clientIp: randomIp() });
    h.secrets.add(next.authenticated!.sessionToken);
  });

  it("forgives earlier password failures only once the second factor completes", async () => {
    // All from one client IP: the email's limit per address is what forgiveness lifts.
    const clientIp = randomIp();
    const wrongFor = (p: Person) => () =>
      expectFailure(
        h.client.login({ email: p.email, password: "wrong password!!", transport: "bearer", clientIp }),
        Code.Unauthenticated,
        "AUTH_INVALID_CREDENTIALS",
      );
    const rightRefused = (p: Person) =>
      expectFailure(h.client.login({ email: p.email, password: p.password, transport: "bearer", clientIp }), Code.ResourceExhausted, "RATE_LIMITED");

    // The right password alone answers a challenge and forgives nothing.
    const p = await enrolled();
    for (let i = 0; i < 4; i++) await wrongFor(p)();
    await challenge(p, "bearer", clientIp);
    await wrongFor(p)(); // the 5th failure
    await rightRefused(p);

    // Completing the challenge forgives them.
    const q = await enrolled();
    for (let i = 0; i < 4; i++) await wrongFor(q)();
    const done = await h.client.completeMfa({ mfaChallengeToken: await challenge(q, "bearer", clientIp), code: freshCode(h, q.secret!), clientIp });
    h.secrets.add(done.authenticated!.sessionToken);
    for (let i = 0; i < 5; i++) await wrongFor(q)();
    await rightRefused(q);
  });

  it("accepts each recovery code once, in any case and with or without the hyphen", async () => {
    const p = await enrolled();
    const [first, second] = p.recoveryCodes;
    const done = await h.client.completeMfa({ mfaChallengeToken: await challenge(p), code: first!, clientIp: randomIp() });
    h.secrets.add(done.authenticated!.sessionToken);
    expect(done.authenticated?.session?.mfaSatisfied).toBe(true);
    await expectFailure(
      h.client.completeMfa({ mfaChallengeToken: await challenge(p), code: first!, clientIp: randomIp() }),
      Code.Unauthenticated,
      "AUTH_INVALID_CREDENTIALS",
    );
    const relaxed = second!.replace("-", "").toLowerCase();
    const ok = await h.client.completeMfa({ mfaChallengeToken: await challenge(p), code: relaxed, clientIp: randomIp() });
    h.secrets.add(ok.authenticated!.sessionToken);
    const rows = await h.sql(`select count(*)::int as n from identity.recovery_codes where identity_uuid = ? and used_at is not null`, [p.uuid]);
    expect(rows[0]!.n).toBe(2);
  });

  it("refuses an expired challenge", async () => {
    const p = await enrolled();
    const token = await challenge(p);
    h.advance(5 * 60_000 + 1);
    await expectFailure(
      h.client.completeMfa({ mfaChallengeToken: token, code: totpCode(p.secret!, h.now()), clientIp: randomIp() }),
      Code.Unauthenticated,
      "AUTH_INVALID_TOKEN",
    );
  });

  it("refuses unknown and malformed challenge tokens, and session tokens used as challenges", async () => {
    const p = await person();
    for (const token of ["", "x", "A".repeat(43), p.token]) {
      await expectFailure(h.client.completeMfa({ mfaChallengeToken: token, code: "123456", clientIp: randomIp() }), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
    }
  });

  it("refuses a challenge after 5 wrong codes, and counts them toward the email's throttling from that client IP", async () => {
    const p = await enrolled();
    const token = await challenge(p);
    // Each code from another address: the limit is the challenge's own.
    for (let i = 0; i < 5; i++) {
      await expectFailure(h.client.completeMfa({ mfaChallengeToken: token, code: "000000", clientIp: randomIp() }), Code.Unauthenticated, "AUTH_INVALID_CREDENTIALS");
    }
    const spent = await expectFailure(
      h.client.completeMfa({ mfaChallengeToken: token, code: freshCode(h, p.secret!), clientIp: randomIp() }),
      Code.ResourceExhausted,
      "RATE_LIMITED",
    );
    // Nothing else holds: signing in again, at once, is what it takes.
    expect(retryAfterOf(spent)).toBe(1);
    const again = await challenge(p);
    const done = await h.client.completeMfa({ mfaChallengeToken: again, code: freshCode(h, p.secret!), clientIp: randomIp() });
    h.secrets.add(done.authenticated!.sessionToken);

    // Wrong codes from one address count for the email from that address.
    const clientIp = randomIp();
    const fromOne = await challenge(p, "bearer", clientIp);
    for (let i = 0; i < 5; i++) {
      await expectFailure(h.client.completeMfa({ mfaChallengeToken: fromOne, code: "000000", clientIp }), Code.Unauthenticated, "AUTH_INVALID_CREDENTIALS");
    }
    await expectFailure(
      h.client.login({ email: p.email, password: p.password, transport: "bearer", clientIp }),
      Code.ResourceExhausted,
      "RATE_LIMITED",
    );
    // The owner, elsewhere, still gets a challenge.
    await challenge(p);
  });

  it("lets exactly one of concurrent completions with the same challenge and code through", async () => {
    const p = await enrolled();
    const token = await challenge(p);
    const code = freshCode(h, p.secret!);
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => h.client.completeMfa({ mfaChallengeToken: token, code, clientIp: randomIp() })),
    );
    const won = results.filter((r): r is PromiseFulfilledResult<identityV1.CompleteMfaResponse> => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    h.secrets.add(won[0]!.value.authenticated!.sessionToken);
    for (const r of results) {
      if (r.status === "rejected") expect(["AUTH_INVALID_CREDENTIALS", "AUTH_INVALID_TOKEN"]).toContain(reasonOf(r.reason as ConnectError));
    }
    const rows = await h.sql(`select count(*)::int as n from identity.sessions where identity_uuid = ? and mfa_authenticated_at is not null`, [p.uuid]);
    expect(rows[0]!.n).toBe(1);
  });

  it("refuses the challenge once the identity is disabled", async () => {
    const p = await enrolled();
    const token = await challenge(p);
    await h.client.setIdentityStatus({ ...caller(await signIn(h, admin)), identityUuid: p.uuid, status: "disabled" });
    await expectFailure(
      h.client.completeMfa({ mfaChallengeToken: token, code: freshCode(h, p.secret!), clientIp: randomIp() }),
      Code.Unauthenticated,
      "AUTH_INVALID_TOKEN",
    );
  });
});

describe("Recovery code storage", () => {
  const sha256 = (code: string) => createHash("sha256").update(code.replace("-", "")).digest();

  it("stores a 16-byte salt and a keyed hash per code, never SHA-256 of the code, with salts unique across identities", async () => {
    const [p, q] = [await enrolled(), await enrolled()];
    const rows = await h.sql(`select identity_uuid, code_hash, salt from identity.recovery_codes where identity_uuid in (?, ?)`, [p.uuid, q.uuid]);
    expect(rows).toHaveLength(2 * RECOVERY_CODE_COUNT);
    const digests = [...p.recoveryCodes, ...q.recoveryCodes].map(sha256);
    for (const row of rows) {
      expect((row.salt as Buffer).length).toBe(16);
      expect(digests.some((d) => d.equals(row.code_hash as Buffer))).toBe(false);
    }
    expect(new Set(rows.map((r) => (r.salt as Buffer).toString("hex"))).size).toBe(rows.length);
    expect(new Set(rows.map((r) => (r.code_hash as Buffer).toString("hex"))).size).toBe(rows.length);
    // Each code has exactly one row of its own identity: HMAC(pepper, salt ‖ SHA-256(code)).
    const pepper = recoveryCodePepper(h.totpKey);
    for (const [person, codes] of [[p, p.recoveryCodes], [q, q.recoveryCodes]] as const) {
      for (const code of codes) {
        const own = rows.filter((r) => r.identity_uuid === person.uuid && (r.code_hash as Buffer).equals(recoveryCodeHash(pepper, r.salt as Buffer, sha256(code))));
        expect(own).toHaveLength(1);
      }
    }
  });

  it("salts codes stored as SHA-256 alone, which then keep working (a used one stays used)", async () => {
    const p = await enrolled();
    const [used, unused, other] = p.recoveryCodes;
    // Rewrite the rows into their unsalted form: SHA-256 of the normalized code, no salt.
    await h.sql(`delete from identity.recovery_codes where identity_uuid = ?`, [p.uuid]);
    for (const code of p.recoveryCodes) {
      await h.sql(`insert into identity.recovery_codes (identity_uuid, code_hash, created_at, used_at) values (?, ?, now(), ?)`, [
        p.uuid,
        sha256(code),
        code === used ? new Date() : null,
      ]);
    }
    // An unsalted row is never accepted as it is.
    await expectFailure(
      h.client.completeMfa({ mfaChallengeToken: await challenge(p), code: other!, clientIp: randomIp() }),
      Code.Unauthenticated,
      "AUTH_INVALID_CREDENTIALS",
    );

    const store = () => new IdentityRepository(h.db);
    expect(await saltUnsaltedRecoveryCodes(store(), h.totpKey, 3)).toBe(RECOVERY_CODE_COUNT);
    expect(await saltUnsaltedRecoveryCodes(store(), h.totpKey)).toBe(0);
    const rows = await h.sql(`select code_hash, salt, used_at from identity.recovery_codes where identity_uuid = ?`, [p.uuid]);
    expect(rows).toHaveLength(RECOVERY_CODE_COUNT);
    for (const row of rows) {
      expect((row.salt as Buffer).length).toBe(16);
      expect(p.recoveryCodes.some((code) => sha256(code).equals(row.code_hash as Buffer))).toBe(false);
    }
    expect(rows.filter((r) => r.used_at !== null)).toHaveLength(1);

    const done = await h.client.completeMfa({ mfaChallengeToken: await challenge(p), code: unused!, clientIp: randomIp() });
    h.secrets.add(done.authenticated!.sessionToken);
    expect(done.authenticated?.session?.mfaSatisfied).toBe(true);
    for (const code of [used!, unused!]) {
      await expectFailure(
        h.client.completeMfa({ mfaChallengeToken: await challenge(p), code, clientIp: randomIp() }),
        Code.Unauthenticated,
        "AUTH_INVALID_CREDENTIALS",
      );
    }
  });

  it("lets exactly one of concurrent uses of the same recovery code through", async () => {
    const p = await enrolled();
    const code = p.recoveryCodes[0]!;
    const tokens = await Promise.all(Array.from({ length: 4 }, () => challenge(p)));
    const results = await Promise.allSettled(tokens.map((t) => h.client.completeMfa({ mfaChallengeToken: t, code, clientIp: randomIp() })));
    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    h.secrets.add(won[0]!.value.authenticated!.sessionToken);
    for (const r of results) if (r.status === "rejected") expect(reasonOf(r.reason as ConnectError)).toBe("AUTH_INVALID_CREDENTIALS");
  });
});
