/**
 * Configuration is read once from the environment into a frozen, typed object.
 * A missing or malformed variable stops the process with one line naming it.
 */

import { callerDigests } from "./credentials.js";

export * from "./credentials.js";
export * from "./actor-keys.js";
export * from "./sealing-keys.js";

/** Raised for a missing or malformed variable; `loadConfig` turns it into an exit. */
export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`configuration error: ${variable} ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

/** A reader turns one variable (or its default) into a typed value, or throws ConfigError. */
export type Reader<T> = (env: Env, name: string) => T;

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === "" ? undefined : value;
}

/** A required or defaulted string. */
export function str(fallback?: string): Reader<string> {
  return (env, name) => {
    const value = raw(env, name) ?? fallback;
    if (value === undefined) throw new ConfigError(name, "is required but not set");
    return value;
  };
}

/** An optional string: undefined when unset. */
export function optionalStr(): Reader<string | undefined> {
  return (env, name) => raw(env, name);
}

/**
 * A comma-separated list, each item trimmed, empty items dropped; unset is the
 * empty list. `check` may refuse an item by answering what is wrong with it.
 */
export function list(check: (item: string) => string | null = () => null): Reader<readonly string[]> {
  return (env, name) => {
    const items = (raw(env, name) ?? "").split(",").map((item) => item.trim()).filter((item) => item !== "");
    for (const item of items) {
      const problem = check(item);
      if (problem !== null) throw new ConfigError(name, `has an item "${item}" that ${problem}`);
    }
    return Object.freeze(items);
  };
}

/** A whole number within [min, max]. */
export function int(fallback: number | undefined, min = 0, max = Number.MAX_SAFE_INTEGER): Reader<number> {
  return (env, name) => {
    const text = raw(env, name);
    if (text === undefined) {
      if (fallback === undefined) throw new ConfigError(name, "is required but not set");
      return fallback;
    }
    if (!/^\d+$/.test(text)) throw new ConfigError(name, `must be a whole number, got "${text}"`);
    const value = Number(text);
    if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
    return value;
  };
}

/** A TCP port (0 lets the system choose). */
export function port(fallback?: number): Reader<number> {
  return int(fallback, 0, 65535);
}

/** A URL with one of the given protocols. */
export function url(fallback?: string, protocols: string[] = ["http:", "https:"]): Reader<string> {
  return (env, name) => {
    const text = raw(env, name) ?? fallback;
    if (text === undefined) throw new ConfigError(name, "is required but not set");
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      throw new ConfigError(name, "must be a URL");
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(name, `must be a URL with protocol ${protocols.join(" or ")}`);
    }
    return text;
  };
}

/** An optional URL: undefined when unset. */
export function optionalUrl(protocols?: string[]): Reader<string | undefined> {
  const read = url(undefined, protocols);
  return (env, name) => (raw(env, name) === undefined ? undefined : read(env, name));
}

/** One of a fixed set of values. */
export function oneOf<const T extends string>(values: readonly T[], fallback?: T): Reader<T> {
  return (env, name) => {
    const text = raw(env, name) ?? fallback;
    if (text === undefined) throw new ConfigError(name, "is required but not set");
    if (!values.includes(text as T)) throw new ConfigError(name, `must be one of ${values.join(", ")}, got "${text}"`);
    return text as T;
  };
}

/** A secret of at least `minLength` characters; the value never appears in errors. */
export function secret(minLength = 32): Reader<string> {
  return (env, name) => {
    const text = raw(env, name);
    if (text === undefined) throw new ConfigError(name, "is required but not set");
    if (text.length < minLength) throw new ConfigError(name, `must be at least ${minLength} characters`);
    return text;
  };
}

/** Like `secret`, but unset is allowed (undefined): the caller then finds the secret elsewhere. */
export function optionalSecret(minLength = 32): Reader<string | undefined> {
  return (env, name) => (raw(env, name) === undefined ? undefined : secret(minLength)(env, name));
}

type Schema = Record<string, Reader<unknown>>;
export type ConfigOf<S extends Schema> = { readonly [K in keyof S]: ReturnType<S[K]> };

/** Parses `env` against `schema`; throws ConfigError on the first bad variable. */
export function parseConfig<S extends Schema>(schema: S, env: Env = process.env): ConfigOf<S> {
  const out: Record<string, unknown> = {};
  for (const [name, read] of Object.entries(schema)) out[name] = read(env, name);
  return Object.freeze(out) as ConfigOf<S>;
}

/**
 * Parses the process environment; on a bad variable prints one line to stderr
 * and exits with status 78 (EX_CONFIG).
 */
export function loadConfig<S extends Schema>(schema: S, env: Env = process.env): ConfigOf<S> {
  try {
    return parseConfig(schema, env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}

/**
 * Settings every service process shares. SERVICE_CALLER_DIGESTS: the digest of
 * each caller's credential the service recognises (see credentials.ts); a
 * service that calls others also reads its own SERVICE_CREDENTIAL.
 */
export const serviceBase = {
  DATABASE_URL: url(undefined, ["postgres:", "postgresql:"]),
  SERVICE_CALLER_DIGESTS: callerDigests(),
  HOST: str("127.0.0.1"),
  LOG_LEVEL: oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const, "info"),
  DB_POOL_MAX: int(10, 1, 200),
  MIGRATE_ON_BOOT: oneOf(["true", "false"] as const, "true"),
};

/** Default ports (README, "Configuration"); each is overridable by its variable. */
export const DEFAULT_PORTS = {
  API_PORT: 8080,
  CHECKOUT_PORT: 8081,
  IDENTITY_PORT: 50051,
  MERCHANTS_PORT: 50052,
  PAYINS_PORT: 50053,
  ALLOCATION_PORT: 50054,
  OBSERVER_PORT: 50055,
  NOTIFICATIONS_PORT: 50056,
  NOTIFIER_PORT: 50057,
} as const;

/**
 * The address to reach this machine's services at: `HOST` when it names one
 * interface (the services listen there only), else loopback (unset, or a
 * wildcard such as 0.0.0.0 or ::, which loopback reaches).
 */
export function localServiceHost(env: Env): string {
  const host = raw(env, "HOST")?.trim();
  if (!host || host === "0.0.0.0" || host === "::" || host === "[::]") return "127.0.0.1";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** Base URL of an internal service: `<NAME>_URL`, else this machine (localServiceHost) on its port variable. */
export function serviceUrl(portVariable: keyof typeof DEFAULT_PORTS): Reader<string> {
  return (env, name) => {
    const port = int(DEFAULT_PORTS[portVariable], 1, 65535)(env, portVariable);
    return url(`http://${localServiceHost(env)}:${port}`)(env, name);
  };
}
