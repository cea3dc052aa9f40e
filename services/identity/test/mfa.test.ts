import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { identityV1 } from "@payin/proto";
import { Code, ConnectError, reasonOf } from "@payin/rpc";
import { base32Encode } from "../src/domain/base32.js";
import { totpCode } from "../src/domain/totp.js";
import {
  bootstrap,
  createPerson,
  enrolTotp,
  expectFailure,
  expectNoSecretsLogged,
  freshCode,
  randomIp,
  secretOfUri,
  signIn,
  startHarness,
  type Harness,
  type Person,
} from "./support.js";

const { PrincipalKind } = identityV1;
let h: Harness;
let admin: Person;

beforeAll(async () => {
  h = await startHarness();
  admin = await bootstrap(h);
});

afterAll(async () => {
  expectNoSecretsLogged(h);
  await h?.close();
});

const caller = (sessionToken: string) => ({ caller: { sessionToken } });

/** A fresh person with a given role, signed in without MFA. */
async function person(roles = ["merchant_admin"]): Promise<Person & { uuid: string; token: string }> {
  const p = await createPerson(h, await signIn(h, admin), roles);
  return { ...p, token: await signIn(h, p) };
}

/** A fresh person with TOTP enrolled. */
async function enrolled(): Promise<Person & { uuid: string; recoveryCodes: string[] }> {
  const p = await person();
  const { secret, recoveryCodes } = await enrolTotp(h, p.token);
  return { ...p, secret, recoveryCodes };
}

/** Logs in with the password and answers the MFA challenge token. */
async function challenge(p: Person, transport = "bearer"): Promise<string> {
  const login = await h.client.login({ email: p.email, password: p.password, transport, clientIp: randomIp() });
  expect(login.result.case).toBe("mfaChallengeToken");
  const token = login.result.value as string;
  h.secrets.add(token);
  return token;
}

describe("EnrollTotp and ConfirmTotp", () => {
  it("returns an otpauth URI, replaces a pending secret on re-enrolment, and confirms with a code", async () => {
    const p = await person();
    const first = await h.client.enrollTotp(caller(p.token));
    h.secrets.add(first.otpauthUri);
    const escaped = p.email.toLowerCase().replace(/[.+]/g, "\\$&");
    expect(first.otpauthUri).toMatch(new RegExp(`^otpauth://totp/Payin:${escaped}\\?secret=[A-Z2-7]{32}&issuer=Payin&algorithm=SHA1&digits=6&period=30$`));
    const second = await h.client.enrollTotp(caller(p.token));
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

    // Stored: the secret sealed, the recovery codes as SHA-256 only.
    const [factor] = await h.sql(`select secret_ciphertext from identity.totp_factors where identity_uuid = ?`, [p.uuid]);
    const sealed = factor!.secret_ciphertext as Buffer;
    expect(sealed.includes(secret)).toBe(false);
    expect(sealed.toString("latin1")).not.toContain(base32Encode(secret));
    const codes = await h.sql(`select code_hash from identity.recovery_codes where identity_uuid = ?`, [p.uuid]);
    expect(codes).toHaveLength(10);
    const stored = codes.map((c) => (c.code_hash as Buffer).toString("latin1")).join("");
    for (const code of recoveryCodes) expect(stored).not.toContain(code.replace("-", ""));

    await expectFailure(h.client.enrollTotp(caller(p.token)), Code.FailedPrecondition, "TOTP_ALREADY_ENROLLED");
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
    const wrongFor = (p: Person) => () =>
      expectFailure(
        h.client.login({ email: p.email, password: "wrong password!!", transport: "bearer", clientIp: randomIp() }),
        Code.Unauthenticated,
        "AUTH_INVALID_CREDENTIALS",
      );
    const rightRefused = (p: Person) =>
      expectFailure(h.client.login({ email: p.email, password: p.password, transport: "bearer", clientIp: randomIp() }), Code.ResourceExhausted, "RATE_LIMITED");

    // The right password alone answers a challenge and forgives nothing.
    const p = await enrolled();
    for (let i = 0; i < 4; i++) await wrongFor(p)();
    await challenge(p);
    await wrongFor(p)(); // the 5th failure
    await rightRefused(p);

    // Completing the challenge forgives them.
    const q = await enrolled();
    for (let i = 0; i < 4; i++) await wrongFor(q)();
    const done = await h.client.completeMfa({ mfaChallengeToken: await challenge(q), code: freshCode(h, q.secret!), clientIp: randomIp() });
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

  it("counts wrong codes toward the email's throttling", async () => {
    const p = await enrolled();
    const token = await challenge(p);
    for (let i = 0; i < 5; i++) {
      await expectFailure(h.client.completeMfa({ mfaChallengeToken: token, code: "000000", clientIp: randomIp() }), Code.Unauthenticated, "AUTH_INVALID_CREDENTIALS");
    }
    await expectFailure(
      h.client.completeMfa({ mfaChallengeToken: token, code: freshCode(h, p.secret!), clientIp: randomIp() }),
      Code.ResourceExhausted,
      "RATE_LIMITED",
    );
    await expectFailure(
      h.client.login({ email: p.email, password: p.password, transport: "bearer", clientIp: randomIp() }),
      Code.ResourceExhausted,
      "RATE_LIMITED",
    );
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
