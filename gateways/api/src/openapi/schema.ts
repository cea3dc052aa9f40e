/** JSON Schema builders the OpenAPI document's parts share (document.ts, events.ts). */
import { ASSETS, RAILS } from "./value-sets.js";

export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const str = (extra: Schema = {}): Schema => ({ type: "string", ...extra });
export const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: "null" }] });
export const uuid = str({ format: "uuid" });
export const dateTime = str({ format: "date-time" });
export const int = (extra: Schema = {}): Schema => ({ type: "integer", ...extra });
export const bool = (extra: Schema = {}): Schema => ({ type: "boolean", ...extra });
export const jurisdiction = str({ pattern: "^[A-Z]{2}$", description: "ISO 3166-1 alpha-2, upper case" });
export const oneOf = (values: readonly string[], extra: Schema = {}): Schema => str({ enum: [...values], ...extra });
export const asset = (extra: Schema = {}) => oneOf(ASSETS, extra);
export const rail = (extra: Schema = {}) => oneOf(RAILS, extra);

/** An object whose listed properties are all present (but `optional`) and nothing else is allowed. */
export function object(properties: Record<string, Schema>, optional: string[] = []): Schema {
  return {
    type: "object",
    additionalProperties: false,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    properties,
  };
}
