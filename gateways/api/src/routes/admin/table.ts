/**
 * Admin routes declared as data: method, path, permission, whether recent MFA is
 * needed, query parameters and body fields. From one declaration follow the
 * handler's checks, in one order (authenticate → permission → MFA → query →
 * body), and the OpenAPI entry's parameters, request body and permission
 * (openapi/document.ts reads the same table). A change runs those checks inside
 * its operation's audited scope (@payin/operations), so a refusal of any of them
 * is recorded under the change's action and target, which the operation names.
 */
import type Router from "@koa/router";
import type { Context } from "koa";
import { charLength, listPage, PAGE_PARAMETERS, readQuery, requiredString, requiredStringArray, optionalString, UUID_RULE, validationError, type ListPage } from "@payin/http";
import { isUuidAnyCase } from "@payin/ids";
import { isCountryCode } from "@payin/ids/countries";
import type { AuditPorts, Actor } from "@payin/operations";
import type { Permission } from "@payin/permissions";
import { requireHuman, requireMfa, requirePermission, requireRecentMfa, type Principal } from "../../auth/authenticator.js";
import type { AppDeps } from "../../deps.js";
import { actorOf, operationPorts } from "../../operations.js";
import { readBody, readNoBody } from "./common.js";

type Schema = Record<string, unknown>;

/** A query parameter: its check (the message names it) and, from the same kind, its schema. */
export type QueryKind =
  | { kind: "enum"; values: readonly string[] }
  | { kind: "uuid" }
  | { kind: "text"; min: number; max: number; description?: string }
  | { kind: "country"; description?: string }
  | { kind: "boolean"; description?: string };

/** A body field: a string with its rule (`uuid` fields are answered in lower case), or a list of strings. */
export interface FieldSpec {
  min?: number;
  max?: number;
  notBlank?: boolean;
  uuid?: boolean;
  optional?: boolean;
  description?: string;
  /** Documented as an email (identity decides the form). */
  email?: boolean;
  /** A closed list the gateway checks, refusing any other value with `message`. */
  oneOf?: { values: readonly string[]; message: string; description: string };
  /** What the owning service decides and the document states (an enum, a pattern); the gateway checks the length only. */
  documented?: Schema;
  /** A required list of at most `maxItems` strings, each documented by `items`. */
  list?: { maxItems: number; items: Schema };
}

export interface BodySpec {
  /** The schema's name in the document's components. */
  name: string;
  fields: Readonly<Record<string, FieldSpec>>;
}

/** What the OpenAPI entry says beyond what the declaration gives. */
export interface RouteDoc {
  id: string;
  tag: string;
  summary: string;
  description?: string;
  /** Success statuses and their body schema (null: no body). */
  ok: Record<number, string | null>;
  refusals?: (401 | 404 | 409 | 429)[];
  /** The 201 answer names the new resource in Location. */
  location?: string;
}

/** What a route answers: the status (200 unless given), a Location, the JSON body. */
export interface Answer {
  status?: number;
  location?: string;
  body: unknown;
}

/** The request once checked: query values by name (absent ones left out), the page, the body's fields and lists. */
export interface Checked {
  query: Readonly<Record<string, string>>;
  page: ListPage;
  body: Readonly<Record<string, string | undefined>>;
  lists: Readonly<Record<string, string[]>>;
}

export type AdminPorts = Pick<AppDeps, "identity" | "merchants" | "allocation"> & AuditPorts & { forgetMerchant: (merchantUuid: string) => void };

interface Call {
  ctx: Context;
  ports: AdminPorts;
  principal: Principal;
  actor: Actor;
  /** The Caller identity re-checks: the person's session token. */
  caller: { sessionToken: string };
  /** A path parameter (the router always sets the declared ones). */
  param: (name: string) => string;
}

interface RouteBase {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Under /api/v1/admin, written out in full (the routers are strict), path parameters as `{name}`. */
  path: string;
  /** Only a person (a machine credential is refused 403 at once, before any other check and outside the audit). */
  person?: boolean;
  permission: Permission;
  /** After the permission: MFA completed within the last 15 minutes (`recent`) or at any time (`any`). */
  mfa?: "recent" | "any";
  query?: Readonly<Record<string, QueryKind>>;
  /** A list: takes limit and offset. */
  paged?: boolean;
  /** The JSON body; "empty": none or `{}`; absent: a read, no body looked at. */
  body?: BodySpec | "empty";
  doc: RouteDoc;
}

/** A read: checked first, then answered. */
export interface ReadRoute extends RouteBase {
  read: (call: Call & Checked) => Promise<Answer>;
}

/**
 * A change: `checked` runs the checks and answers the checked request; the
 * handler hands it to its operation as the operation's prepare, so the checks
 * run inside the audited scope. A handler that never ran them fails (500).
 */
export interface ChangeRoute extends RouteBase {
  change: (call: Call & { checked: () => Promise<Checked> }) => Promise<Answer>;
}

export type AdminRoute = ReadRoute | ChangeRoute;

/** The OpenAPI path of a route: the admin prefix and its `{name}` parameters. */
export const ADMIN_PREFIX = "/api/v1/admin";

