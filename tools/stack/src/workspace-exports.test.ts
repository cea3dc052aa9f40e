import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "@payin/launcher";
import { expect, it } from "vitest";

/** Every target of a package.json `exports` map (conditions and subpaths included). */
function targets(exports: unknown): string[] {
  if (typeof exports === "string") return [exports];
  if (exports && typeof exports === "object") return Object.values(exports).flatMap(targets);
  return [];
}

it("every workspace package exports only files that exist", () => {
  const root = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { workspaces: string[] };
  const missing: string[] = [];
  let packages = 0;
  for (const pattern of root.workspaces) {
    const parent = path.join(REPO_ROOT, pattern.replace(/\/\*$/, ""));
    for (const name of readdirSync(parent)) {
      const file = path.join(parent, name, "package.json");
      if (!existsSync(file)) continue;
      packages++;
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { exports?: unknown; main?: string };
      for (const target of [...targets(pkg.exports), ...(pkg.main ? [pkg.main] : [])]) {
        if (!existsSync(path.join(parent, name, target))) missing.push(`${path.relative(REPO_ROOT, file)}: ${target}`);
      }
    }
  }
  expect(packages).toBeGreaterThan(20);
  expect(missing).toEqual([]);
});
