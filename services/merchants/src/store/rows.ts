/** A row of a raw query, keyed by column name. */
export type Row = Record<string, unknown>;

/** A non-null timestamp column as a Date. */
export function date(value: unknown): Date {
  return new Date(value as string | Date);
}

/** A nullable timestamp column as a Date or null. */
export function dateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : new Date(value as string | Date);
}

/** A nullable text column as a string or null. */
export function textOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : (value as string);
}

/**
 * The key of a transaction-scoped advisory lock. Keys are namespaced by the
 * schema because advisory locks are shared by the whole database.
 */
export function lockKey(...parts: string[]): string {
  return `merchants:${parts.join(":")}`;
}

function field(error: unknown, name: string): string | undefined {
  let cur: unknown = error;
  for (let depth = 0; cur && depth < 4; depth++) {
    const value = (cur as Record<string, unknown>)[name];
    if (typeof value === "string") return value;
    cur = (cur as { cause?: unknown }).cause ?? (cur as { previous?: unknown }).previous;
  }
  return undefined;
}

/**
 * A database error stripped of everything that could quote a bound value: the
 * driver's message repeats the statement with its parameters inlined, and the
 * server's detail quotes row values. Only the SQLSTATE and the constraint name
 * are kept. Used where a statement binds a value that must never reach a log.
 */
export function withoutValues(error: unknown, statement: string): Error {
  const code = field(error, "code") ?? "unknown";
  const constraint = field(error, "constraint");
  return new Error(`${statement} failed: SQLSTATE ${code}${constraint ? ` (${constraint})` : ""}`);
}
