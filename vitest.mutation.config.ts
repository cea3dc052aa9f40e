import { defineConfig } from "vitest/config";

/**
 * The unit tests beside the modules that mutation testing covers (see
 * stryker.config.mjs and docs/testing.md). They need no database, so there is
 * no global setup here.
 */
export default defineConfig({
  test: {
    include: [
      "libs/money/src/**/*.test.ts",
      "libs/eligibility/src/**/*.test.ts",
      "services/payins/src/domain/**/*.test.ts",
      "libs/ids/src/countries.test.ts",
      "services/allocation/src/domain/hd.test.ts",
      "services/allocation/src/domain/observation/{chain-view,matching,witness}.test.ts",
      "libs/rails/src/rails.test.ts",
      "libs/rails/src/minimum.test.ts",
      "services/identity/src/domain/{totp,password}.test.ts",
      "libs/otp/src/**/*.test.ts",
      "gateways/checkout/src/presentation/{presentation-state,payer-view,evidence,payment-terms,decimal,time,qr,start-refusal}.test.ts",
      "libs/operations/src/{audit,views}.test.ts",
      "libs/rpc/src/actor-assertion.test.ts",
      "libs/http/src/rate-limit-key.test.ts",
      "libs/permissions/src/merchant-access.test.ts",
      "services/notifications/src/domain/{retry-schedule,signing,webhook-url}.test.ts",
    ],
    testTimeout: 60_000,
    reporters: ["default"],
  },
});
