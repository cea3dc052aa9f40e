import path from "node:path";

/** Where the browser tests' Chromium comes from. */
export type BrowserChoice =
  /** CHROMIUM_PATH names it: used as it is, even when it does not exist (the launch then says so). */
  | { source: "CHROMIUM_PATH"; path: string }
  /** A Chromium installed on the machine (Debian's package, or one on PATH). */
  | { source: "system"; path: string }
  /** None installed: the one `npm ci` brought (`@sparticuz/chromium`, unpacked on first use). */
  | { source: "bundled" };

/** What the choice looks at: the environment and whether a file is an executable. */
export interface BrowserProbes {
  env: Readonly<Record<string, string | undefined>>;
  isExecutable(file: string): boolean;
}

/** Debian's chromium package installs it here. */
export const SYSTEM_CHROMIUM = "/usr/bin/chromium";
/** The names a system Chromium goes by on PATH. */
export const CHROMIUM_COMMANDS = ["chromium", "chromium-browser"] as const;

/**
 * Chooses the browser the tests drive: CHROMIUM_PATH when set; else a system
 * Chromium (SYSTEM_CHROMIUM, then each of CHROMIUM_COMMANDS on PATH, in PATH's
 * order); else the bundled one. There is always a choice: the browser tests
 * are never skipped for want of a browser.
 */
export function chooseBrowser(probes: BrowserProbes): BrowserChoice {
  const configured = probes.env.CHROMIUM_PATH?.trim();
  if (configured) return { source: "CHROMIUM_PATH", path: configured };
  if (probes.isExecutable(SYSTEM_CHROMIUM)) return { source: "system", path: SYSTEM_CHROMIUM };
  // An empty entry of PATH means the current directory, which is no place to look for a browser.
  const dirs = (probes.env.PATH ?? "").split(path.delimiter).filter((dir) => path.isAbsolute(dir));
  for (const command of CHROMIUM_COMMANDS) {
    for (const dir of dirs) {
      const candidate = path.join(dir, command);
      if (probes.isExecutable(candidate)) return { source: "system", path: candidate };
    }
  }
  return { source: "bundled" };
}