function checkQueryValue(name: string, value: string, kind: QueryKind): void {
  switch (kind.kind) {
    case "enum":
      if (!kind.values.includes(value)) throw validationError(`${name} must be one of: ${kind.values.join(", ")}`);
      return;
    case "uuid":
      if (!isUuidAnyCase(value)) throw validationError(`${name} must be a uuid`);
      return;
    case "text":
      if (charLength(value) < kind.min || charLength(value) > kind.max) throw validationError(`${name} must be ${kind.min} to ${kind.max} characters`);
      return;
    case "country":
      if (!isCountryCode(value)) throw validationError(`${name} must be an assigned ISO 3166-1 alpha-2 code in upper case, e.g. DE`);
      return;
    case "boolean":
      if (value !== "true" && value !== "false") throw validationError(`${name} must be true or false`);
      return;
  }
}

/** The schema of a query parameter of `kind`. */
export function querySchema(kind: QueryKind): Schema {
  switch (kind.kind) {
    case "enum":
      return { type: "string", enum: [...kind.values] };
    case "uuid":
      return { type: "string", format: "uuid" };
    case "text":
      return { type: "string", minLength: kind.min, maxLength: kind.max };
    case "country":
      return { type: "string", pattern: "^[A-Z]{2}$", description: "ISO 3166-1 alpha-2, upper case" };
    case "boolean":
      return { type: "string", enum: ["true", "false"], default: "false" };
  }
}

/** The schema of a body: every field a string with its rule, optional ones nullable, nothing else allowed. */
export function bodySchema(spec: BodySpec): Schema {
  const properties: Record<string, Schema> = {};
  for (const [name, field] of Object.entries(spec.fields)) {
    if (field.list) {
      properties[name] = { type: "array", maxItems: field.list.maxItems, items: field.list.items };
      continue;
    }
    const schema: Schema = {
      type: "string",
      ...(field.uuid ? { format: "uuid" } : field.email ? { format: "email" } : {}),
      ...(field.min !== undefined ? { minLength: field.min } : {}),
      ...(field.max !== undefined ? { maxLength: field.max } : {}),
      ...(field.oneOf ? { enum: [...field.oneOf.values] } : {}),
      ...field.documented,
      ...(field.description || field.oneOf ? { description: field.description ?? field.oneOf!.description } : {}),
    };
    properties[name] = field.optional ? { anyOf: [schema, { type: "null" }] } : schema;
  }
  const required = Object.entries(spec.fields).filter(([, field]) => !field.optional).map(([name]) => name);
  return { type: "object", additionalProperties: false, required, properties };
}

/** Reads and checks the request as the route declares it, in the declared order. */
async function check(ctx: Context, route: AdminRoute): Promise<Checked> {
  const declared = Object.entries(route.query ?? {});
  const query = readQuery(ctx, [...declared.map(([name]) => name), ...(route.paged ? PAGE_PARAMETERS : [])]);
  const page = listPage(route.paged ? query : {});
  for (const [name, kind] of declared) if (query[name] !== undefined) checkQueryValue(name, query[name], kind);
  const body: Record<string, string | undefined> = {};
  const lists: Record<string, string[]> = {};
  if (route.body === "empty") await readNoBody(ctx);
  else if (route.body) {
    const read = await readBody(ctx, Object.keys(route.body.fields));
    for (const [name, field] of Object.entries(route.body.fields)) {
      if (field.list) {
        lists[name] = requiredStringArray(read, name, field.list.maxItems);
        continue;
      }
      const rule = field.uuid ? UUID_RULE : { min: field.min, max: field.max, notBlank: field.notBlank };
      const value = field.optional ? optionalString(read, name, rule) : requiredString(read, name, rule);
      if (value !== undefined && field.oneOf && !field.oneOf.values.includes(value)) throw validationError(field.oneOf.message);
      body[name] = field.uuid ? value?.toLowerCase() : value;
    }
  }
  return { query, page, body, lists };
}

function answer(ctx: Context, { status, location, body }: Answer): void {
  if (status !== undefined) ctx.status = status;
  if (location !== undefined) ctx.set("location", location);
  ctx.body = body;
}

/** Mounts the routes on the admin router (prefix /api/v1/admin). */
export function mountAdminRoutes(router: Router, deps: Pick<AppDeps, "auth" | "identity" | "merchants" | "allocation" | "logger">, routes: readonly AdminRoute[]): void {
  const ports = { ...operationPorts(deps), forgetMerchant: (merchantUuid: string) => deps.auth.forgetMerchant(merchantUuid) };
  for (const route of routes) {
    const path = route.path.replace(/\{(\w+)\}/g, ":$1");
    const method = ({ GET: "get", POST: "post", PUT: "put", DELETE: "delete" } as const)[route.method];
    router[method](path, async (ctx) => {
      const principal = await deps.auth.authenticate(ctx);
      if (route.person) requireHuman(principal);
      const checks = async () => {
        requirePermission(principal, route.permission);
        if (route.mfa === "recent") requireRecentMfa(principal);
        else if (route.mfa === "any") requireMfa(principal);
        return check(ctx, route);
      };
      const call = {
        ctx,
        ports,
        principal,
        actor: actorOf(principal),
        caller: { sessionToken: principal.sessionToken ?? "" },
        param: (name: string) => (ctx.params as Record<string, string | undefined>)[name] ?? "",
      };
      if ("read" in route) return answer(ctx, await route.read({ ...call, ...(await checks()) }));
      let ran = false;
      const result = await route.change({
        ...call,
        checked: () => {
          ran = true;
          return checks();
        },
      });
      if (!ran) throw new Error(`${route.method} ${route.path} answered without its checks`);
      answer(ctx, result);
    });
  }
}
