import { configDefaults, defineConfig } from "vitest/config";

/** Every project's test files live under its src/ or test/. */
const TESTS = "{libs,services,gateways,tools}/*/{src,test}/**";
/** Named tiers, whatever their folder: `*.e2e.test.ts` and `*.browser.test.ts`. */
const NAMED = [`${TESTS}/*.e2e.test.ts`, `${TESTS}/*.browser.test.ts`];

/**
 * What every tier shares. Not `extends: true`: that would give each tier the
 * root's global setup as well, one embedded PostgreSQL per tier.
 */
const tier = { pool: "forks", testTimeout: 60_000, hookTimeout: 120_000 } as const;

export default defineConfig({
  test: {
    // The tiers (docs/testing.md): `vitest run --project unit` runs one; `vitest run` runs all.
    projects: [
      { test: { ...tier, name: "unit", include: ["{libs,services,gateways,tools}/*/src/**/*.test.ts"], exclude: [...configDefaults.exclude, ...NAMED] } },
      { test: { ...tier, name: "service", include: ["{libs,services}/*/test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...NAMED] } },
      { test: { ...tier, name: "e2e", include: ["{gateways,tools}/*/test/**/*.test.ts", `${TESTS}/*.e2e.test.ts`], exclude: [...configDefaults.exclude, `${TESTS}/*.browser.test.ts`] } },
      { test: { ...tier, name: "browser", include: [`${TESTS}/*.browser.test.ts`], globalSetup: ["gateways/checkout/test/browser/global-setup.ts"] } },
    ],
    // The root's global setup runs once per run, whichever tiers run: one PostgreSQL, one log directory.
    globalSetup: ["libs/testing/src/global-setup.ts"],
    maxWorkers: 2,
    teardownTimeout: 30_000,
    reporters: ["default"],
  },
});
