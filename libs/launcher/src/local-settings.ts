import { randomBytes } from "node:crypto";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { REPO_ROOT } from "./paths.js";


/** The local stack's data directory (`.data/` at the repository root, or PAYIN_DATA_DIR). */
export function dataDir(): string {
  return process.env.PAYIN_DATA_DIR ?? path.join(REPO_ROOT, ".data");
}

/**
 * The internal service token: SERVICE_TOKEN when set, else the one the local
 * stack keeps in .data/service-token (mode 0600), created on first start.
 */
export async function readServiceToken(options: { create: boolean }): Promise<string> {
  if (process.env.SERVICE_TOKEN) return process.env.SERVICE_TOKEN;
  const file = path.join(dataDir(), "service-token");
  try {
    return (await readFile(file, "utf8")).trim();
  } catch (error) {
    if (!options.create) {
      throw new Error("SERVICE_TOKEN is not set and .data/service-token does not exist: start the platform with npm start first");
    }
    void error;
  }
  const token = randomBytes(32).toString("base64url");
  await mkdir(dataDir(), { recursive: true });
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  return token;
}
