/** SQLSTATE of a unique_violation. */
const UNIQUE_VIOLATION = "23505";
const FOREIGN_KEY_VIOLATION = "23503";
const NOT_NULL_VIOLATION = "23502";

function sqlState(error: unknown): string | undefined {
  let cur: unknown = error;
  for (let depth = 0; cur && depth < 4; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    cur = (cur as { cause?: unknown }).cause ?? (cur as { previous?: unknown }).previous;
  }
  return undefined;
}

function constraintOf(error: unknown): string | undefined {
  let cur: unknown = error;
  for (let depth = 0; cur && depth < 4; depth++) {
    const name = (cur as { constraint?: unknown }).constraint;
    if (typeof name === "string") return name;
    cur = (cur as { cause?: unknown }).cause ?? (cur as { previous?: unknown }).previous;
  }
  return undefined;
}

/** True when `error` is a unique violation (of `constraint`, when given). */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  return sqlState(error) === UNIQUE_VIOLATION && (constraint === undefined || constraintOf(error) === constraint);
}

/** True when `error` is a foreign-key violation. */
export function isForeignKeyViolation(error: unknown): boolean {
  return sqlState(error) === FOREIGN_KEY_VIOLATION;
}

/** True when `error` is a not-null violation. */
export function isNotNullViolation(error: unknown): boolean {
  return sqlState(error) === NOT_NULL_VIOLATION;
}
