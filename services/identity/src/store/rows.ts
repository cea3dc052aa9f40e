/** A timestamp column as a Date (null stays null). */
export function date(value: unknown): Date | null {
  return value === null || value === undefined ? null : new Date(value as string | Date);
}

/** A non-null timestamp column as a Date. */
export function requiredDate(value: unknown): Date {
  return new Date(value as string | Date);
}

/** A bigint column (pg returns text) as a number; null stays null. */
export function bigintNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** `(?, ?, …), (?, ?, …)`: placeholders for a multi-row VALUES list. */
export function valuesPlaceholders(rows: number, columns: number): string {
  const row = `(${Array.from({ length: columns }, () => "?").join(", ")})`;
  return Array.from({ length: rows }, () => row).join(", ");
}
