/**
 * Sign-in throttling that an attacker cannot turn against the owner: the limit
 * per (email, client IP), the account's growing delays and cap, the per-IP limit,
 * the per-challenge limit on MFA codes, the retry time every refusal carries,
 * how long attempts are kept, and the security events sign-in writes. The
 * service's clock is frozen here, so every wait it computes is exact.
 */
import { describe, expect, it } from "vitest";
import { Code, ConnectError, reasonOf, retryAfterOf } from "@payin/rpc";
import { totpCode } from "@payin/otp";
import { expectFailure } from "@payin/testing";
import {
  ACCOUNT_WINDOW_MS,
  FREE_CONSECUTIVE_FAILURES,
  MAX_CONSECUTIVE_FAILURES,
  MAX_DELAY_MS,
} from "../src/domain/throttle.js";
import { ATTEMPT_RETENTION_MS, LoginAttemptRepository } from "../src/store/login-attempt-repository.js";
import { createPerson, enrolTotp, freshCode, type Person, randomEmail, randomIp, signIn, useAdmin, useHarness } from "./support.js";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const h = useHarness({ frozenClock: true });
const admin = useAdmin(h);

async function member(): Promise<Person & { uuid: string }> {
  return createPerson(h, await signIn(h, admin), ["merchant_member"]);
}

const login = (p: Person, password: string, clientIp: string) => h.client.login({ email: p.email, password, transport: "bearer", clientIp });

/** A wrong password for `p`, answered 401. */
async function wrong(p: Person, clientIp = randomIp()): Promise<void> {
  await expectFailure(login(p, "wrong password!!", clientIp), Code.Unauthenticated, "AUTH_INVALID_CREDENTIALS");
}

/** An attempt refused with RATE_LIMITED; answers its Retry-After seconds. */
async function refused(attempt: Promise<unknown>): Promise<number> {
  const error = await expectFailure(attempt, Code.ResourceExhausted, "RATE_LIMITED");
  const seconds = retryAfterOf(error);
  expect(seconds, "every refusal says when to retry").toBeDefined();
  expect(Number.isInteger(seconds) && seconds! >= 1).toBe(true);
  return seconds!;
}

/** Records `count` failed sign-in attempts of `p` from `clientIp`, as if made just now. */
async function failedAttempts(p: Person, clientIp: string, count: number): Promise<void> {
  await h.sql(
    `insert into identity.login_attempts (email, client_ip, attempted_at, outcome) select ?, ?, ?, 'failed' from generate_series(1, ?)`,
    [p.email.toLowerCase(), clientIp, h.now(), count],
  );
}

describe("the limit per email and client IP", () => {
  it("refuses the 6th attempt from one address for 15 minutes, but never the owner from another", async () => {
    const p = await member();
    const attacker = randomIp();
    for (let i = 0; i < 5; i++) await wrong(p, attacker);
    // The failures were all at this instant: exactly 15 minutes to wait.
    expect(await refused(login(p, p.password, attacker))).toBe(15 * 60);
    expect((await login(p, p.password, randomIp())).result.case).toBe("authenticated");
    h.advance(15 * MINUTE - SECOND);
    expect(await refused(login(p, p.password, attacker))).toBe(1);
    h.advance(SECOND);
    expect((await login(p, p.password, attacker)).result.case).toBe("authenticated");
  });
});

