/**
 * The browser tests' harness: Chromium (the one the tier's global setup chose:
 * CHROMIUM_PATH, an installed one, else the one `npm ci` brought) driven by
 * playwright-core, an axe-core scan, screenshots at the widths a payer and a
 * merchant use, and a QR decoder that reads the code as a wallet's camera
 * would (from pixels).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import axe from "axe-core";
import jsQR from "jsqr";
import { PNG } from "pngjs";
import { chromium, type Browser, type BrowserContext, type Locator, type Page, type Request, type Response } from "playwright-core";
import { REPO_ROOT } from "@payin/launcher";
import { expect, inject } from "vitest";
import "./executable.js";

// In-page code (page.evaluate) runs in the browser; this project compiles without the DOM library.
declare const document: any;

/** Where the screenshots go (git-ignored). */
export const SCREENSHOT_DIR = path.join(REPO_ROOT, "tmp", "screenshots");

/** The widths every page is looked at: a small phone, a common phone, a desktop. */
export const WIDTHS = [320, 390, 1280] as const;

/** How long a page may take to answer on a busy 2-core machine. */
export const PAGE_TIMEOUT_MS = 30_000;

/**
 * Launches Chromium headless: by default the one the browser tier's global
 * setup chose. Playwright's own arguments, plus no sandbox (tests run as root
 * in CI containers).
 */
export function launchBrowser(executablePath: string = inject("browserExecutable")): Promise<Browser> {
  if (!executablePath) throw new Error("no Chromium was chosen: browser tests run in vitest's browser project (npm run test:browser), whose global setup chooses it");
  // The bundled Chromium finds the libraries unpacked beside it (a machine without a browser may have none of them).
  const libraries = executablePath === inject("bundledChromium") ? inject("bundledLibraries") : "";
  const env = libraries ? { ...process.env, LD_LIBRARY_PATH: [libraries, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":") } : undefined;
  return chromium.launch({ executablePath, headless: true, args: ["--no-sandbox"], env });
}

const scriptlessContexts = new WeakSet<BrowserContext>();

/**
 * A fresh browser profile (cookies of its own) at 390 px, German-free English,
 * with the clipboard allowed for the copy buttons; `javaScript: false` is a
 * browser with JavaScript turned off.
 */
export async function newContext(browser: Browser, baseURL: string, options: { javaScript?: boolean } = {}): Promise<BrowserContext> {
  const javaScript = options.javaScript ?? true;
  const context = await browser.newContext({
    baseURL,
    javaScriptEnabled: javaScript,
    viewport: { width: 390, height: 844 },
    locale: "en-GB",
    timezoneId: "UTC",
    // Clipboard permissions need a script to use them; Chromium refuses them for a JavaScript-less context.
    ...(javaScript ? { permissions: ["clipboard-read", "clipboard-write"] } : {}),
  });
  if (!javaScript) scriptlessContexts.add(context);
  context.setDefaultTimeout(PAGE_TIMEOUT_MS);
  context.setDefaultNavigationTimeout(PAGE_TIMEOUT_MS);
  return context;
}

/**
 * Collects what went wrong in the page itself: a script error, or something
 * the CSP refused (an inline script or style would be). A test expects none.
 */
export function watchPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy|Refused to/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  return problems;
}

/** The page's visible text with runs of white space made one space. */
export async function textOf(locator: Locator): Promise<string> {
  return ((await locator.innerText()) ?? "").replace(/\s+/g, " ").trim();
}

/**
 * Screenshots the whole page at each of WIDTHS as `<name>-<width>.png` and
 * checks that at 320 px nothing runs off the side (no horizontal scrolling);
 * leaves the page at 390 px.
 */
export async function screenshotAtWidths(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    if (width === 320) {
      // Reading layout forces it at the new width (no animation frame: with JavaScript off none comes).
      const overflow = await page.evaluate(() => {
        const doc = document.documentElement;
        const wide = [...document.querySelectorAll("body *")]
          .filter((element) => element.getBoundingClientRect().right > doc.clientWidth + 0.5)
          .slice(0, 5)
          .map((element) => `<${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ""}${element.className ? `.${String(element.className).split(" ").join(".")}` : ""}> right=${Math.round(element.getBoundingClientRect().right)}`);
        return { scrollWidth: doc.scrollWidth, wide };
      });
      expect(overflow.scrollWidth, `${name} at 320 px scrolls sideways; widest: ${overflow.wide.join(", ")}`).toBeLessThanOrEqual(320);
    }
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 390, height: 844 });
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[]; failureSummary?: string; html: string }[];
}

/**
 * Runs axe-core (WCAG 2.0/2.1/2.2 A and AA rules plus best practices) on the
 * page as it stands and fails, listing them readably, on any serious or
 * critical violation. axe is evaluated through the DevTools protocol, which
 * the page's strict CSP does not govern, so the page keeps its real headers.
 */
export async function expectNoSeriousAxeViolations(page: Page, label: string): Promise<void> {
  if (!scriptlessContexts.has(page.context())) return runAxe(page, label);
  // axe waits on timers, which never fire while scripts are off. So the page
  // as the script-less browser got it is scanned in a browser with scripts on,
  // served the same document, with its styles and without its scripts.
  const html = await page.content();
  const url = page.url();
  const scan = await page.context().browser()!.newContext({ viewport: page.viewportSize() ?? undefined, locale: "en-GB" });
  try {
    await scan.route("**/*.js", (route) => route.abort());
    await scan.route((candidate) => candidate.href === url, (route) => route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: html }));
    const replica = await scan.newPage();
    await replica.goto(url, { timeout: PAGE_TIMEOUT_MS });
    await runAxe(replica, `${label} (as served without JavaScript)`);
  } finally {
    await scan.close();
  }
}

