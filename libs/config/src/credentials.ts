import { createHmac, hash } from "node:crypto";
import { ConfigError, type Reader } from "./index.js";

/**
 * Service credentials. Every internal caller (a process calling a service's
 * RPCs: the API gateway, payins, allocation, the operator CLI, …) presents its
 * own credential `<caller>.<secret>` as `authorization: Bearer <credential>`.
 * A service holds no caller's credential, only its SHA-256 digest per caller
 * name (`SERVICE_CALLER_DIGESTS`), so a compromised service can present its own
 * credential but no other caller's.
 *
 * Locally (npm start, tests, bench) one master secret (`SERVICE_TOKEN`), known
 * only to the launcher and the operator CLI, derives every caller's credential
 * as HMAC-SHA256(master, caller); in production each credential comes from a
 * secret store and the services get the digests.
 */

/** A caller's name: lower-case letters, digits and dashes, starting with a letter. */
export const CALLER_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** Fewest characters of a credential's secret part. */
export const MIN_CREDENTIAL_SECRET = 32;

function checkCallerName(caller: string): void {
  if (!CALLER_NAME.test(caller)) throw new Error(`not a caller name: ${JSON.stringify(caller)}`);
}

/** The credential of `caller` derived from the master secret: `<caller>.<base64url HMAC-SHA256>`. */
export function deriveCredential(master: string, caller: string): string {
  checkCallerName(caller);
  const secret = createHmac("sha256", master).update(`payin service credential\0${caller}`).digest("base64url");
  return `${caller}.${secret}`;
}

/** Hex SHA-256 of a credential: what a service is given to recognise it. */
export function credentialDigest(credential: string): string {
  return hash("sha256", credential, "hex");
}

/** The caller a credential names (the part before the first dot), if it has the credential's shape. */
export function callerOfCredential(credential: string): string | undefined {
  const dot = credential.indexOf(".");
  if (dot <= 0) return undefined;
  const caller = credential.slice(0, dot);
  return CALLER_NAME.test(caller) && credential.length - dot - 1 >= MIN_CREDENTIAL_SECRET ? caller : undefined;
}

/** `SERVICE_CALLER_DIGESTS` for the given callers, derived from the master secret: `api:<hex>,payins:<hex>`. */
export function callerDigestsFor(master: string, callers: readonly string[]): string {
  return callers.map((caller) => `${caller}:${credentialDigest(deriveCredential(master, caller))}`).join(",");
}

/**
 * Parses `<caller>:<64 hex digits>` entries separated by commas (spaces
 * allowed) into digests by caller. Throws an Error naming the problem (never a
 * value) for a malformed entry or a caller named twice.
 */
export function parseCallerDigests(text: string): ReadonlyMap<string, Buffer> {
  const digests = new Map<string, Buffer>();
  for (const entry of text.split(",")) {
    const match = /^\s*([^:\s]+)\s*:\s*([0-9a-fA-F]{64})\s*$/.exec(entry);
    if (!match || !CALLER_NAME.test(match[1]!)) throw new Error("must be a comma-separated list of <caller>:<SHA-256 hex digest>");
    if (digests.has(match[1]!)) throw new Error(`names caller ${match[1]} twice`);
    digests.set(match[1]!, Buffer.from(match[2]!, "hex"));
  }
  return digests;
}

/** A required `SERVICE_CALLER_DIGESTS`-style variable: the digests by caller name. */
export function callerDigests(): Reader<ReadonlyMap<string, Buffer>> {
  return (env, name) => {
    const text = env[name];
    if (text === undefined || text.trim() === "") throw new ConfigError(name, "is required but not set");
    try {
      return parseCallerDigests(text);
    } catch (error) {
      throw new ConfigError(name, (error as Error).message);
    }
  };
}

/**
 * This process's own credential (`SERVICE_CREDENTIAL`): `<caller>.<secret>`
 * naming `caller`, with a secret of at least 32 characters. The value never
 * appears in errors.
 */
export function serviceCredential(caller: string): Reader<string> {
  checkCallerName(caller);
  return (env, name) => {
    const text = env[name];
    if (text === undefined || text === "") throw new ConfigError(name, "is required but not set");
    if (callerOfCredential(text) !== caller) {
      throw new ConfigError(name, `must be the ${caller} caller's credential, ${caller}.<secret of at least ${MIN_CREDENTIAL_SECRET} characters>`);
    }
    return text;
  };
}

/** Like `serviceCredential`, but unset is allowed (undefined): the caller then derives it from the master secret. */
export function optionalServiceCredential(caller: string): Reader<string | undefined> {
  const read = serviceCredential(caller);
  return (env, name) => (env[name] === undefined || env[name] === "" ? undefined : read(env, name));
}
