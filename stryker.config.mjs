// Mutation testing of the money path: `npm run test:mutation` (see docs/testing.md).
// It runs the unit tests beside each mutated module (vitest.mutation.config.ts),
// so it needs no database. It is not part of `npm test` or CI: it is CPU heavy.

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts", related: true },
  plugins: ["@stryker-mutator/vitest-runner"],
  coverageAnalysis: "perTest",
  mutate: [
    "libs/money/src/**/*.ts",
    "libs/eligibility/src/**/*.ts",
    "services/payins/src/domain/**/*.ts",
    "libs/ids/src/countries.ts",
    "services/allocation/src/domain/hd.ts",
    "services/allocation/src/domain/observation/chain-view.ts",
    "services/allocation/src/domain/observation/matching.ts",
    "services/allocation/src/domain/observation/witness.ts",
    "libs/rails/src/rails.ts",
    "libs/rails/src/minimum.ts",
    "libs/otp/src/**/*.ts",
    "services/identity/src/domain/totp.ts",
    "services/identity/src/domain/password.ts",
    "gateways/checkout/src/presentation/{presentation-state,payer-view,evidence,payment-terms,decimal,time,qr,start-refusal}.ts",
    "libs/operations/src/{audit,views}.ts",
    "libs/rpc/src/actor-assertion.ts",
    "libs/http/src/rate-limit-key.ts",
    "libs/permissions/src/merchant-access.ts",
    "services/notifications/src/domain/{retry-schedule,signing,webhook-url}.ts",
    "!**/*.test.ts",
  ],
  // Only what the unit tests load goes into the sandboxes.
  ignorePatterns: ["/*", "!/libs", "!/services", "!/gateways", "!/package.json", "!/tsconfig.base.json", "!/vitest.mutation.config.ts", "/services/*/test", "/gateways/*/test"],
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ["clear-text", "progress", "json", "html"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  tempDirName: "tmp/stryker",
  cleanTempDir: true,
};