describe("the account-wide limit", () => {
  it("lets 10 consecutive failures pass, then makes each attempt wait 1 s, 2 s, 4 s … at most 15 minutes", async () => {
    const p = await member();
    // From 10 addresses at once: no address limit, and no account delay yet.
    for (let i = 0; i < FREE_CONSECUTIVE_FAILURES; i++) await wrong(p);
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) {
      // Refused at once, even with the right password and from a new address …
      const wait = await refused(login(p, p.password, randomIp()));
      waits.push(wait);
      // … and still a second before the wait is over; then one more failure.
      h.advance(wait * SECOND - SECOND);
      expect(await refused(login(p, p.password, randomIp()))).toBe(1);
      h.advance(SECOND);
      await wrong(p);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, MAX_DELAY_MS / SECOND, MAX_DELAY_MS / SECOND]);
    // A completed sign-in starts the count again: the next failures cost nothing.
    h.advance(MAX_DELAY_MS);
    expect((await login(p, p.password, randomIp())).result.case).toBe("authenticated");
    for (let i = 0; i < FREE_CONSECUTIVE_FAILURES; i++) await wrong(p);
    expect(await refused(login(p, p.password, randomIp()))).toBe(1);
  });

  it(`refuses every attempt at ${MAX_CONSECUTIVE_FAILURES} consecutive failures until they age out of 24 hours`, async () => {
    const p = await member();
    const start = h.now().getTime();
    let failures = 0;
    for (; failures < FREE_CONSECUTIVE_FAILURES; failures++) await wrong(p);
    for (; failures < MAX_CONSECUTIVE_FAILURES; failures++) {
      h.advance((await refused(login(p, p.password, randomIp()))) * SECOND);
      await wrong(p);
    }
    // The cap: whatever the wait after the latest failure, until the oldest leaves the 24 hours.
    const until = start + ACCOUNT_WINDOW_MS;
    const wait = await refused(login(p, p.password, randomIp()));
    expect(wait).toBe(Math.ceil((until - h.now().getTime()) / SECOND));
    expect(wait).toBeGreaterThan(MAX_DELAY_MS / SECOND);
    h.advance(wait * SECOND - SECOND);
    expect(await refused(login(p, p.password, randomIp()))).toBe(1);
    h.advance(SECOND);
    expect((await login(p, p.password, randomIp())).result.case).toBe("authenticated");
  }, 120_000);

  it("is lifted by ResetSignInFailures: the account's cap and the pair's limit, not the address's (docs/operations.md)", async () => {
    const adminToken = await signIn(h, admin);
    const p = await member();
    const attacker = randomIp();
    await failedAttempts(p, attacker, MAX_CONSECUTIVE_FAILURES);
    expect(await refused(login(p, p.password, randomIp()))).toBeGreaterThan(MAX_DELAY_MS / SECOND);

    const reset = await h.client.resetSignInFailures({ caller: { sessionToken: adminToken }, identityUuid: p.uuid });
    expect({ uuid: reset.identity?.uuid, forgiven: reset.forgiven }).toEqual({ uuid: p.uuid, forgiven: MAX_CONSECUTIVE_FAILURES });
    expect((await login(p, p.password, randomIp())).result.case).toBe("authenticated");
    // The address that failed 100 times is still refused: its own limit counts forgiven failures.
    expect(await refused(login(p, p.password, attacker))).toBe(15 * 60);
    // Nothing left to forgive: 0, no error.
    expect((await h.client.resetSignInFailures({ caller: { sessionToken: adminToken }, identityUuid: p.uuid })).forgiven).toBe(0);
  });

  it("ResetSignInFailures lifts the limit per email and client IP", async () => {
    const adminToken = await signIn(h, admin);
    const p = await member();
    const address = randomIp();
    for (let i = 0; i < 5; i++) await wrong(p, address);
    expect(await refused(login(p, p.password, address))).toBe(15 * 60);
    await h.client.resetSignInFailures({ caller: { sessionToken: adminToken }, identityUuid: p.uuid });
    expect((await login(p, p.password, address)).result.case).toBe("authenticated");
  });

  it("ResetSignInFailures needs identity.manage; an unknown identity is IDENTITY_NOT_FOUND", async () => {
    const adminToken = await signIn(h, admin);
    const p = await member();
    const memberToken = await signIn(h, p);
    await expectFailure(h.client.resetSignInFailures({ caller: { sessionToken: memberToken }, identityUuid: p.uuid }), Code.PermissionDenied, "FORBIDDEN");
    // Without a person only the platform's own callers act (payinctl, and this harness's `test`);
    // that every other caller is refused is callers.test.ts's.
    await h.client.resetSignInFailures({ identityUuid: p.uuid });
    for (const identityUuid of [crypto.randomUUID(), "not-a-uuid"]) {
      await expectFailure(h.client.resetSignInFailures({ caller: { sessionToken: adminToken }, identityUuid }), Code.NotFound, "IDENTITY_NOT_FOUND");
    }
  });

  it("is lifted by activating the identity", async () => {
    const adminToken = await signIn(h, admin);
    const p = await member();
    await failedAttempts(p, randomIp(), MAX_CONSECUTIVE_FAILURES);
    await h.client.setIdentityStatus({ caller: { sessionToken: adminToken }, identityUuid: p.uuid, status: "locked" });
    expect(await refused(login(p, p.password, randomIp()))).toBeGreaterThan(MAX_DELAY_MS / SECOND);
    await h.client.setIdentityStatus({ caller: { sessionToken: adminToken }, identityUuid: p.uuid, status: "active" });
    expect((await login(p, p.password, randomIp())).result.case).toBe("authenticated");
  });

  it("never lets concurrent failures from many addresses past the free ones", async () => {
    const p = await member();
    const results = await Promise.allSettled(Array.from({ length: 16 }, () => login(p, "wrong password!!", randomIp())));
    const reasons = results.map((r) => (r.status === "rejected" ? reasonOf(r.reason as ConnectError) : "ok"));
    expect(reasons.every((r) => r === "AUTH_INVALID_CREDENTIALS" || r === "RATE_LIMITED")).toBe(true);
    expect(reasons.filter((r) => r === "AUTH_INVALID_CREDENTIALS").length).toBeLessThanOrEqual(FREE_CONSECUTIVE_FAILURES);
  });
});

