import { expect, it } from "vitest";
import { allowedButNotCalled, callersDoc, readCallersDoc } from "./callers-doc.js";

it("docs/callers.md is what the services' allowlists say (npm run docs:callers writes it)", async () => {
  expect(await readCallersDoc(), "docs/callers.md differs from the code: run npm run docs:callers").toBe(callersDoc());
});

it("lets no caller call an RPC its code never calls", () => {
  expect(allowedButNotCalled()).toEqual([]);
});
