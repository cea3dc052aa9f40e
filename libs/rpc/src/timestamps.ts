import { timestampDate, timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";

/** Date → protobuf Timestamp. */
export function toTimestamp(date: Date): Timestamp {
  return timestampFromDate(date);
}

/** protobuf Timestamp → Date (undefined stays undefined). */
export function fromTimestamp(ts: Timestamp | undefined): Date | undefined {
  return ts ? timestampDate(ts) : undefined;
}

/** protobuf Timestamp → ISO 8601 UTC string with milliseconds and `Z`. */
export function isoFromTimestamp(ts: Timestamp | undefined): string | null {
  return ts ? timestampDate(ts).toISOString() : null;
}
