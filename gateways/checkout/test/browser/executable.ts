/**
 * Which Chromium the browser tests drive, found once per run by the browser
 * tier's global setup (global-setup.ts) and handed to the test files.
 */
import { accessSync, constants, createReadStream, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress } from "node:zlib";
import { extract } from "tar-fs";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Chromium the browser tests launch (see chooseBrowser in @payin/testing). */
    browserExecutable: string;
    /** The Chromium `npm ci` brought, unpacked; "" where the package has no binary for this machine. */
    bundledChromium: string;
    /** The shared libraries the bundled Chromium needs (NSS, NSPR, expat), unpacked beside it. */
    bundledLibraries: string;
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

/** Where the bundled Chromium and its libraries are unpacked: one directory per package version. */
function unpackDirectory(): string {
  const require = createRequire(import.meta.url);
  // The package's entry is build/cjs/index.cjs; its brotli files are in bin/ beside build/.
  const packageDir = path.resolve(path.dirname(require.resolve("@sparticuz/chromium")), "..", "..");
  const version = (require(path.join(packageDir, "package.json")) as { version: string }).version;
  return path.join(os.tmpdir(), `payin-chromium-${version}`);
}

/**
 * The Chromium inside @sparticuz/chromium, unpacked on first use (about 190 MB,
 * kept for later runs) into a directory of its own, with the shared libraries it
 * needs that a machine without a browser may lack (NSS, NSPR, expat: the
 * package's `al2023` archive, which the package itself unpacks only on AWS).
 * A directory without its completion mark (an unpack that was cut short) is
 * unpacked again. Only the binary is used, not the package's serverless launch
 * arguments, which make pages crash under Playwright.
 */
export async function unpackBundledChromium(): Promise<{ executable: string; libraries: string }> {
  const dir = unpackDirectory();
  const complete = path.join(dir, ".complete");
  const libraries = path.join(dir, "al2023", "lib");
  if (!existsSync(complete)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  const { default: chromium } = await import("@sparticuz/chromium");
  // The package unpacks into os.tmpdir(), which follows TMPDIR at each call.
  const tmpdir = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    const executable = await chromium.executablePath();
    if (!existsSync(libraries)) {
      const archive = path.join(path.dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")), "..", "..", "bin", "al2023.tar.br");
      await pipeline(createReadStream(archive), createBrotliDecompress(), extract(path.join(dir, "al2023")));
    }
    writeFileSync(complete, "");
    return { executable, libraries };
  } finally {
    if (tmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdir;
  }
}
