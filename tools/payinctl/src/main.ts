/**
 * payinctl: the operator CLI (beside the admin API of the gateway). Talks to the running
 * services over gRPC with the configuration `npm start` uses (service URLs from
 * <NAME>_URL or <NAME>_PORT; its credential from SERVICE_CREDENTIAL, or derived from
 * SERVICE_TOKEN or .data/service-token; see config.ts). It acts as the person
 * signed in with `session login` (session.ts): changes beyond break-glass
 * recovery of people need one, and every record names them (or `operator_cli`
 * without one), the OS user and this invocation's request id (operator.ts).
 * The command and its arguments are checked before anything is read or called
 * (arguments.ts: a usage error, malformed uuids included, exits 2); then the
 * environment is read once, and a missing or malformed variable stops it with one
 * line naming the variable (exit 78) before any call.
 * Prints JSON on stdout; errors go to stderr as `{"error":{"code","message"}}` with exit 1.
 * Secrets shown once (`admin bootstrap`, `identity create`) go only to a terminal or,
 * with --out FILE, to that new file (mode 0600); see secrets.ts.
 */
import { deriveCredential, loadConfig } from "@payin/config";
import { readServiceToken } from "@payin/launcher";
import { Code, ConnectError, reasonOf, requestIdFrom, runWithContext } from "@payin/rpc";
import { HelpRequested, parseCommand, usage, UsageError } from "./arguments.js";
import { COMMANDS } from "./commands.js";
import { cliConfigSchema } from "./config.js";
import { Operator } from "./operator.js";
import { CliFailure } from "./secrets.js";
import { requirePerson, sessionFile, signedInPerson } from "./session.js";

/** The request id of this invocation: on every call it makes, and on its audit events. */
const INVOCATION_REQUEST_ID = requestIdFrom(undefined);

const NOTES = `
Arguments named *_UUID take a uuid (any letter case). Lists the services page take
--limit (1 to 100, default 20) and --offset (default 0) and answer {data, pagination}.
Output: JSON on stdout, exit 0. Errors: {"error":{"code","message"}} on stderr, exit 1;
usage errors exit 2; a malformed environment variable exits 78.
`;

async function run(argv: string[]): Promise<unknown> {
  const { spec, input } = parseCommand(COMMANDS, argv);
  const config = loadConfig(cliConfigSchema);
  // @payin/launcher's readServiceToken finds the data directory here.
  process.env.PAYIN_DATA_DIR = config.PAYIN_DATA_DIR;
  const serviceToken =
    config.SERVICE_CREDENTIAL ?? deriveCredential(config.SERVICE_TOKEN ?? (await readServiceToken({ create: false })), "payinctl");
  const operator = new Operator({
    identityUrl: config.IDENTITY_URL,
    merchantsUrl: config.MERCHANTS_URL,
    allocationUrl: config.ALLOCATION_URL,
    serviceToken,
    requestId: INVOCATION_REQUEST_ID,
    sessionFile: sessionFile(),
  });
  // Who acts: the person signed in with `session login`, if any; commands that change
  // more than break-glass recovery need one, with the permission and a recent second factor.
  if (spec.action !== "login" || spec.group !== "session") operator.actAs(await signedInPerson(operator.identity, operator.sessionFile));
  if (spec.person) requirePerson(operator.person, spec.person, new Date());
  return spec.run(operator, input);
}

/** An RPC failure's code as printed: the service's reason, else the gRPC code in UPPER_SNAKE case. */
function errorCode(error: unknown): string {
  if (error instanceof ConnectError) return reasonOf(error) ?? Code[error.code].replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
  return error instanceof CliFailure ? error.code : "CLI_ERROR";
}

/** Writes `text` and exits once it is flushed (an open HTTP/2 session would keep the process alive). */
function finish(stream: NodeJS.WriteStream, text: string, code: number): void {
  stream.write(text, () => process.exit(code));
}

try {
  const result = await runWithContext({ requestId: INVOCATION_REQUEST_ID }, () => run(process.argv.slice(2)));
  finish(process.stdout, `${JSON.stringify(result)}\n`, 0);
} catch (error) {
  if (error instanceof HelpRequested) {
    finish(process.stdout, usage(COMMANDS, error.group, NOTES), 0);
  } else if (error instanceof UsageError) {
    finish(process.stderr, `${error.message}\n\n${usage(COMMANDS, error.group, NOTES)}`, 2);
  } else {
    const message = error instanceof ConnectError ? error.rawMessage : (error as Error).message;
    finish(process.stderr, `${JSON.stringify({ error: { code: errorCode(error), message } })}\n`, 1);
  }
}
