import { describe, expect, it } from "vitest";
import { chooseBrowser } from "./browser-executable.js";

/** Probes over a machine that has exactly the executables in `files`. */
function machine(env: Record<string, string | undefined>, files: string[] = []) {
  const seen: string[] = [];
  const probes = {
    env,
    isExecutable: (file: string) => {
      seen.push(file);
      return files.includes(file);
    },
  };
  return { probes, seen };
}

describe("chooseBrowser", () => {
  it("takes CHROMIUM_PATH when it is set, without looking further, even at a path that does not exist", () => {
    const { probes, seen } = machine({ CHROMIUM_PATH: "/opt/chrome/chrome", PATH: "/usr/bin" }, ["/usr/bin/chromium"]);
    expect(chooseBrowser(probes)).toEqual({ source: "CHROMIUM_PATH", path: "/opt/chrome/chrome" });
    expect(seen).toEqual([]);
  });

  it("ignores a CHROMIUM_PATH of white space only", () => {
    const { probes } = machine({ CHROMIUM_PATH: "  ", PATH: "/usr/bin" }, ["/usr/bin/chromium"]);
    expect(chooseBrowser(probes)).toEqual({ source: "system", path: "/usr/bin/chromium" });
  });

  it("takes Debian's /usr/bin/chromium first, even when PATH does not name /usr/bin", () => {
    const { probes } = machine({ PATH: "/usr/local/bin" }, ["/usr/local/bin/chromium", "/usr/bin/chromium"]);
    expect(chooseBrowser(probes)).toEqual({ source: "system", path: "/usr/bin/chromium" });
  });

  it("finds chromium on PATH in PATH's order, before chromium-browser", () => {
    const { probes } = machine({ PATH: "/opt/a:/opt/b" }, ["/opt/a/chromium-browser", "/opt/b/chromium"]);
    expect(chooseBrowser(probes)).toEqual({ source: "system", path: "/opt/b/chromium" });
    const first = machine({ PATH: "/opt/a:/opt/b" }, ["/opt/a/chromium", "/opt/b/chromium"]);
    expect(chooseBrowser(first.probes)).toEqual({ source: "system", path: "/opt/a/chromium" });
  });

  it("finds chromium-browser on PATH when there is no chromium", () => {
    const { probes } = machine({ PATH: "/usr/local/bin:/snap/bin" }, ["/snap/bin/chromium-browser"]);
    expect(chooseBrowser(probes)).toEqual({ source: "system", path: "/snap/bin/chromium-browser" });
  });

  it("does not look in the current directory (empty or relative PATH entries)", () => {
    const { probes, seen } = machine({ PATH: ":bin:/usr/local/bin:" }, ["chromium", "bin/chromium"]);
    expect(chooseBrowser(probes)).toEqual({ source: "bundled" });
    expect(seen).toEqual(["/usr/bin/chromium", "/usr/local/bin/chromium", "/usr/local/bin/chromium-browser"]);
  });

  it("falls back to the bundled Chromium when none is installed, also without PATH", () => {
    expect(chooseBrowser(machine({ PATH: "/usr/local/bin:/usr/bin:/bin" }).probes)).toEqual({ source: "bundled" });
    expect(chooseBrowser(machine({}).probes)).toEqual({ source: "bundled" });
  });
});
