/** `($1, $2, …), ($n+1, …)`: numbered placeholders for a multi-row VALUES list of `rows` rows of `columns` values. */
export function valuesPlaceholders(rows: number, columns: number): string {
  return Array.from({ length: rows }, (_, r) => `(${Array.from({ length: columns }, (_, c) => `$${r * columns + c + 1}`).join(", ")})`).join(", ");
}
