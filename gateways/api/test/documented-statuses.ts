/**
 * The statuses the gateway answered during an end-to-end test file, checked
 * against the OpenAPI document: every (method, route, status) answered must be
 * documented for that operation. The test clients (support.ts) record each
 * answer; `usePlatform` checks them after the file's tests, in the file's own
 * process, so the check sees exactly that file's answers whatever runs beside it.
 */
import { openApiDocument } from "../src/openapi/document.js";

export interface Answer {
  method: string;
  /** The request path, without query. */
  path: string;
  status: number;
}

const answers: Answer[] = [];

/** Records an answer of the gateway (called by the test clients). */
export function recordAnswer(method: string, pathAndQuery: string, status: number): void {
  answers.push({ method: method.toUpperCase(), path: new URL(pathAndQuery, "http://gateway").pathname, status });
}

/** What this file's tests have seen so far. */
export function recordedAnswers(): readonly Answer[] {
  return answers;
}

interface Route {
  template: string;
  pattern: RegExp;
  params: number;
  statuses: Map<string, Set<string>>;
}

function routesOf(doc: { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }): Route[] {
  return Object.entries(doc.paths).map(([template, methods]) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{\w+\\?\}/g, "[^/]+")}/?$`),
    params: (template.match(/\{/g) ?? []).length,
    statuses: new Map(Object.entries(methods).map(([method, op]) => [method.toUpperCase(), new Set(Object.keys(op.responses))])),
  }));
}

/**
 * The answers whose status the document does not give for their operation, as
 * "METHOD /template STATUS". An answer to a path or method the document has no
 * operation for (an unknown route's 404, a 405) names no operation and is left
 * out; HEAD is GET's and is checked as GET. Where two templates match, the one
 * with fewer parameters is the route (`…/rotate` rather than `…/{uuid}`).
 */
export function undocumentedAnswers(recorded: readonly Answer[], doc = openApiDocument() as never): string[] {
  const routes = routesOf(doc);
  const out = new Set<string>();
  for (const answer of recorded) {
    const method = answer.method === "HEAD" ? "GET" : answer.method;
    const route = routes
      .filter((r) => r.pattern.test(answer.path) && r.statuses.has(method))
      .sort((a, b) => a.params - b.params)[0];
    if (!route) continue;
    if (!route.statuses.get(method)!.has(String(answer.status))) out.add(`${method} ${route.template} ${answer.status}`);
  }
  return [...out].sort();
}
