import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{libs,services,gateways,tools}/*/{src,test}/**/*.test.ts"],
    globalSetup: ["libs/testing/src/global-setup.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    reporters: ["default"],
  },
});
