import { describe, expect, it } from "vitest";
import { DomainError } from "@payin/errors";
import {
  ARGON2_OPTIONS,
  checkNewPassword,
  checkPasswordRules,
  configurePasswordHashing,
  generatePassword,
  hashPassword,
  passwordHashingLoad,
  Semaphore,
  verifyPassword,
} from "./password.js";
import { IdentityReason } from "./reasons.js";

function refusal(password: string): string | undefined {
  try {
    checkPasswordRules(password);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).reason;
  }
}

describe("password rules", () => {
  it.each([
    ["12 characters", "a".repeat(12)],
    ["128 characters", "a".repeat(128)],
    ["12 emoji (astral code points)", "😀".repeat(12)],
    ["spaces count", "            "],
  ])("accepts %s", (_name, password) => {
    expect(refusal(password)).toBeUndefined();
  });

  it("names the field it checks, `password` unless told", () => {
    expect(() => checkPasswordRules("short")).toThrow("password must have 12 to 128 characters");
    expect(() => checkPasswordRules("short", "new_password")).toThrow("new_password must have 12 to 128 characters");
  });

  it.each([
    ["empty", ""],
    ["11 characters", "a".repeat(11)],
    ["129 characters", "a".repeat(129)],
    ["6 emoji (12 UTF-16 units)", "😀".repeat(6)],
  ])("refuses %s", (_name, password) => {
    expect(refusal(password)).toBe(IdentityReason.InvalidArgument);
  });
});

describe("new password rules", () => {
  /** The refusal message for a new password of `email`, or undefined when accepted. */
  async function newPasswordRefusal(password: string, email = "someone@example.com"): Promise<string | undefined> {
    try {
      await checkNewPassword(password, email, "new_password");
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).reason).toBe(IdentityReason.InvalidArgument);
      const message = (error as DomainError).message;
      expect(message.toLowerCase()).not.toContain(password.toLowerCase());
      return message;
    }
  }

  it.each([
    ["a common password with digits", "password1234"],
    ["a capitalised common password", "Password1234!"],
    ["a keyboard row", "qwertyuiop12"],
    ["a digit sequence", "123456789012"],
    ["leetspeak of a common password", "P@ssw0rd2024"],
    ["a common word and digits", "football2024"],
    ["a repeated character", "aaaaaaaaaaaa"],
  ])("refuses %s as too easy to guess", async (_name, password) => {
    expect(await newPasswordRefusal(password)).toBe(
      "new_password is too common or easy to guess: use a longer one without common words, names, dates or keyboard patterns, e.g. several random words",
    );
  });

  it.each([
    ["the local part itself", "maria.santos-2024!", "maria.santos@example.com"],
    ["the local part in another case", "x-MARIA.Santos-x-91kq", "maria.santos@example.com"],
    ["a short local part of 3 characters", "Quiet-bob-Harbour-Lamp", "bob@example.com"],
  ])("refuses a password containing %s", async (_name, password, email) => {
    expect(await newPasswordRefusal(password, email)).toBe("new_password must not contain the email address's name");
  });

  it.each([
    ["a passphrase", "correct horse battery staple"],
    ["random base64url", "pw-Xy7_kq2LmN0pQrSt"],
    ["a long plain phrase", "long enough password"],
    ["a local part of 2 characters elsewhere in it", "jo-Quiet-Harbour-Lamp"],
  ])("accepts %s", async (_name, password) => {
    expect(await newPasswordRefusal(password, "jo@example.com")).toBeUndefined();
  });

  it("names the field `password` unless told", async () => {
    await expect(checkNewPassword("Quiet-maria-Harbour", "maria@example.com")).rejects.toThrow(
      "password must not contain the email address's name",
    );
    await expect(checkNewPassword("password1234", "someone@example.com")).rejects.toThrow(/^password is too common or easy to guess/);
  });

  // zxcvbn is deterministic: these scores are what its common dictionaries give.
  it("counts the parts of the email's name, and the email itself, against a password", async () => {
    // "quenvikzorblat" is no dictionary's word (score 4 alone), but both halves are the email's.
    expect(await newPasswordRefusal("quenvikzorblat", "zorblat.quenvik@example.com")).toMatch(/too common or easy to guess/);
    expect(await newPasswordRefusal("quenvikzorblat", "someone@example.com")).toBeUndefined();
    // A name of 2 characters is not refused by itself, but the whole email still counts.
    expect(await newPasswordRefusal("jo@example.com1234", "jo@example.com")).toMatch(/too common or easy to guess/);
  });

  it("accepts a score of 3 and refuses 2", async () => {
    // Scores against zorblat.quenvik@example.com: 3 and 2.
    expect(await newPasswordRefusal("quenvik-zorblat", "zorblat.quenvik@example.com")).toBeUndefined();
    expect(await newPasswordRefusal("zorblat-quen", "zorblat.quenvik@example.com")).toMatch(/too common or easy to guess/);
  });

  it("takes the whole address as the name when it has no @, and none when it starts with @", async () => {
    expect(await newPasswordRefusal("Quiet-bob-Harbour-Lamp", "bobx")).toBeUndefined();
    expect(await newPasswordRefusal("Quiet-bobx-Harbour-Lamp", "bobx")).toBe("new_password must not contain the email address's name");
    expect(await newPasswordRefusal("Quiet@example.com-Harbour-Lamp", "@example.com")).toBeUndefined();
  });

  it("applies the length rule first", async () => {
    expect(await newPasswordRefusal("Xy7_kq2LmN0")).toBe("new_password must have 12 to 128 characters");
  });

  it("keeps the estimate cheap once loaded, even at 128 characters", async () => {
    await checkNewPassword(generatePassword(), "warm@example.com"); // loads the dictionaries
    const start = performance.now();
    await checkNewPassword("Xy7_kq2LmN0pQrSt".repeat(8), "someone@example.com");
    // Generous for a loaded machine; an unloaded one takes about 50 ms.
    expect(performance.now() - start).toBeLessThan(1_000);
  });
});

