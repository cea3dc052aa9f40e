import { randomBytes } from "node:crypto";
import { argon2id, hash as argon2Hash, verify as argon2Verify } from "argon2";
import { DomainError } from "@payin/errors";
import { IdentityReason } from "./reasons.js";

/**
 * Passwords are hashed with argon2id at OWASP's minimum (19 MiB, 2 passes, 1 lane).
 * Hashing runs on libuv's thread pool through the async API, so a login does not
 * block the event loop.
 *
 * Every argon2 operation of the process (hash, verify, and the dummy verify for an
 * unknown email) also waits its turn behind a semaphore of ARGON2_CONCURRENCY
 * permits (default 1, see configurePasswordHashing), so password hashing never
 * keeps more than that many cores busy however many logins arrive at once: extra
 * logins queue (answering later) instead of taking CPU from the other work of the
 * machine. Unknown emails queue the same way, so they still take as long.
 */
export const ARGON2_OPTIONS = { type: argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

/** Characters in the sense of Unicode code points, as JSON Schema's minLength/maxLength count. */
function characters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Fails with INVALID_ARGUMENT unless `password` has 12 to 128 characters. */
export function checkPasswordRules(password: string, field = "password"): void {
  const length = characters(password);
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    throw new DomainError(IdentityReason.InvalidArgument, `${field} must have ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
  }
}

/**
 * Lowest zxcvbn score a new password needs: 3 means about 10^8 guesses or more,
 * which zxcvbn rates as safe against online guessing and moderately safe offline
 * behind a slow hash such as our argon2id.
 */
export const PASSWORD_MIN_SCORE = 3;

type Estimator = { check(password: string, userInputs?: string[]): { score: number } };
let estimator: Promise<Estimator> | undefined;

/**
 * zxcvbn with its common-password and diceware dictionaries, loaded on the first
 * new password and kept: the dictionaries take tens of milliseconds and several
 * megabytes, which sign-ins (they never check strength) must not pay for.
 */
function strengthEstimator(): Promise<Estimator> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common] = await Promise.all([import("@zxcvbn-ts/core"), import("@zxcvbn-ts/language-common")]);
    return new ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
  })().catch((error: unknown) => {
    estimator = undefined; // a later password tries again
    throw error;
  });
  return estimator;
}

/** The part of a (lower-cased) email before its last "@". */
function localPart(email: string): string {
  const at = email.lastIndexOf("@");
  return (at < 0 ? email : email.slice(0, at)).toLowerCase();
}

/**
 * Fails with INVALID_ARGUMENT unless `password` may become the password of the
 * identity with `email`: 12 to 128 characters, not containing the email's local
 * part (from 3 characters on, in any case), and a zxcvbn score of at least
 * PASSWORD_MIN_SCORE against common and breached passwords, keyboard patterns,
 * sequences, dates and the email's parts. Only new passwords are checked this
 * way; a sign-in checks the length alone. Messages never quote the password.
 * The estimate takes a few milliseconds (about 50 at 128 characters) of main thread.
 */
export async function checkNewPassword(password: string, email: string, field = "password"): Promise<void> {
  checkPasswordRules(password, field);
  const local = localPart(email);
  if (local.length >= 3 && password.toLowerCase().includes(local)) {
    throw new DomainError(IdentityReason.InvalidArgument, `${field} must not contain the email address's name`);
  }
  const userInputs = [local, ...local.split(/[._+-]+/).filter((part) => part.length >= 3), email.toLowerCase()];
  const { score } = (await strengthEstimator()).check(password, userInputs);
  if (score < PASSWORD_MIN_SCORE) {
    throw new DomainError(
      IdentityReason.InvalidArgument,
      `${field} is too common or easy to guess: use a longer one without common words, names, dates or keyboard patterns, e.g. several random words`,
    );
  }
}

/** Default number of argon2 operations that may run at once in the process. */
export const DEFAULT_ARGON2_CONCURRENCY = 1;

/** A counting semaphore: at most `permits` holders at once, the others wait in FIFO order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private permits: number) {
    Semaphore.check(permits);
  }

  private static check(permits: number): void {
    if (!Number.isInteger(permits) || permits < 1) throw new RangeError(`permits must be a whole number ≥ 1, got ${permits}`);
  }

  /** Changes the number of permits; holders above a lowered limit finish normally. */
  resize(permits: number): void {
    Semaphore.check(permits);
    this.permits = permits;
    this.wake();
  }

  /** Operations running now and operations waiting for a permit. */
  get stats(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  /** Runs `task` once a permit is free and releases the permit when it settles. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.permits) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.wake();
    }
  }

  private wake(): void {
    while (this.active < this.permits && this.waiting.length > 0) {
      this.active++; // handed over to the waiter, which does not count itself again
      this.waiting.shift()!();
    }
  }
}

const argon2Slots = new Semaphore(DEFAULT_ARGON2_CONCURRENCY);

/** Sets how many argon2 operations may run at once in this process (ARGON2_CONCURRENCY). */
export function configurePasswordHashing(options: { concurrency: number }): void {
  argon2Slots.resize(options.concurrency);
}

/** argon2 operations running now and waiting for their turn. */
export function passwordHashingLoad(): { active: number; waiting: number } {
  return argon2Slots.stats;
}

/** argon2id hash (PHC string) of a password. */
export async function hashPassword(password: string): Promise<string> {
  return argon2Slots.run(() => argon2Hash(password, ARGON2_OPTIONS));
}

let dummyHash: Promise<string> | undefined;

/**
 * True when `password` matches `hash`. With no hash (an unknown email) it verifies
 * against a dummy hash of the same cost and answers false, so both cases take the
 * same time.
 */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (hash === null) {
    dummyHash ??= hashPassword(randomBytes(24).toString("base64url"));
    const dummy = await dummyHash;
    await argon2Slots.run(() => argon2Verify(dummy, password));
    return false;
  }
  return argon2Slots.run(() => argon2Verify(hash, password));
}

/** A strong generated password: 18 random bytes as 24 base64url characters. */
export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}
