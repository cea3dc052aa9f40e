/**
 * Which Chromium the browser tests drive, found once per run by the browser
 * tier's global setup (global-setup.ts) and handed to the test files.
 */
import { accessSync, constants, statSync } from "node:fs";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Chromium the browser tests launch (see chooseBrowser in @payin/testing). */
    browserExecutable: string;
    /** The Chromium `npm ci` brought, unpacked; "" where the package has no binary for this machine. */
    bundledChromium: string;
  }
}

/** Whether `file` is a regular file this process may execute. */
export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** @sparticuz/chromium ships one Chromium build: Linux on x64. */
export const BUNDLED_CHROMIUM_RUNS_HERE = process.platform === "linux" && process.arch === "x64";

/**
 * The path of the Chromium inside @sparticuz/chromium, unpacked into the
 * system's temporary directory on first use (about 190 MB; kept for later
 * runs). Only its binary is used: the package's serverless launch arguments
 * make pages crash under Playwright.
 */
export async function unpackBundledChromium(): Promise<string> {
  const { default: chromium } = await import("@sparticuz/chromium");
  return chromium.executablePath();
}
