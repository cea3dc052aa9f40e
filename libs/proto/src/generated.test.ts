import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const committed = path.join(root, "libs/proto/src/gen");
const scratch = mkdtempSync(path.join(os.tmpdir(), "proto-gen-"));

function files(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full, base) : [path.relative(base, full)];
  });
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("generated protobuf code", () => {
  it("is exactly what buf generate makes from proto/ (run npm run proto:generate)", () => {
    const template = path.join(scratch, "buf.gen.yaml");
    const out = path.join(scratch, "gen");
    const original = readFileSync(path.join(root, "proto/buf.gen.yaml"), "utf8");
    writeFileSync(template, original.replace(/out: .*/, `out: ${out}`));
    execFileSync(path.join(root, "node_modules/.bin/buf"), ["generate", "proto", "--template", template], { cwd: root });
    const expected = files(out).sort();
    expect(files(committed).sort()).toEqual(expected);
    for (const file of expected) {
      expect(readFileSync(path.join(committed, file), "utf8"), file).toBe(readFileSync(path.join(out, file), "utf8"));
    }
  });
});
