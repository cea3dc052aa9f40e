import path from "node:path";
import { fileURLToPath } from "node:url";

/** Root of the repository (this file is libs/launcher/src/paths.ts). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
