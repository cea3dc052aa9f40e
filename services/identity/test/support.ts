import { randomBytes, type KeyObject } from "node:crypto";
import { afterAll, beforeAll, expect } from "vitest";
import { createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { assertionSigningKey, assertionPublicKeyOf, assertionVerifyingKey } from "@payin/config";
import { database, migrate, openOrm, type Database, type MikroORM } from "@payin/db";
import type { Logger } from "@payin/logging";
import { totpCode } from "@payin/otp";
import { base32nopad } from "@scure/base";
import { identityV1 } from "@payin/proto";
import { actAsCaller, domainErrorInterceptor } from "@payin/rpc";
import { createTestDatabase, totpSecretOf } from "@payin/testing";
import { saltUnsaltedRecoveryCodes } from "../src/domain/recovery-codes.js";
import { reasonCodes } from "../src/rpc/reason-codes.js";
import { createIdentityService } from "../src/service.js";
import { IdentityRepository } from "../src/store/identity-repository.js";
import { ormOptions } from "../src/store/orm.js";

export type IdentityClient = Client<typeof identityV1.IdentityService>;

/** A person the tests can sign in as. */
export interface Person {
  email: string;
  password: string;
  /** TOTP secret when MFA is enrolled. */
  secret?: Buffer;
}

/** The identity service over an in-memory transport on a fresh database, with a clock tests move. */
export interface Harness {
  orm: MikroORM;
  /** The service's Database (on `orm`). */
  db: Database;
  client: IdentityClient;
  totpKey: Buffer;
  /** The public key of the assertions this harness's identity signs. */
  assertionVerifyingKey: KeyObject;
  /** The service's current time. */
  now(): Date;
  /** Moves the service's clock forward. */
  advance(ms: number): void;
  sql(query: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Everything the service handed its logger. */
  logLines: string[];
  /** Secrets the tests saw; none may appear in logLines. */
  secrets: Set<string>;
  close(): Promise<void>;
}

/** A logger that keeps every call's arguments as text, before any redaction. */
function recordingLogger(lines: string[]): Logger {
  const record =
    (level: string) =>
    (...args: unknown[]) => {
      lines.push(`${level} ${JSON.stringify(args, (_k, v: unknown) => (v instanceof Error ? { message: v.message, stack: v.stack } : v))}`);
    };
  const logger: Record<string, unknown> = {};
  for (const level of ["fatal", "error", "warn", "info", "debug", "trace"]) logger[level] = record(level);
  logger.child = () => logger;
  logger.level = "trace";
  return logger as unknown as Logger;
}

/**
 * Starts the harness on a new database. With `frozenClock` the service's time
 * moves only when a test advances it, so waits it computes are exact.
 */
export async function startHarness(options: { frozenClock?: boolean } = {}): Promise<Harness> {
  const url = await createTestDatabase("identity");
  await migrate(ormOptions(url));
  const orm = await openOrm(ormOptions(url, 30));
  const db = database(orm);
  const logLines: string[] = [];
  const logger = recordingLogger(logLines);
  const totpKey = randomBytes(32);
  // What identity's main does after its migrations (a fresh database has nothing to salt).
  await saltUnsaltedRecoveryCodes(new IdentityRepository(db), totpKey);
  let offsetMs = 0;
  const frozenAt = Date.now();
  const now = () => new Date((options.frozenClock ? frozenAt : Date.now()) + offsetMs);
  const assertionSeed = randomBytes(32);
  const assertionKey = assertionSigningKey(assertionSeed);
  const transport = createRouterTransport(createIdentityService({ db, logger, totpKey, clock: { now }, assertionKey }), {
    router: { interceptors: [actAsCaller("test"), domainErrorInterceptor("identity", reasonCodes, logger)] },
  });
  return {
    orm,
    db,
    client: createClient(identityV1.IdentityService, transport),
    totpKey,
    assertionVerifyingKey: assertionVerifyingKey(assertionPublicKeyOf(assertionSeed)),
    now,
    advance: (ms) => {
      offsetMs += ms;
    },
    sql: (query, params = []) => orm.em.fork().execute(query, params),
    logLines,
    secrets: new Set(),
    close: () => orm.close(),
  };
}

// Addresses of the benchmarking range 198.18.0.0/15, handed out in turn from a random
// start: no two calls in one test file (one database) ever share a per-IP budget.
let nextIp = randomBytes(2).readUInt16BE(0);

/** A client IPv4 address no other call in this file got, so tests do not share a per-IP budget. */
export function randomIp(): string {
  const n = nextIp++ % 0x20000;
  return `198.${18 + (n >> 16)}.${(n >> 8) & 0xff}.${n & 0xff}`;
}

/**
 * A harness for the test file: started before its tests, and after them checked
 * for logged secrets and closed. The object is filled in by the `beforeAll` hook.
 */
export function useHarness(options: { frozenClock?: boolean } = {}): Harness {
  const h = {} as Harness;
  beforeAll(async () => {
    Object.assign(h, await startHarness(options));
  });
  afterAll(async () => {
    if (!h.close) return;
    expectNoSecretsLogged(h);
    await h.close();
  });
  return h;
}

/** The first platform_admin of `h` (MFA enrolled), bootstrapped before the file's tests. */
export function useAdmin(h: Harness): Person & { uuid: string } {
  const admin = {} as Person & { uuid: string };
  beforeAll(async () => {
    Object.assign(admin, await bootstrap(h));
  });
  return admin;
}

/** The request field that acts as the person holding `sessionToken`. */
export function caller(sessionToken: string): { caller: { sessionToken: string } } {
  return { caller: { sessionToken } };
}

/** A random unique email. */
export function randomEmail(prefix = "person"): string {
  return `${prefix}.${randomBytes(5).toString("hex")}@Example.com`;
}

/** The secret of an otpauth:// URI. */
export function secretOfUri(uri: string): Buffer {
  return Buffer.from(base32nopad.decode(totpSecretOf(uri)));
}

/**
 * A TOTP code for a fresh step: moves the clock one step on first, because a step
 * once used is refused again.
 */
export function freshCode(h: Harness, secret: Buffer): string {
  h.advance(30_000);
  return totpCode(secret, h.now());
}

/** Creates the first platform_admin (MFA enrolled). */
export async function bootstrap(h: Harness, email = randomEmail("admin")): Promise<Person & { uuid: string }> {
  const response = await h.client.bootstrapAdmin({ email });
  const secret = secretOfUri(response.totpUri);
  h.secrets.add(response.password).add(response.totpUri).add(secret.toString("hex"));
  for (const code of response.recoveryCodes) h.secrets.add(code);
  return { email, password: response.password, secret, uuid: response.identity!.uuid };
}

/**
 * Signs a person in (completing MFA with a fresh TOTP code when enrolled) and
 * answers the session token.
 */
export async function signIn(h: Harness, person: Person, transport = "bearer"): Promise<string> {
  const clientIp = randomIp();
  const login = await h.client.login({ email: person.email, password: person.password, transport, clientIp });
  if (login.result.case === "authenticated") {
    h.secrets.add(login.result.value.sessionToken);
    return login.result.value.sessionToken;
  }
  if (login.result.case !== "mfaChallengeToken" || !person.secret) throw new Error("unexpected login result");
  h.secrets.add(login.result.value);
  const done = await h.client.completeMfa({ mfaChallengeToken: login.result.value, code: freshCode(h, person.secret), clientIp });
  h.secrets.add(done.authenticated!.sessionToken);
  return done.authenticated!.sessionToken;
}

/** Creates an identity through an MFA-satisfied admin session. */
export async function createPerson(h: Harness, adminToken: string, roles: string[], email = randomEmail()): Promise<Person & { uuid: string }> {
  const password = `pw-${randomBytes(12).toString("base64url")}`;
  h.secrets.add(password);
  const { identity } = await h.client.createIdentity({ caller: { sessionToken: adminToken }, email, password, roles });
  return { email, password, uuid: identity!.uuid };
}

/**
 * Enrols and confirms TOTP for a person signed in with `token` (whose password is
 * `currentPassword`); answers the secret and recovery codes.
 */
export async function enrolTotp(h: Harness, token: string, currentPassword: string): Promise<{ secret: Buffer; recoveryCodes: string[] }> {
  const { otpauthUri } = await h.client.enrollTotp({ caller: { sessionToken: token }, currentPassword });
  const secret = secretOfUri(otpauthUri);
  h.secrets.add(otpauthUri).add(secret.toString("hex"));
  const { recoveryCodes } = await h.client.confirmTotp({ caller: { sessionToken: token }, code: freshCode(h, secret) });
  for (const code of recoveryCodes) h.secrets.add(code);
  return { secret, recoveryCodes };
}

/** Expects that none of the secrets the tests saw reached the logger. */
export function expectNoSecretsLogged(h: Harness): void {
  const text = h.logLines.join("\n");
  for (const secret of h.secrets) expect(text.includes(secret), "a secret reached the logger").toBe(false);
}
