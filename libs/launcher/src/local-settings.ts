import { randomBytes } from "node:crypto";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { REPO_ROOT } from "./paths.js";


/** The local stack's data directory (`.data/` at the repository root, or PAYIN_DATA_DIR). */
export function dataDir(): string {
  return process.env.PAYIN_DATA_DIR ?? path.join(REPO_ROOT, ".data");
}

/**
 * The master secret every internal caller's credential is derived from (see
 * processEnv): SERVICE_TOKEN when set, else the one the local stack keeps in
 * .data/service-token (mode 0600), created on first start. Only launchers and
 * the operator CLI read it; no service process is given it.
 */
export async function readServiceToken(options: { create: boolean }): Promise<string> {
  return readLocalSecret("SERVICE_TOKEN", "service-token", options);
}

/**
 * The key TOTP secrets are encrypted with: TOTP_ENCRYPTION_KEY when set, else the
 * local stack's .data/totp-encryption-key (mode 0600), created on first start.
 */
export async function readTotpEncryptionKey(options: { create: boolean }): Promise<string> {
  return readLocalSecret("TOTP_ENCRYPTION_KEY", "totp-encryption-key", options);
}

async function readLocalSecret(variable: string, fileName: string, options: { create: boolean }): Promise<string> {
  const fromEnv = process.env[variable];
  if (fromEnv) return fromEnv;
  const file = path.join(dataDir(), fileName);
  try {
    return (await readFile(file, "utf8")).trim();
  } catch {
    if (!options.create) {
      throw new Error(`${variable} is not set and .data/${fileName} does not exist: start the platform with npm start first`);
    }
  }
  const token = randomBytes(32).toString("base64url");
  await mkdir(dataDir(), { recursive: true });
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  return token;
}
