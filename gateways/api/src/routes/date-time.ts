/** RFC 3339 date-times as the API takes them: in UTC. */

/** RFC 3339 date-time in UTC: `Z`, or the offset `+00:00` that RFC 3339 makes the same. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|\+00:00)$/;

/** The instant of an RFC 3339 date-time in UTC, or null when `value` is not one (or names no real day or hour). */
export function parseDateTime(value: string): Date | null {
  if (!DATE_TIME.test(value)) return null;
  // Date rolls 2030-02-30 over into March and takes hour 24 as the next day;
  // RFC 3339 allows neither.
  const [year, month, day, hour] = [value.slice(0, 4), value.slice(5, 7), value.slice(8, 10), value.slice(11, 13)].map(Number) as [number, number, number, number];
  if (hour > 23 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
