import { pino, type Logger, type LoggerOptions } from "pino";

export type { Logger };

/**
 * Paths pino blanks before a line is written. Any field called like a credential,
 * at the top level or one or two levels down, is censored.
 */
const SENSITIVE_KEYS = [
  "token", "password", "secret", "authorization", "cookie", "xpub_private", "totp_secret",
  "current_password", "new_password", "mfa_challenge_token", "csrf_token", "set-cookie",
  "x-csrf-token", "secret_reference",
];
export const REDACT_PATHS = SENSITIVE_KEYS.flatMap((key) => {
  const k = key.includes("-") ? `["${key}"]` : key;
  const dot = key.includes("-") ? k : `.${k}`;
  return [key.includes("-") ? k : key, `*${dot}`, `*.*${dot}`];
});

/** Bearer tokens, machine tokens and webhook signing secrets are scrubbed from free text. */
const TOKEN_PATTERN = /(mpk_[0-9a-f]{32}[A-Za-z0-9_-]{43})|(Bearer\s+[A-Za-z0-9._~+/=-]+)|(whsec_[A-Za-z0-9+/=]+)/g;

/** Replaces anything that looks like a token inside a message string. */
export function scrubText(text: string): string {
  return text.replace(TOKEN_PATTERN, "[REDACTED]");
}

/**
 * Creates the process logger: JSON lines on stdout, `service` on every line,
 * credentials redacted. `LOG_LEVEL` sets the level (default info).
 */
export function createLogger(service: string, options: LoggerOptions = {}, destination?: pino.DestinationStream): Logger {
  const settings: LoggerOptions = {
    level: process.env.LOG_LEVEL ?? "info",
    base: { service },
    redact: { paths: REDACT_PATHS, censor: "[REDACTED]" },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((a) => (typeof a === "string" ? scrubText(a) : a)) as typeof args;
        method.apply(this, scrubbed);
      },
    },
    ...options,
  };
  return destination ? pino(settings, destination) : pino(settings);
}

/**
 * What may be logged of an error. Database errors carry the statement with its
 * bound values in their message (passwords' hashes, secret references), so for
 * them only the SQLSTATE, constraint and table are kept; other errors pass on to
 * pino's serializer.
 */
export function loggableError(error: unknown): unknown {
  if (!(error instanceof Error)) return { type: typeof error };
  const e = error as Error & { code?: unknown; sqlState?: unknown; constraint?: unknown; table?: unknown };
  const sqlState =
    typeof e.sqlState === "string" ? e.sqlState : typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : undefined;
  if (sqlState !== undefined || /Exception$/.test(e.name) || /\b(insert|update|delete|select)\b.*\b(into|from|set)\b/i.test(e.message)) {
    return { type: e.name, sqlState, constraint: e.constraint, table: e.table };
  }
  return error;
}

/** What a log line or a health answer may say of why something failed. */
export interface ErrorCause {
  /** SQLSTATE, Node's or the library's error code, when there is one. */
  code?: string;
  /** The error's first line, at most 200 characters, without SQL text, quoted values or tokens. */
  message: string;
}

/**
 * The cause of an error, safe to log: its code and the first line of its
 * message. A driver's message that repeats the statement (`<sql> - <message>`)
 * keeps only the database's own message, and a quoted value the database
 * echoes (`invalid input syntax for type uuid: "…"`) is dropped, so neither
 * statement parameters nor credentials reach the line.
 */
export function errorCause(error: unknown): ErrorCause {
  if (!(error instanceof Error)) return { message: typeof error === "string" ? scrubText(error).slice(0, 200) : `thrown ${typeof error}` };
  const e = error as Error & { code?: unknown; sqlState?: unknown };
  const code = typeof e.sqlState === "string" ? e.sqlState : typeof e.code === "string" ? e.code : undefined;
  let message = (e.message.split("\n")[0] ?? "").trim();
  const statement = message.lastIndexOf(" - ");
  if (statement >= 0 && /\b(insert|update|delete|select|with|call)\b/i.test(message.slice(0, statement))) message = message.slice(statement + 3);
  message = scrubText(message).replace(/:\s*"[^"]*"/g, ": [value]").slice(0, 200);
  return code === undefined ? { message } : { code, message };
}

export interface OncePerCauseOptions {
  /** A cause already logged is logged again only after this long, with how many times it recurred meanwhile (default 60 s). */
  intervalMs?: number;
  /** Causes that are part of normal work are logged at info, the others at warn. */
  expected?: (cause: ErrorCause) => boolean;
  now?: () => number;
}

/**
 * A recurring fallback's log: `report(error, fields)` writes `message` with the
 * error's cause the first time that cause (code and message) occurs, then at
 * most once per interval with the number of occurrences not logged (`repeated`),
 * so a failing path is seen without a line per request or per row.
 */
export function oncePerCause(
  logger: Logger,
  message: string,
  options: OncePerCauseOptions = {},
): (error: unknown, fields?: Record<string, unknown>) => void {
  const intervalMs = options.intervalMs ?? 60_000;
  const now = options.now ?? Date.now;
  const seen = new Map<string, { loggedAt: number; repeated: number }>();
  return (error, fields = {}) => {
    const cause = errorCause(error);
    const key = `${cause.code ?? ""}\u0000${cause.message}`;
    const at = now();
    const last = seen.get(key);
    if (last && at - last.loggedAt < intervalMs) {
      last.repeated++;
      return;
    }
    // Bounded: a flood of distinct causes keeps the most recent ones.
    if (!last && seen.size >= 100) seen.delete(seen.keys().next().value!);
    seen.set(key, { loggedAt: at, repeated: 0 });
    const line = { ...fields, cause, ...(last?.repeated ? { repeated: last.repeated } : {}) };
    if (options.expected?.(cause)) logger.info(line, message);
    else logger.warn(line, message);
  };
}
