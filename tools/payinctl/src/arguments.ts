/**
 * payinctl's command line: each command declares its positional arguments and
 * options, and from that one declaration come its usage line and every check
 * made before anything is read or called (unknown options, missing or extra
 * arguments, malformed uuids, numbers and choices are usage errors, exit 2).
 */
import { parseArgs } from "node:util";
import { isUuidAnyCase } from "@payin/ids";

/** A usage error: the message, then the usage of `group` (or of every command). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly group?: string,
  ) {
    super(message);
  }
}

/** Asked for help: the usage of `group` (or of every command) goes to stdout and the exit code is 0. */
export class HelpRequested extends Error {
  constructor(readonly group?: string) {
    super("help");
  }
}

/** The largest offset the services' list calls take (uint32). */
export const MAX_OFFSET = 4_294_967_295;

/** How a value is checked: free text (the service checks it), a uuid, a page's limit or offset, or one of a few words. */
export type ValueKind = "text" | "uuid" | "limit" | "offset" | { choices: readonly string[] };

export interface ArgumentSpec {
  /** As the usage shows it, e.g. MERCHANT_UUID. */
  name: string;
  kind: "text" | "uuid";
}

export interface OptionSpec {
  /** The value's name in the usage (e.g. NAME); absent for a flag. */
  value?: string;
  kind?: ValueKind;
  required?: boolean;
  /** May be given more than once. */
  multiple?: boolean;
}

/** A command's checked input. Uuids are lower-cased, numbers parsed; defaults applied by the command. */
export interface Input {
  /** Positional arguments, in the declared order. */
  readonly args: readonly string[];
  /** A required option's value. */
  text(name: string): string;
  /** An optional option's value, undefined when not given. */
  optional(name: string): string | undefined;
  /** Every value of a repeatable option, in order. */
  list(name: string): string[];
  flag(name: string): boolean;
  /** A `limit` or `offset` option's number, or `fallback`. */
  number(name: string, fallback: number): number;
}

export interface CommandSpec<Context> {
  group: string;
  action: string;
  /** What it does, one line. */
  summary: string;
  args?: readonly ArgumentSpec[];
  options?: Readonly<Record<string, OptionSpec>>;
  /** A further check of the input before anything is read or called. */
  check?(input: Input): void;
  /**
   * The permission a person signed in with `payinctl login` (with a recent
   * second factor) must hold: set on every command that changes anything but
   * break-glass recovery of people, as the admin API's route does.
   */
  person?: string;
  run(context: Context, input: Input): Promise<unknown>;
}

const HELP = new Set(["--help", "-h"]);

/** The usage line of a command, from its declaration. */
export function usageLine(spec: CommandSpec<unknown>): string {
  const parts = [spec.group, spec.action, ...(spec.args ?? []).map((a) => a.name)];
  for (const [name, option] of Object.entries(spec.options ?? {})) {
    const word = option.value ? `--${name} ${option.value}` : `--${name}`;
    if (option.required) parts.push(word);
    else if (option.multiple) parts.push(`[${word}]...`);
    else parts.push(`[${word}]`);
  }
  return parts.join(" ");
}

/** The usage of the commands of `group`, or of every command. */
export function usage(specs: readonly CommandSpec<unknown>[], group?: string, notes = ""): string {
  const shown = specs.filter((s) => group === undefined || s.group === group);
  const lines = [group === undefined ? "usage: payinctl GROUP COMMAND [ARGUMENTS]  (payinctl GROUP --help: one group)" : `usage: payinctl ${group} COMMAND [ARGUMENTS]`, ""];
  for (const spec of shown) lines.push(`  ${usageLine(spec)}`, `      ${spec.summary}`);
  return `${lines.join("\n")}\n${group === undefined ? notes : ""}`;
}

/** "MERCHANT_UUID" as a message names it: "merchant uuid". */
function spoken(name: string): string {
  return name.toLowerCase().replace(/_/g, " ");
}

/** A value as a message quotes it: JSON, cut to 64 characters. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

function checkValue(what: string, kind: ValueKind, value: string, group: string): string {
  if (kind === "uuid") {
    if (!isUuidAnyCase(value)) throw new UsageError(`${what} must be a uuid, got ${quoted(value)}`, group);
    return value.toLowerCase();
  }
  if (kind === "limit" || kind === "offset") {
    const [min, max] = kind === "limit" ? [1, 100] : [0, MAX_OFFSET];
    if (!/^\d{1,10}$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new UsageError(`${what} must be a whole number from ${min} to ${max}, got ${quoted(value)}`, group);
    }
    return value;
  }
  if (typeof kind === "object" && !kind.choices.includes(value)) {
    throw new UsageError(`${what} must be one of: ${kind.choices.join(", ")}; got ${quoted(value)}`, group);
  }
  return value;
}

/**
 * Finds the command `argv` names and checks its input: a usage error for
 * anything wrong, help when asked for (`help`, `--help` or `-h` anywhere).
 */
export function parseCommand<Context>(specs: readonly CommandSpec<Context>[], argv: readonly string[]): { spec: CommandSpec<Context>; input: Input } {
  const [group, action, ...rest] = argv;
  if (group === undefined || group === "help" || HELP.has(group)) throw new HelpRequested();
  if (!specs.some((s) => s.group === group)) throw new UsageError(`unknown command: ${group}`);
  if (argv.some((word) => HELP.has(word))) throw new HelpRequested(group);
  if (action === undefined) throw new UsageError(`${group} needs a command`, group);
  const spec = specs.find((s) => s.group === group && s.action === action);
  if (!spec) throw new UsageError(`unknown command: ${group} ${action}`, group);

  const declared = spec.options ?? {};
  const options = Object.fromEntries(
    Object.entries(declared).map(([name, option]) => [name, { type: option.value ? ("string" as const) : ("boolean" as const), multiple: option.multiple ?? false }]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message, group);
  }
  const expected = spec.args ?? [];
  const positionals = parsed.positionals;
  if (positionals.length !== expected.length) {
    if (expected.length === 0) throw new UsageError(`${group} ${action} takes no positional arguments`, group);
    if (expected.length === 1) throw new UsageError(`expected exactly one ${spoken(expected[0]!.name)}`, group);
    throw new UsageError(`expected ${expected.map((a) => spoken(a.name)).join(" and ")}`, group);
  }
  const args = expected.map((a, i) => checkValue(spoken(a.name), a.kind, positionals[i]!, group));

  const values = new Map<string, string[]>();
  for (const [name, option] of Object.entries(declared)) {
    const raw = parsed.values[name];
    if (!option.value) continue;
    const given = raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
    if (option.required && given.length === 0) throw new UsageError(`--${name} is required`, group);
    values.set(
      name,
      given.map((v) => checkValue(`--${name}`, option.kind ?? "text", v, group)),
    );
  }
  const declaredName = (name: string) => {
    if (!Object.hasOwn(declared, name)) throw new Error(`${group} ${action} declares no --${name}`);
    return name;
  };
  const input: Input = {
    args,
    text: (name) => {
      const value = values.get(declaredName(name))?.[0];
      if (value === undefined) throw new UsageError(`--${name} is required`, group);
      return value;
    },
    optional: (name) => values.get(declaredName(name))?.[0],
    list: (name) => values.get(declaredName(name)) ?? [],
    flag: (name) => parsed.values[declaredName(name)] === true,
    number: (name, fallback) => {
      const value = values.get(declaredName(name))?.[0];
      return value === undefined ? fallback : Number(value);
    },
  };
  spec.check?.(input);
  return { spec, input };
}