describe("the per-IP limit", () => {
  it("says when the address may try again", async () => {
    const clientIp = randomIp();
    for (let i = 0; i < 100; i++) {
      await expectFailure(
        h.client.login({ email: randomEmail("spray"), password: "some password 1", transport: "bearer", clientIp }),
        Code.Unauthenticated,
        "AUTH_INVALID_CREDENTIALS",
      );
    }
    expect(await refused(h.client.login({ email: randomEmail("spray"), password: "some password 1", transport: "bearer", clientIp }))).toBe(15 * 60);
  }, 60_000);
});

describe("how client addresses are counted", () => {
  it("counts one IPv4 client as one address however the gateway wrote it (plain, ::ffff:-mapped, expanded)", async () => {
    const p = await member();
    const [a, b] = randomIp().split(".").slice(2).map(Number) as [number, number];
    const hex = (n: number) => n.toString(16).padStart(2, "0");
    const spellings = [`198.51.${a}.${b}`, `::ffff:198.51.${a}.${b}`, `0:0:0:0:0:ffff:c633:${hex(a)}${hex(b)}`, `::FFFF:198.51.${a}.${b}`, `198.51.${a}.${b}`];
    for (const clientIp of spellings) await wrong(p, clientIp);
    // The 6th attempt of the pair, in any of the spellings, is refused; the owner elsewhere is not.
    for (const clientIp of spellings.slice(0, 4)) expect(await refused(login(p, p.password, clientIp))).toBe(15 * 60);
    expect((await login(p, p.password, randomIp())).result.case).toBe("authenticated");
  });

  it("counts IPv6 clients by their /64: addresses of one /64 share the limit, another /64 has its own", async () => {
    const p = await member();
    const network = `2001:db8:${randomIp().split(".").slice(2).map(Number).map((n) => n.toString(16)).join(":")}`;
    for (let i = 1; i <= 5; i++) await wrong(p, `${network}::${i.toString(16)}`);
    expect(await refused(login(p, p.password, `${network}::ffff`))).toBe(15 * 60);
    expect(await refused(login(p, p.password, `${network.toUpperCase()}:0:0:0:1%eth0`))).toBe(15 * 60);
    expect((await login(p, p.password, "2001:db8:ffff:ffff::1")).result.case).toBe("authenticated");
  });
});

describe("the MFA challenge limit", () => {
  it("refuses a challenge after 5 wrong codes; the codes count toward the account's consecutive failures", async () => {
    const p = await member();
    const { secret } = await enrolTotp(h, await signIn(h, p), p.password);
    const challenge = async () => {
      const res = await login(p, p.password, randomIp());
      expect(res.result.case).toBe("mfaChallengeToken");
      h.secrets.add(res.result.value as string);
      return res.result.value as string;
    };
    const token = await challenge();
    for (let i = 0; i < 5; i++) {
      await expectFailure(h.client.completeMfa({ mfaChallengeToken: token, code: "000000", clientIp: randomIp() }), Code.Unauthenticated, "AUTH_INVALID_CREDENTIALS");
    }
    expect(await refused(h.client.completeMfa({ mfaChallengeToken: token, code: freshCode(h, secret), clientIp: randomIp() }))).toBe(1);
    // 5 wrong codes and 5 wrong passwords: 10 consecutive failures, so the next attempt waits.
    const next = await challenge();
    for (let i = 0; i < 5; i++) await wrong(p);
    expect(await refused(h.client.completeMfa({ mfaChallengeToken: next, code: totpCode(secret, h.now()), clientIp: randomIp() }))).toBe(1);
    h.advance(SECOND);
    const done = await h.client.completeMfa({ mfaChallengeToken: next, code: totpCode(secret, h.now()), clientIp: randomIp() });
    h.secrets.add(done.authenticated!.sessionToken);
  });
});

describe("how long attempts are kept", () => {
  it("purges only attempts older than 30 days", async () => {
    const email = randomEmail("kept").toLowerCase();
    const now = h.now().getTime();
    const ages = { "2 hours": 2 * 60 * MINUTE, "29 days": ATTEMPT_RETENTION_MS - 24 * 60 * MINUTE, "31 days": ATTEMPT_RETENTION_MS + 24 * 60 * MINUTE };
    for (const age of Object.values(ages)) {
      await h.sql(`insert into identity.login_attempts (email, client_ip, attempted_at, outcome) values (?, ?, ?, 'failed')`, [
        email,
        randomIp(),
        new Date(now - age),
      ]);
    }
    await new LoginAttemptRepository(h.db).purge(h.now());
    const rows = await h.sql(`select attempted_at from identity.login_attempts where email = ? order by attempted_at desc`, [email]);
    expect(rows.map((r) => new Date(r.attempted_at as string).getTime())).toEqual([now - ages["2 hours"], now - ages["29 days"]]);
  });
});