describe("argon2id hashing", () => {
  it("hashes with argon2id at or above OWASP's minimum and verifies", async () => {
    expect(ARGON2_OPTIONS.memoryCost).toBeGreaterThanOrEqual(19_456);
    expect(ARGON2_OPTIONS.timeCost).toBeGreaterThanOrEqual(2);
    const hash = await hashPassword("correct horse battery staple");
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(hash).not.toContain("correct horse");
    expect(await verifyPassword(hash, "correct horse battery staple")).toBe(true);
    expect(await verifyPassword(hash, "correct horse battery stapl")).toBe(false);
  });

  it("answers false for an unknown identity after doing the same work", async () => {
    const known = await hashPassword("some password 1");
    await verifyPassword(null, "warm up the dummy hash"); // computed once, lazily
    // The fastest of several runs, which load on the machine barely moves.
    const time = async (hash: string | null) => {
      let fastest = Infinity;
      for (let i = 0; i < 4; i++) {
        const start = process.hrtime.bigint();
        await verifyPassword(hash, "another password");
        fastest = Math.min(fastest, Number(process.hrtime.bigint() - start));
      }
      return fastest;
    };
    expect(await verifyPassword(null, "some password 1")).toBe(false);
    const unknown = await time(null);
    const wrong = await time(known);
    // Same argon2id parameters: an unknown email is never answered early (that would be
    // a ratio near 0). The bounds are generous because shared CI machines are noisy.
    expect(unknown / wrong).toBeGreaterThan(0.3);
    expect(unknown / wrong).toBeLessThan(3.5);
  });

  it("hashes off the event loop: timers keep firing while hashes run", async () => {
    const start = performance.now();
    await hashPassword("time one hash here");
    const oneHashMs = performance.now() - start;
    let last = performance.now();
    let maxGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 1);
    await Promise.all(Array.from({ length: 4 }, (_, i) => hashPassword(`concurrent password ${i}`)));
    clearInterval(timer);
    // Hashing on the event loop would run the four hashes back to back in one tick and
    // stall the timer for about four hashes; allow two for scheduling noise.
    expect(maxGap).toBeLessThan(2 * oneHashMs);
  });

  it("generates 24-character base64url passwords that pass the rules", () => {
    const password = generatePassword();
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(refusal(password)).toBeUndefined();
    expect(generatePassword()).not.toBe(password);
  });
});

describe("bounded argon2 concurrency", () => {
  it("a semaphore never lets more than its permits run, and serves waiters in order", async () => {
    const semaphore = new Semaphore(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const task = (i: number) => async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      order.push(i);
      if (i === 1) throw new Error("a failing task releases its permit");
      return i;
    };
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => semaphore.run(task(i))));
    expect(peak).toBe(2);
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(1);
    expect(order.slice(2).sort()).toEqual([2, 3, 4, 5]);
    expect(semaphore.stats).toEqual({ active: 0, waiting: 0 });
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses %s permits", (permits) => {
    expect(() => new Semaphore(permits)).toThrow(new RangeError(`permits must be a whole number ≥ 1, got ${permits}`));
    expect(() => new Semaphore(1).resize(permits)).toThrow(RangeError);
  });

  it("runs one task at a time with one permit, and more once resized", async () => {
    const semaphore = new Semaphore(1);
    const gates: (() => void)[] = [];
    const task = () => semaphore.run(() => new Promise<void>((resolve) => gates.push(resolve)));
    const running = [task(), task(), task()];
    await new Promise((resolve) => setImmediate(resolve));
    expect(semaphore.stats).toEqual({ active: 1, waiting: 2 });
    semaphore.resize(3);
    await new Promise((resolve) => setImmediate(resolve));
    expect(semaphore.stats).toEqual({ active: 3, waiting: 0 });
    for (const open of gates) open();
    await Promise.all(running);
    expect(semaphore.stats).toEqual({ active: 0, waiting: 0 });
  });

  it("runs one argon2 operation at a time by default; the others wait their turn", async () => {
    const known = await hashPassword("bounded concurrency 1");
    const work = [hashPassword("bounded concurrency 2"), verifyPassword(known, "bounded concurrency 1"), verifyPassword(null, "unknown email 1")];
    const load = passwordHashingLoad();
    expect(load.active).toBe(1);
    expect(load.waiting).toBeGreaterThanOrEqual(1);
    const [, matches, unknown] = await Promise.all(work);
    expect(matches).toBe(true);
    expect(unknown).toBe(false);
    expect(passwordHashingLoad()).toEqual({ active: 0, waiting: 0 });
  });

  it("runs up to ARGON2_CONCURRENCY operations at once when configured", async () => {
    configurePasswordHashing({ concurrency: 3 });
    try {
      const work = Array.from({ length: 4 }, (_, i) => hashPassword(`configured concurrency ${i}`));
      expect(passwordHashingLoad()).toEqual({ active: 3, waiting: 1 });
      await Promise.all(work);
    } finally {
      configurePasswordHashing({ concurrency: 1 });
    }
  });
});
