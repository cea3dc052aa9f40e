/**
 * The operator's own sign-in: `payinctl login` signs a person in with email,
 * password and TOTP (a bearer session, identity's rules: throttling, MFA) and
 * keeps the session token in a file only its OS user can read; every later
 * command acts as that person until `payinctl logout` or the session ends.
 * Commands that grant trust or move money need that person, with the API's
 * permission and a recent second factor; without one payinctl can only read and
 * recover people (docs/security.md).
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Client } from "@connectrpc/connect";
import type { identityV1 } from "@payin/proto";
import { ConnectError, fromTimestamp } from "@payin/rpc";
import { CliFailure } from "./secrets.js";

/** Where the session token is kept: PAYINCTL_SESSION_FILE, else $XDG_CONFIG_HOME/payinctl/session, else ~/.config/payinctl/session. */
export function sessionFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PAYINCTL_SESSION_FILE) return env.PAYINCTL_SESSION_FILE;
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  return path.join(base, "payinctl", "session");
}

/** The person a command acts for: their session token (identity's Caller) and identity's principal, with its actor assertion. */
export interface SignedInPerson {
  sessionToken: string;
  principal: identityV1.Principal;
}

interface KeptSession {
  session_token: string;
}

/** The session kept by `payinctl login`, if any. A file that cannot be read as one is ignored. */
async function keptToken(file: string): Promise<string | null> {
  try {
    const kept = JSON.parse(await readFile(file, "utf8")) as KeptSession;
    return typeof kept.session_token === "string" && kept.session_token !== "" ? kept.session_token : null;
  } catch {
    return null;
  }
}

/**
 * The signed-in person, or null when nobody signed in. A kept session identity
 * no longer accepts (expired, signed out elsewhere, identity disabled) is
 * `ended`: commands that need a person then say to sign in again.
 */
export async function signedInPerson(identity: Client<typeof identityV1.IdentityService>, file: string): Promise<SignedInPerson | "ended" | null> {
  const token = await keptToken(file);
  if (!token) return null;
  try {
    const { principal } = await identity.authenticate({ token });
    return principal ? { sessionToken: token, principal } : "ended";
  } catch (error) {
    if (error instanceof ConnectError && error.code === 16 /* Unauthenticated */) return "ended";
    throw error;
  }
}

/**
 * Refuses a command that needs a person unless one signed in who holds
 * `permission` and completed their second factor within identity's recent window.
 */
export function requirePerson(person: SignedInPerson | "ended" | null, permission: string, now: Date): SignedInPerson {
  if (person === null) throw new CliFailure("SIGN_IN_REQUIRED", "this command needs a person signed in with a second factor: run payinctl login first");
  if (person === "ended") throw new CliFailure("SIGN_IN_REQUIRED", "your payinctl session has ended: run payinctl login again");
  if (!person.principal.permissions.includes(permission)) throw new CliFailure("FORBIDDEN", `the signed-in person lacks the ${permission} permission`);
  const recentUntil = fromTimestamp(person.principal.mfaRecentUntil);
  if (!recentUntil || now.getTime() > recentUntil.getTime()) {
    throw new CliFailure("MFA_REQUIRED", "this command needs a second factor completed within the last 15 minutes: run payinctl login again");
  }
  return person;
}

/** Lines of stdin: what `payinctl login` reads its password and code from (never its arguments, which other users can see). */
export async function readInputLines(count: number, prompts: readonly string[]): Promise<string[]> {
  const stdin = process.stdin;
  if (stdin.isTTY) {
    const lines: string[] = [];
    for (const prompt of prompts.slice(0, count)) lines.push(await readHidden(prompt));
    return lines;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").split(/\r?\n/).slice(0, count);
}

/** One line typed at a terminal, not echoed. */
function readHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    let line = "";
    const done = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      if (error) reject(error);
      else resolve(line);
    };
    const onData = (data: Buffer) => {
      for (const char of data.toString("utf8")) {
        if (char === "\r" || char === "\n") return done();
        if (char === "\u0003") return done(new CliFailure("CANCELLED", "sign-in cancelled"));
        if (char === "\u007f" || char === "\b") line = line.slice(0, -1);
        else line += char;
      }
    };
    stdin.on("data", onData);
  });
}

/** Signs `email` in with a password and a TOTP (or recovery) code, and keeps the session in `file` (mode 0600). */
export async function logIn(
  identity: Client<typeof identityV1.IdentityService>,
  file: string,
  email: string,
  secrets: { password: string; code: string },
): Promise<identityV1.Session> {
  const started = await identity.login({ email, password: secrets.password, transport: "bearer" });
  if (started.result.case !== "mfaChallengeToken") {
    // A person without a second factor cannot act through payinctl: end the session at once.
    if (started.result.case === "authenticated") await identity.logout({ caller: { sessionToken: started.result.value.sessionToken } }).catch(() => undefined);
    throw new CliFailure("MFA_REQUIRED", "payinctl signs in only people with a second factor: enrol TOTP first");
  }
  const { authenticated } = await identity.completeMfa({ mfaChallengeToken: started.result.value, code: secrets.code });
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  // Replaced whole, never appended: the new file is written with mode 0600 from its first byte.
  await rm(file, { force: true });
  await writeFile(file, `${JSON.stringify({ session_token: authenticated!.sessionToken } satisfies KeptSession)}\n`, { mode: 0o600, flag: "wx" });
  return authenticated!.session!;
}

/** Ends the kept session (at identity too, when it still exists) and removes the file; true when there was one. */
export async function logOut(identity: Client<typeof identityV1.IdentityService>, file: string): Promise<boolean> {
  const token = await keptToken(file);
  if (token) await identity.logout({ caller: { sessionToken: token } }).catch(() => undefined);
  await rm(file, { force: true });
  return token !== null;
}