describe("security events", () => {
  /** The structured fields of every security event logged since `from`. */
  const eventsSince = (from: number) =>
    h.logLines
      .slice(from)
      .map((line) => JSON.parse(line.slice(line.indexOf(" ") + 1)) as unknown[])
      .map((args) => args[0] as Record<string, unknown>)
      .filter((fields) => typeof fields?.event === "string" && String(fields.event).startsWith("auth."));

  it("logs sign-in and MFA successes and failures and throttling, with the identity when known and no secret", async () => {
    const p = await member();
    const { secret } = await enrolTotp(h, await signIn(h, p), p.password);
    const clientIp = randomIp();
    const from = h.logLines.length;

    await wrong(p, clientIp);
    const unknown = randomEmail("nobody");
    await expectFailure(login({ email: unknown, password: "" }, "wrong password!!", clientIp), Code.Unauthenticated, "AUTH_INVALID_CREDENTIALS");
    const first = await login(p, p.password, clientIp);
    const token = first.result.value as string;
    h.secrets.add(token);
    await expectFailure(h.client.completeMfa({ mfaChallengeToken: token, code: "000000", clientIp }), Code.Unauthenticated, "AUTH_INVALID_CREDENTIALS");
    const done = await h.client.completeMfa({ mfaChallengeToken: token, code: freshCode(h, secret), clientIp });
    h.secrets.add(done.authenticated!.sessionToken);
    for (let i = 0; i < 5; i++) await wrong(p, clientIp);
    await refused(login(p, p.password, clientIp));

    const events = eventsSince(from);
    expect(events.map((e) => [e.event, e.identity_uuid, e.client_ip])).toEqual([
      ["auth.login.failed", p.uuid, clientIp],
      ["auth.login.failed", null, clientIp],
      ["auth.login.succeeded", p.uuid, clientIp],
      ["auth.mfa.failed", p.uuid, clientIp],
      ["auth.mfa.succeeded", p.uuid, clientIp],
      ...Array.from({ length: 5 }, () => ["auth.login.failed", p.uuid, clientIp]),
      ["auth.throttled", p.uuid, clientIp],
    ]);
    expect(events[0]).toMatchObject({ reason: "wrong_password" });
    expect(events[1]).toMatchObject({ reason: "unknown_email" });
    expect(events[2]).toMatchObject({ mfa_required: true });
    expect(events.at(-1)).toMatchObject({ step: "login", limit: "email_client_ip", retry_after_seconds: 15 * 60 });
    // No password, code, challenge or session token, and not even the email.
    const text = h.logLines.slice(from).join("\n");
    for (const secretText of [p.password, "wrong password!!", "000000", token, done.authenticated!.sessionToken, p.email.toLowerCase(), unknown.toLowerCase()]) {
      expect(text.includes(secretText), `"${secretText.slice(0, 6)}…" in the log`).toBe(false);
    }
  });
  it("counts a wrong current password at a password change or TOTP enrolment from the gateway's client address, and logs it", async () => {
    const p = await member();
    const token = await signIn(h, p);
    const clientIp = randomIp();
    const from = h.logLines.length;
    const newPassword = `pw-${crypto.randomUUID()}`;
    h.secrets.add(newPassword);
    const change = () => h.client.changePassword({ caller: { sessionToken: token }, currentPassword: "wrong password!!", newPassword, clientIp });
    for (let i = 0; i < 4; i++) await expectFailure(change(), Code.Unauthenticated, "AUTH_INVALID_CREDENTIALS");
    await expectFailure(
      h.client.enrollTotp({ caller: { sessionToken: token }, currentPassword: "wrong password!!", clientIp }),
      Code.Unauthenticated,
      "AUTH_INVALID_CREDENTIALS",
    );
    // Five failures of this email from this address: the pair's limit holds, for re-checks and sign-in alike.
    expect(await refused(change())).toBe(15 * 60);
    expect(await refused(login(p, p.password, clientIp))).toBe(15 * 60);
    expect((await login(p, p.password, randomIp())).result.case).toBe("authenticated");

    const events = eventsSince(from).filter((e) => e.identity_uuid === p.uuid);
    expect(events.map((e) => [e.event, e.purpose ?? e.step, e.client_ip])).toEqual([
      ...Array.from({ length: 4 }, () => ["auth.reauth.failed", "password_change", clientIp]),
      ["auth.reauth.failed", "totp_enrollment", clientIp],
      ["auth.throttled", "password_change", clientIp],
      ["auth.throttled", "login", clientIp],
      ["auth.login.succeeded", undefined, expect.any(String)],
    ]);
    expect(events[5]).toMatchObject({ limit: "email_client_ip", retry_after_seconds: 15 * 60 });
    expect(h.logLines.slice(from).join("\n").includes("wrong password!!")).toBe(false);
  });
});
