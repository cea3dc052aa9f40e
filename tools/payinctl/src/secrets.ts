/**
 * Secrets a command shows once (the first admin's, a new identity's password)
 * go only where they cannot end up in a log: to a terminal, or to a new file
 * (`--out FILE`, mode 0600) with only the identity and the file's path printed.
 */
import { open, unlink } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "./arguments.js";

/** A failure payinctl reports itself, as `{error:{code,message}}` on stderr. */
export class CliFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Refuses, before anything is read or called, to print secrets to an output that is not a terminal. */
export function checkSecretsDestination(out: string | undefined, group: string, whose: string): void {
  if (out === undefined && !process.stdout.isTTY) {
    throw new UsageError(`stdout is not a terminal: pass --out FILE to have ${whose} written to FILE (mode 0600)`, group);
  }
}

/** Creates `file` for secrets (mode 0600); an existing file is refused, never overwritten. */
async function openSecretsFile(file: string) {
  try {
    return await open(file, "wx", 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new CliFailure("OUT_FILE_EXISTS", `${file} exists; --out must name a new file`);
    throw new CliFailure("OUT_FILE_UNWRITABLE", `cannot create ${file} (${code ?? "error"})`);
  }
}

/**
 * Runs `issue`, which makes secrets and answers them with the identity they
 * belong to. With `out`, the file is created first (secrets are only made once
 * they have a place to go; removed again if `issue` fails), receives the whole
 * answer, and what is returned for printing is the identity and the file's path.
 */
export async function issueSecrets<S extends { identity: unknown }>(
  out: string | undefined,
  issue: () => Promise<S>,
): Promise<S | { identity: S["identity"]; secrets_file: string }> {
  if (out === undefined) return issue();
  const file = path.resolve(out);
  const handle = await openSecretsFile(file);
  let secrets: S;
  try {
    secrets = await issue();
  } catch (error) {
    await handle.close();
    await unlink(file);
    throw error;
  }
  try {
    await handle.writeFile(`${JSON.stringify(secrets)}\n`);
  } finally {
    await handle.close();
  }
  return { identity: secrets.identity, secrets_file: file };
}
