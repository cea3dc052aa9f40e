/**
 * The answers the gateway gave during an end-to-end test file, checked against
 * the OpenAPI document: for each answer, the operation is found by method and
 * path template, and its status must be documented for it, its content type
 * one the document gives for that status (none for a status without content),
 * its JSON body valid against the response schema (ajv, JSON Schema 2020-12 as
 * OpenAPI 3.1 uses it, with ajv-formats' formats) and its documented headers
 * present when required and valid when sent. Every answer the tests get over
 * HTTP is recorded (support.ts's gatewayAnswer: the test clients' answers and
 * those of requests a test sends itself); `expectAnswersDocumented` checks them
 * after each test (and after the file, for those of its hooks), in the file's
 * own process, so the check sees exactly that file's answers whatever runs
 * beside it. Outside it, on purpose: what the HTTP parser refuses (a malformed
 * request line or header, headers too large), answered by the server before any
 * route — no operation answers it, so the document, which describes operations,
 * has nothing to say of it; the tests that send such bytes assert the answer
 * themselves.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { openApiDocument } from "../src/openapi/document.js";

export interface Answer {
  method: string;
  /** The request path, without query. */
  path: string;
  status: number;
  /** Response headers, names in lower case; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  /** The body as received ("" when none). */
  text: string;
}

const answers: Answer[] = [];
let checked = 0;

/** Records an answer of the gateway (called by the test clients). */
export function recordAnswer(method: string, pathAndQuery: string, status: number, headers: Record<string, string> = {}, text = ""): void {
  answers.push({ method: method.toUpperCase(), path: new URL(pathAndQuery, "http://gateway").pathname, status, headers, text });
}

/** What this file's tests have seen so far. */
export function recordedAnswers(): readonly Answer[] {
  return answers;
}

/** The answers recorded since the last call (what a test, or a hook, has seen). */
export function answersSinceLastCheck(): readonly Answer[] {
  const fresh = answers.slice(checked);
  checked = answers.length;
  return fresh;
}

/** The subset of the document this check reads. */
interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, Json> }>>;
  components: { schemas: Record<string, Json>; responses?: Record<string, Json>; headers?: Record<string, Json> };
}
type Json = Record<string, any>;

interface Route {
  template: string;
  pattern: RegExp;
  params: number;
  methods: Map<string, Record<string, Json>>;
}

/** The id under which the document's component schemas are given to ajv. */
const COMPONENTS_ID = "urn:payin:openapi-components";

/** A schema with its `#/components/schemas/…` references pointed at the registered components. */
function pointed(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${COMPONENTS_ID}#/$defs/`)) as Json;
}

/** Checks answers against one document. */
export class AnswerChecker {
  private readonly routes: Route[];
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Doc = openApiDocument() as unknown as Doc) {
    this.routes = Object.entries(doc.paths).map(([template, methods]) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{\w+\\?\}/g, "[^/]+")}$`),
      params: (template.match(/\{/g) ?? []).length,
      methods: new Map(Object.entries(methods).map(([method, op]) => [method.toUpperCase(), op.responses])),
    }));
    this.ajv = new Ajv2020({ strict: true, allErrors: true });
    // ajv-formats is typed against its own copy of ajv; the two are the same API.
    addFormats(this.ajv as unknown as Parameters<typeof addFormats>[0]);
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: pointed(doc.components.schemas) });
  }

  /**
   * What is wrong with an answer, as "METHOD /template STATUS: problem" lines.
   * An answer to a path or method the document has no operation for (an unknown
   * route's 404, a 405) names no operation and is left out; HEAD is GET's, its
   * body not checked. Where two templates match, the one with fewer parameters
   * is the route (`…/rotate` rather than `…/{uuid}`).
   */
  problems(answer: Answer): string[] {
    const method = answer.method === "HEAD" ? "GET" : answer.method;
    const route = this.routes.filter((r) => r.pattern.test(answer.path) && r.methods.has(method)).sort((a, b) => a.params - b.params)[0];
    if (!route) return [];
    const where = `${method} ${route.template} ${answer.status}`;
    const documented = route.methods.get(method)![String(answer.status)];
    if (!documented) return [`${where}: status not documented`];
    const response = this.resolve(documented, "responses");
    const out: string[] = [];
    for (const [name, declared] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      const header = this.resolve(declared, "headers");
      const value = answer.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) out.push(`${where}: header ${name} missing`);
        continue;
      }
      const schema = header.schema as Json;
      const typed = schema.type === "integer" && /^-?\d+$/.test(value) ? Number(value) : value;
      const errors = this.validate(`${where} header ${name}`, schema, typed);
      if (errors) out.push(`${where}: header ${name} "${value}" ${errors}`);
    }
    const content = response.content as Record<string, Json> | undefined;
    const mediaType = (answer.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (!content) {
      if (answer.text !== "") out.push(`${where}: a body where none is documented`);
      return out;
    }
    if (answer.method === "HEAD") return out;
    const media = content[mediaType];
    if (!media) return [...out, `${where}: content type "${mediaType}" not documented (${Object.keys(content).join(", ")})`];
    if (mediaType !== "application/json") return out;
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [...out, `${where}: the body is not JSON: ${answer.text.slice(0, 200)}`];
    }
    const errors = this.validate(where, media.schema as Json, body);
    if (errors) out.push(`${where}: ${errors} in ${answer.text.slice(0, 600)}`);
    return out;
  }

  /** A `$ref` to components/<kind> resolved (one level: the document's own references are never chained). */
  private resolve(object: Json, kind: "responses" | "headers"): Json {
    const ref = object.$ref as string | undefined;
    if (!ref) return object;
    const resolved = this.doc.components[kind]?.[ref.slice(`#/components/${kind}/`.length)];
    if (!resolved) throw new Error(`unresolvable ${ref}`);
    return resolved;
  }

  /** ajv's errors of `value` against `schema`, as one line, or null when valid. */
  private validate(key: string, schema: Json, value: unknown): string | null {
    let validator = this.validators.get(key);
    if (!validator) {
      validator = this.ajv.compile(pointed(schema));
      this.validators.set(key, validator);
    }
    if (validator(value)) return null;
    return this.ajv.errorsText(validator.errors, { separator: "; ", dataVar: "body" });
  }
}

let checker: AnswerChecker | undefined;

/** Every problem of `recorded` against the served document, each line once. */
export function undocumentedAnswers(recorded: readonly Answer[], using: AnswerChecker = (checker ??= new AnswerChecker())): string[] {
  return [...new Set(recorded.flatMap((answer) => using.problems(answer)))].sort();
}