async function runAxe(page: Page, label: string): Promise<void> {
  const loaded = await page.evaluate(`(() => { if (!window.axe) { ${axe.source}\n } return typeof window.axe?.run === "function"; })()`);
  expect(loaded, `axe-core did not load in ${label}`).toBe(true);
  const result = (await page.evaluate(`window.axe.run(document, { resultTypes: ["violations"] }).then((r) => ({ violations: r.violations, passes: r.passes.length, url: r.url }))`)) as {
    violations: AxeViolation[];
    passes: number;
    url: string;
  };
  // axe that checked nothing proves nothing: a real page passes dozens of checks.
  expect(result.passes, `axe ran no check in ${label}`).toBeGreaterThan(5);
  const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const readable = serious
    .map((v) => `- [${v.impact}] ${v.id}: ${v.help} (${v.helpUrl})\n${v.nodes.map((n) => `    at ${n.target.join(" ")}: ${n.html.slice(0, 160)}\n      ${(n.failureSummary ?? "").replace(/\n/g, "\n      ")}`).join("\n")}`)
    .join("\n");
  expect(serious.length, `axe found serious or critical violations in ${label} (${result.url}):\n${readable}`).toBe(0);
}

/** Errors that mean the page navigated under a step (a meta refresh, the status script's reload): the step is taken again. */
const NAVIGATED = /Execution context was destroyed|navigat|frame was detached|Target page, context or browser has been closed|not attached to the DOM/i;

/** Runs `step`; when the page navigated under it, waits for the new page and runs it again (a few times at most). */
export async function onSettledPage<T>(page: Page, step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (attempt >= 4 || !NAVIGATED.test(String((error as Error)?.message))) throw error;
      await page.waitForLoadState("load");
    }
  }
}

/** Screenshots and axe together: what every page visited goes through. */
export async function inspectPage(page: Page, name: string): Promise<void> {
  await onSettledPage(page, async () => {
    await expectNoSeriousAxeViolations(page, name);
    await screenshotAtWidths(page, name);
  });
}

/**
 * Decodes the QR code drawn in `element` from a screenshot of it, as a camera
 * would see it: the text it holds, or null when no code can be read.
 */
export async function decodeQr(element: Locator): Promise<string | null> {
  return onSettledPage(element.page(), async () => {
    await element.scrollIntoViewIfNeeded();
    const png = PNG.sync.read(await element.screenshot({ animations: "disabled" }));
    const code = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.byteLength), png.width, png.height);
    return code?.data ?? null;
  });
}

/** The first request of a redirect chain (the form's post, when the post was redirected). */
function firstOf(request: Request): Request {
  let first = request;
  for (let previous = first.redirectedFrom(); previous; previous = previous.redirectedFrom()) first = previous;
  return first;
}

/**
 * Submits a form by `act` (a click, a key press) and waits until the page it
 * leads to (after any redirect) is shown; fails, quoting that page, when the
 * post's status is not `expected` (by default: any success or redirect).
 */
export async function submitForm(page: Page, act: () => Promise<void>, expected?: number): Promise<void> {
  // Settles to the error instead of rejecting, so a failing `act` leaves no unhandled rejection behind.
  const landed = page
    .waitForResponse((res) => res.request().isNavigationRequest() && res.frame() === page.mainFrame() && (res.status() < 300 || res.status() >= 400) && firstOf(res.request()).method() === "POST")
    .catch((error: Error) => error);
  // What the page loaded meanwhile, to say what happened instead when no post is answered.
  const seen: string[] = [];
  const note = (res: Response) => {
    if (res.request().isNavigationRequest()) seen.push(`${res.request().method()} ${new URL(res.url()).pathname} ${res.status()}`);
  };
  page.on("response", note);
  let final: Response;
  try {
    await act();
    const outcome = await landed;
    if (outcome instanceof Error) throw new Error(`no form post was answered (${outcome.message}); the page loaded meanwhile: ${seen.join(", ") || "nothing"}`);
    final = outcome;
  } finally {
    page.off("response", note);
  }
  await page.waitForURL((url) => url.href === final.url());
  const post = firstOf(final.request());
  const status = post === final.request() ? final.status() : ((await post.response())?.status() ?? 0);
  if (expected === undefined ? status >= 400 : status !== expected) {
    const text = (await page.locator("body").innerText().catch(() => "")).replace(/\s+/g, " ").slice(0, 400);
    throw new Error(`the form post to ${post.url()} answered ${status}, not ${expected ?? "a success"} (Origin sent: ${(await post.headerValue("origin")) ?? "none"}): ${text}`);
  }
}

/** Waits until `predicate` holds of the text of `locator`; fails with the last text seen. */
export async function waitForText(locator: Locator, predicate: (text: string) => boolean, what: string, timeoutMs = PAGE_TIMEOUT_MS): Promise<string> {
  const started = Date.now();
  let last = "";
  for (;;) {
    try {
      if ((await locator.count()) > 0) last = await textOf(locator.first());
    } catch {
      // The page was navigating (a reload by the status script); look again.
    }
    if (predicate(last)) return last;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}; last text: ${JSON.stringify(last.slice(0, 500))}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
