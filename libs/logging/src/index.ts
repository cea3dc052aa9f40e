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

/** Bearer tokens, machine tokens and long base64url runs are scrubbed from free text. */
const TOKEN_PATTERN = /(mpk_[0-9a-f]{32}[A-Za-z0-9_-]{43})|(Bearer\s+[A-Za-z0-9._~+/=-]+)/g;

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
