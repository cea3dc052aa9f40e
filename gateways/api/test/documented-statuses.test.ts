import { describe, expect, it } from "vitest";
import { undocumentedAnswers } from "./documented-statuses.js";

const MERCHANT = "01a2008d-7400-7000-8000-00000000000a";

describe("undocumentedAnswers", () => {
  it("finds a status the document does not give for the route answered", () => {
    const answers = [
      { method: "GET", path: `/api/v1/merchants/${MERCHANT}/pay-in-intents`, status: 200 },
      { method: "GET", path: `/api/v1/merchants/${MERCHANT}/pay-in-intents`, status: 409 },
      { method: "POST", path: "/api/v1/auth/login", status: 429 },
      { method: "POST", path: "/api/v1/auth/login", status: 404 },
    ];
    expect(undocumentedAnswers(answers)).toEqual(["GET /api/v1/merchants/{merchant_uuid}/pay-in-intents 409", "POST /api/v1/auth/login 404"]);
  });

  it("takes the literal route over a parameter, and leaves out what names no operation", () => {
    const answers = [
      // …/machine-credentials/rotate is its own route, not {credential_uuid}.
      { method: "POST", path: `/api/v1/admin/merchants/${MERCHANT}/machine-credentials/rotate`, status: 409 },
      { method: "GET", path: "/api/v1/nowhere", status: 404 },
      { method: "PATCH", path: "/health", status: 405 },
      { method: "HEAD", path: "/health", status: 200 },
    ];
    expect(undocumentedAnswers(answers)).toEqual([]);
    expect(undocumentedAnswers([{ method: "HEAD", path: "/health", status: 503 }])).toEqual(["GET /health 503"]);
  });
});
