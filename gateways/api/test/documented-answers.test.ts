import { describe, expect, it } from "vitest";
import { answersSinceLastCheck, undocumentedAnswers, type Answer } from "./documented-answers.js";
import { gatewayAnswer, headersOf } from "./support.js";

const MERCHANT = "01a2008d-7400-7000-8000-00000000000a";
const JSON_TYPE = { "content-type": "application/json; charset=utf-8", "x-request-id": "req-1" };
const error = (code: string) => JSON.stringify({ error: { code, message: "m", request_id: "req-1" } });
const answer = (method: string, path: string, status: number, text = "", headers: Record<string, string> = JSON_TYPE): Answer => ({ method, path, status, headers, text });

describe("undocumentedAnswers", () => {
  it("finds a status the document does not give for the route answered", () => {
    const answers = [
      answer("GET", `/api/v1/merchants/${MERCHANT}/pay-in-intents`, 409, error("CONFLICT")),
      answer("POST", "/api/v1/auth/login", 429, error("RATE_LIMITED"), { ...JSON_TYPE, "retry-after": "3" }),
      answer("POST", "/api/v1/auth/login", 404, error("NOT_FOUND")),
    ];
    expect(undocumentedAnswers(answers)).toEqual([
      "GET /api/v1/merchants/{merchant_uuid}/pay-in-intents 409: status not documented",
      "POST /api/v1/auth/login 404: status not documented",
    ]);
  });

  it("takes the literal route over a parameter, and leaves out what names no operation", () => {
    const answers = [
      // …/machine-credentials/rotate is its own route, not {credential_uuid}.
      answer("POST", `/api/v1/admin/merchants/${MERCHANT}/machine-credentials/rotate`, 409, error("NO_ACTIVE_CREDENTIAL")),
      answer("GET", "/api/v1/nowhere", 404, error("NOT_FOUND")),
      answer("PATCH", "/health", 405, error("METHOD_NOT_ALLOWED")),
      answer("HEAD", "/health", 200),
    ];
    expect(undocumentedAnswers(answers)).toEqual([]);
    expect(undocumentedAnswers([answer("HEAD", "/health", 503)])).toEqual(["GET /health 503: status not documented"]);
  });

  it("checks the body against the response schema, the content type and the documented headers", () => {
    const health = (text: string, headers = JSON_TYPE) => answer("GET", "/health", 200, text, headers);
    expect(undocumentedAnswers([health(JSON.stringify({ status: "ok", request_id: "req-1" }))])).toEqual([]);
    expect(undocumentedAnswers([health(JSON.stringify({ status: "ok" }))])).toEqual([expect.stringMatching(/^GET \/health 200: .*must have required property 'request_id'/)]);
    expect(undocumentedAnswers([health(JSON.stringify({ status: "ok", request_id: "r", extra: 1 }))])).toEqual([expect.stringMatching(/must NOT have additional properties/)]);
    expect(undocumentedAnswers([health("ok", { ...JSON_TYPE, "content-type": "text/plain" })])).toEqual([expect.stringMatching(/content type "text\/plain" not documented/)]);
    // A 429 without its Retry-After, an error code outside the catalogue.
    expect(undocumentedAnswers([answer("POST", "/api/v1/auth/login", 429, error("RATE_LIMITED"))])).toEqual([expect.stringMatching(/header Retry-After missing/)]);
    expect(undocumentedAnswers([answer("POST", "/api/v1/auth/login", 400, error("NO_SUCH_CODE"))])).toEqual([expect.stringMatching(/must be equal to one of the allowed values/)]);
  });

  it("refuses a body on an answer documented without one, and follows references and nullable fields", () => {
    expect(undocumentedAnswers([answer("POST", "/api/v1/auth/logout", 204, "{}")])).toEqual(["POST /api/v1/auth/logout 204: a body where none is documented"]);
    const merchant = { uuid: MERCHANT, display_name: "Shop", legal_name: null, status: "active", created_at: "2030-01-01T00:00:00.000Z", updated_at: "2030-01-01T00:00:00.000Z" };
    const path = `/api/v1/admin/merchants/${MERCHANT}`;
    expect(undocumentedAnswers([answer("GET", path, 200, JSON.stringify({ merchant }))])).toEqual([]);
    expect(undocumentedAnswers([answer("GET", path, 200, JSON.stringify({ merchant: { ...merchant, status: "gone" } }))])).toEqual([expect.stringMatching(/body\/merchant\/status must be equal to one of the allowed values/)]);
  });
});

describe("gatewayAnswer", () => {
  it("records the answer of a test's own request for the same check, every value of a repeated header kept", () => {
    answersSinceLastCheck();
    const headers = headersOf({ "x-request-id": "req-1", "content-type": "application/json", "set-cookie": ["a=1", "b=2"], vary: "Origin" });
    const res = gatewayAnswer("GET", `/api/v1/merchants/${MERCHANT}/pay-in-intents?limit=1`, 409, headers, error("CONFLICT"));
    expect(res.body.error.code).toBe("CONFLICT");
    const recorded = answersSinceLastCheck();
    expect(recorded).toEqual([
      {
        method: "GET",
        path: `/api/v1/merchants/${MERCHANT}/pay-in-intents`,
        status: 409,
        headers: { "x-request-id": "req-1", "content-type": "application/json", "set-cookie": "a=1, b=2", vary: "Origin" },
        text: error("CONFLICT"),
      },
    ]);
    expect(undocumentedAnswers(recorded)).toEqual(["GET /api/v1/merchants/{merchant_uuid}/pay-in-intents 409: status not documented"]);
  });
});
