/**
 * The browser tier's global setup: chooses the Chromium once per run and
 * unpacks the bundled one here, in one process, so that two test files never
 * unpack it into the same place at once (the package checks only that the file
 * exists, not that it is complete).
 */
import { chooseBrowser } from "@payin/testing";
import type { TestProject } from "vitest/node";
import { BUNDLED_CHROMIUM_RUNS_HERE, isExecutable, unpackBundledChromium } from "./executable.js";

export async function setup(project: TestProject): Promise<void> {
  // The bundled Chromium is unpacked even when another one is chosen: the fallback test launches it on every run.
  const { executable: bundled, libraries } = BUNDLED_CHROMIUM_RUNS_HERE ? await unpackBundledChromium() : { executable: "", libraries: "" };
  const choice = chooseBrowser({ env: process.env, isExecutable });
  if (choice.source === "bundled" && !bundled) {
    throw new Error(`no Chromium for the browser tests: set CHROMIUM_PATH or install chromium (the bundled @sparticuz/chromium runs on Linux x64 only, this is ${process.platform} ${process.arch})`);
  }
  const executable = choice.source === "bundled" ? bundled : choice.path;
  project.provide("bundledChromium", bundled);
  project.provide("bundledLibraries", libraries);
  project.provide("browserExecutable", executable);
  process.stdout.write(`browser tests: Chromium ${executable} (${choice.source === "CHROMIUM_PATH" ? "CHROMIUM_PATH" : choice.source === "system" ? "installed" : "bundled, none installed"})\n`);
}
