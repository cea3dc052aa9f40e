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
 * server's detail quotes row values (and a driver may repeat the statement
 * with its values). Only the SQLSTATE and the constraint name are kept. Used
 * where a statement binds a value that must never reach a log.
 */
export function withoutValues(error: unknown, statement: string): Error {
  const code = field(error, "code") ?? "unknown";
  const constraint = field(error, "constraint");
  return new Error(`${statement} failed: SQLSTATE ${code}${constraint ? ` (${constraint})` : ""}`);
}
