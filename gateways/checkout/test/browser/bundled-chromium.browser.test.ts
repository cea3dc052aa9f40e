/**
 * The Chromium `npm ci` brings (@sparticuz/chromium) renders a page of the
 * checkout: the browser the browser tests fall back to on a machine with none
 * installed, launched here on every run, also where CI installs Debian's and
 * sets CHROMIUM_PATH. One page, served by the checkout gateway alone (its
 * sign-in form calls no service until it is posted).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { GATEWAYS, startProcess, stopProcess, type RunningProcess } from "@payin/launcher";
import { freePort } from "@payin/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { expectNoSeriousAxeViolations, launchBrowser, newContext, textOf, watchPageProblems } from "./browser.js";
import { BUNDLED_CHROMIUM_RUNS_HERE } from "./executable.js";

let gateway: RunningProcess | undefined;
let browser: Browser | undefined;

// The package has a binary for Linux on x64 only; elsewhere there is nothing to fall back to.
describe.runIf(BUNDLED_CHROMIUM_RUNS_HERE)("the bundled Chromium", () => {
  beforeAll(async () => {
    // No service listens here: a call to one would fail the page, which this test would see.
    const noService = `http://127.0.0.1:${await freePort()}`;
    gateway = await startProcess(GATEWAYS.find((spec) => spec.name === "checkout")!, {
      env: {
        CHECKOUT_PORT: String(await freePort()),
        SERVICE_TOKEN: randomBytes(32).toString("base64url"),
        IDENTITY_URL: noService,
        PAYINS_URL: noService,
        MERCHANTS_URL: noService,
        ALLOCATION_URL: noService,
        REDIS_URL: undefined,
        LOG_LEVEL: "info",
      },
      output: path.join(inject("testLogDir"), `bundled-chromium-checkout-${randomBytes(4).toString("hex")}.log`),
    });
    browser = await launchBrowser(inject("bundledChromium"));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    if (gateway) await stopProcess(gateway);
  }, 30_000);

  it("loads NSS, NSPR and expat from the libraries unpacked beside it, so a machine without them can run it", () => {
    const libraries = inject("bundledLibraries");
    const linked = spawnSync("ldd", [inject("bundledChromium")], { encoding: "utf8", env: { ...process.env, LD_LIBRARY_PATH: libraries } });
    expect(linked.status).toBe(0);
    expect(linked.stdout).not.toContain("not found");
    for (const library of ["libnss3.so", "libnspr4.so", "libexpat.so.1"]) {
      expect(linked.stdout).toContain(`${library} => ${path.join(libraries, library)}`);
    }
  });

  it("shows the merchant sign-in page, its form and no script or CSP error", async () => {
    const context = await newContext(browser!, `http://127.0.0.1:${gateway!.port}`);
    const page = await context.newPage();
    const problems = watchPageProblems(page);
    const response = await page.goto("/merchant/login");
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe("Sign in · Merchant area");
    expect(await textOf(page.locator("h1"))).toBe("Sign in to the merchant area");
    expect(await page.getByLabel("Email address").isVisible()).toBe(true);
    expect(await page.getByLabel("Password").isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Sign in" }).isVisible()).toBe(true);
    expect(await textOf(page.locator("main"))).toContain("there is no self-registration");
    await expectNoSeriousAxeViolations(page, "merchant sign-in in the bundled Chromium");
    expect(problems).toEqual([]);
    await context.close();
  });
});
