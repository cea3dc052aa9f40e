/**
 * payinctl: the operator CLI (beside the admin API of the gateway). Talks to the running
 * services over gRPC with the configuration `npm start` uses (service URLs from
 * <NAME>_URL or <NAME>_PORT; its credential from SERVICE_CREDENTIAL, or derived from
 * SERVICE_TOKEN or .data/service-token; see config.ts).
 * The command and its arguments are checked before anything is read or called;
 * then the environment is read once, and a missing or malformed variable stops
 * it with one line naming the variable (exit 78) before any call.
 * Prints JSON on stdout; errors go to stderr as JSON with a non-zero exit.
 * `admin bootstrap` prints the first admin's secrets only to a terminal: with
 * --out FILE they go to that new file (mode 0600) and stdout gets the identity
 * and the file's path; with stdout not a terminal and no --out it refuses (exit
 * 2) before any call, since piped or redirected output tends to end up in logs.
 */
import { open, unlink } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { deriveCredential, loadConfig } from "@payin/config";
import { readServiceToken } from "@payin/launcher";
import { cliConfigSchema } from "./config.js";
import { bootstrapView } from "./views.js";
import { allocationV1, identityV1, merchantStatusName, merchantsV1 } from "@payin/proto";
import { Code, ConnectError, createServiceClient, isoFromTimestamp, reasonOf, requestIdFrom, runWithContext } from "@payin/rpc";

/** The request id of this invocation: on every call it makes, and on its audit events. */
const INVOCATION_REQUEST_ID = requestIdFrom(undefined);

const USAGE = `usage: payinctl <command>

  merchant create --display-name NAME [--legal-name NAME]
  merchant get UUID
  merchant activate|deactivate|suspend|close UUID
  wallet set MERCHANT_UUID --xpub XPUB
  wallet get MERCHANT_UUID
  credential create MERCHANT_UUID
  rule set --capability crypto.payin --jurisdiction CC --effect allow|deny
  policy set MERCHANT_UUID --scope payin|payout|custody|settlement --effect allow|deny
  profile set MERCHANT_UUID --operating-mode non_custodial|platform_custody|hybrid
  admin bootstrap --email EMAIL [--out FILE]
      (the admin's secrets go to a terminal, or to FILE, created with mode 0600;
       --out is required when stdout is not a terminal)
`;

class UsageError extends Error {}

/** Every command, as "group action". */
const COMMANDS = new Set([
  "merchant create", "merchant get", "merchant activate", "merchant deactivate", "merchant suspend", "merchant close",
  "wallet set", "wallet get", "credential create", "rule set", "policy set", "profile set", "admin bootstrap",
]);

/** A failure the CLI reports itself, as `{error:{code,message}}` on stderr. */
class CliFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const TRANSITIONS: Record<string, merchantsV1.MerchantTransition> = {
  activate: merchantsV1.MerchantTransition.ACTIVATE,
  deactivate: merchantsV1.MerchantTransition.DEACTIVATE,
  suspend: merchantsV1.MerchantTransition.SUSPEND,
  close: merchantsV1.MerchantTransition.CLOSE,
};

function merchantView(m: merchantsV1.Merchant | undefined) {
  return {
    uuid: m?.uuid,
    display_name: m?.displayName,
    legal_name: m?.legalName ?? null,
    status: m ? (merchantStatusName(m.status) ?? "unknown") : undefined,
    created_at: isoFromTimestamp(m?.createdAt),
    updated_at: isoFromTimestamp(m?.updatedAt),
  };
}

function walletView(w: allocationV1.Wallet | undefined) {
  return {
    merchant_uuid: w?.merchantUuid,
    xpub: w?.xpub,
    next_index: w?.nextIndex,
    created_at: isoFromTimestamp(w?.createdAt),
    updated_at: isoFromTimestamp(w?.updatedAt),
  };
}

function one(positionals: string[], what: string): string {
  const value = positionals[0];
  if (!value || positionals.length > 1) throw new UsageError(`expected exactly one ${what}`);
  return value;
}

/** Checks a known command's arguments, before any configuration is read or service called. */
function checkArguments(group: string, action: string, values: Record<string, unknown>, positionals: string[]): void {
  const needs = (...names: string[]) => {
    for (const name of names) if (typeof values[name] !== "string") throw new UsageError(`--${name} is required`);
  };
  const none = () => {
    if (positionals.length) throw new UsageError(`${group} ${action} takes no positional arguments`);
  };
  switch (`${group} ${action}`) {
    case "merchant create":
      return (none(), needs("display-name"));
    case "rule set":
      return (none(), needs("capability", "jurisdiction", "effect"));
    case "admin bootstrap":
      none();
      needs("email");
      if (typeof values.out !== "string" && !process.stdout.isTTY) {
        throw new UsageError("stdout is not a terminal: pass --out FILE to have the first admin's secrets written to FILE (mode 0600)");
      }
      return;
    default:
      one(positionals, "merchant uuid");
      if (`${group} ${action}` === "wallet set") needs("xpub");
      if (`${group} ${action}` === "policy set") needs("scope", "effect");
      if (`${group} ${action}` === "profile set") needs("operating-mode");
  }
}

/** Creates `file` for the first admin's secrets (mode 0600); an existing file is refused, never overwritten. */
async function openSecretsFile(file: string) {
  try {
    return await open(file, "wx", 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new CliFailure("OUT_FILE_EXISTS", `${file} exists; --out must name a new file`);
    throw new CliFailure("OUT_FILE_UNWRITABLE", `cannot create ${file} (${code ?? "error"})`);
  }
}

/** Asked for help: the usage goes to stdout and the exit code is 0. */
class HelpRequested extends Error {}

async function run(argv: string[]): Promise<unknown> {
  const [group, action, ...rest] = argv;
  if (!group || group === "--help" || group === "-h" || group === "help") throw new HelpRequested();
  if (!COMMANDS.has(`${group} ${action ?? ""}`)) throw new UsageError(`unknown command: ${[group, action].filter(Boolean).join(" ")}`);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: true,
    options: {
      "display-name": { type: "string" },
      "legal-name": { type: "string" },
      xpub: { type: "string" },
      capability: { type: "string" },
      jurisdiction: { type: "string" },
      effect: { type: "string" },
      scope: { type: "string" },
      "operating-mode": { type: "string" },
      email: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) throw new HelpRequested();
  checkArguments(group, action!, values, positionals);
  const required = (name: keyof typeof values): string => {
    const value = values[name];
    if (typeof value !== "string") throw new UsageError(`--${name} is required`); // checked above; narrows the type
    return value;
  };
  const config = loadConfig(cliConfigSchema);
  // @payin/launcher's readServiceToken finds the data directory here.
  process.env.PAYIN_DATA_DIR = config.PAYIN_DATA_DIR;
  const serviceToken =
    config.SERVICE_CREDENTIAL ?? deriveCredential(config.SERVICE_TOKEN ?? (await readServiceToken({ create: false })), "payinctl");
  // gRPC (HTTP/2), as the services' own clients speak Connect; both reach the same port.
  const merchants = createServiceClient(merchantsV1.MerchantsService, { baseUrl: config.MERCHANTS_URL, serviceToken, protocol: "grpc" });
  // Every change is audited with this actor: the operator CLI, and the request id
  // this invocation's calls carry. merchants records the changes it makes itself;
  // those made in identity and allocation are recorded here once they succeeded.
  const actor = { kind: "operator_cli", uuid: "", requestId: INVOCATION_REQUEST_ID };
  const audit = async (action: string, target: { type: string; uuid?: string }) => {
    try {
      await merchants.recordAuditEvent({
        event: { actor, action, targetType: target.type, targetUuid: target.uuid ?? "", outcome: "succeeded", errorCode: "" },
      });
    } catch (error) {
      // The change stands; say that its record is missing rather than fail the command.
      process.stderr.write(`${JSON.stringify({ warning: "the change was made but could not be recorded in the audit log", action, detail: (error as Error).message })}\n`);
    }
  };
  /** The merchant, which must exist and not be closed (as the admin API requires for wallets and credentials). */
  const openMerchant = async (uuid: string) => {
    await merchants.getMerchant({ uuid, requireOpen: true }); // merchants refuses a closed one (MERCHANT_CLOSED)
  };

  if (group === "merchant") {
    if (action === "create") {
      const res = await merchants.createMerchant({ displayName: required("display-name"), legalName: values["legal-name"], actor });
      return { merchant: merchantView(res.merchant) };
    }
    if (action === "get") return { merchant: merchantView((await merchants.getMerchant({ uuid: one(positionals, "merchant uuid") })).merchant) };
    const transition = action ? TRANSITIONS[action] : undefined;
    if (transition !== undefined) {
      const res = await merchants.transitionMerchant({ uuid: one(positionals, "merchant uuid"), transition, actor });
      return { merchant: merchantView(res.merchant) };
    }
  }
  if (group === "wallet") {
    const allocation = createServiceClient(allocationV1.AllocationService, { baseUrl: config.ALLOCATION_URL, serviceToken, protocol: "grpc" });
    const merchantUuid = one(positionals, "merchant uuid");
    if (action === "set") {
      await openMerchant(merchantUuid); // a wallet only for a merchant that exists and is not closed
      const { wallet } = await allocation.setWallet({ merchantUuid, xpub: required("xpub") });
      await audit("wallet.set", { type: "merchant", uuid: merchantUuid });
      return { wallet: walletView(wallet) };
    }
    if (action === "get") return { wallet: walletView((await allocation.getWallet({ merchantUuid })).wallet) };
  }
  if (group === "rule" && action === "set") {
    const res = await merchants.createRule({
      capability: required("capability"),
      jurisdiction: required("jurisdiction"),
      effect: required("effect"),
      actor,
    });
    const r = res.rule;
    return {
      rule: {
        rule_uuid: r?.ruleUuid,
        capability: r?.capability,
        jurisdiction: r?.jurisdiction,
        effect: r?.effect,
        version: r?.version,
        valid_from: isoFromTimestamp(r?.validFrom),
        valid_to: isoFromTimestamp(r?.validTo),
      },
    };
  }
  if (group === "policy" && action === "set") {
    const merchantUuid = one(positionals, "merchant uuid");
    const res = await merchants.createPolicy({ merchantUuid, scope: required("scope"), effect: required("effect"), actor });
    const p = res.policy;
    return {
      policy: {
        policy_uuid: p?.policyUuid,
        merchant_uuid: p?.merchantUuid,
        scope: p?.scope,
        effect: p?.effect,
        version: p?.version,
        valid_from: isoFromTimestamp(p?.validFrom),
        valid_to: isoFromTimestamp(p?.validTo),
      },
    };
  }
  if (group === "profile" && action === "set") {
    const merchantUuid = one(positionals, "merchant uuid");
    const res = await merchants.ensureOperatingProfile({ merchantUuid, operatingMode: required("operating-mode"), actor });
    const p = res.profile;
    return {
      operating_profile: {
        merchant_uuid: p?.merchantUuid,
        operating_mode: p?.operatingMode,
        created_at: isoFromTimestamp(p?.createdAt),
        updated_at: isoFromTimestamp(p?.updatedAt),
      },
    };
  }
  if (group === "admin" && action === "bootstrap") {
    const identity = createServiceClient(identityV1.IdentityService, { baseUrl: config.IDENTITY_URL, serviceToken, protocol: "grpc" });
    const out = typeof values.out === "string" ? path.resolve(values.out) : null;
    // Created before the call, never over an existing file: secrets are only made once they have a place to go.
    const file = out === null ? null : await openSecretsFile(out);
    let res: identityV1.BootstrapAdminResponse;
    try {
      res = await identity.bootstrapAdmin({ email: required("email") });
    } catch (error) {
      if (file && out) {
        await file.close();
        await unlink(out);
      }
      throw error;
    }
    const view = bootstrapView(res);
    if (file && out) {
      try {
        await file.writeFile(`${JSON.stringify(view)}\n`);
      } finally {
        await file.close();
      }
    }
    await audit("identity.bootstrap", { type: "identity", uuid: res.identity?.uuid });
    return out === null ? view : { identity: view.identity, secrets_file: out };
  }
  if (group === "credential" && action === "create") {
    const identity = createServiceClient(identityV1.IdentityService, { baseUrl: config.IDENTITY_URL, serviceToken, protocol: "grpc" });
    const merchantUuid = one(positionals, "merchant uuid");
    await openMerchant(merchantUuid);
    const res = await identity.createMachineCredential({ merchantUuid });
    await audit("credential.create", { type: "merchant", uuid: merchantUuid });
    const c = res.credential;
    return {
      credential: {
        credential_uuid: c?.credentialUuid,
        merchant_uuid: c?.merchantUuid,
        key_id: c?.keyId,
        status: c?.status,
        created_at: isoFromTimestamp(c?.createdAt),
        token: res.token,
      },
    };
  }
  throw new UsageError(`unknown command: ${[group, action].filter(Boolean).join(" ")}`);
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
    finish(process.stdout, USAGE, 0);
  } else if (error instanceof UsageError || (error as { code?: string }).code?.startsWith?.("ERR_PARSE_ARGS")) {
    finish(process.stderr, `${(error as Error).message ? `${(error as Error).message}\n\n` : ""}${USAGE}`, 2);
  } else {
    const code =
      error instanceof ConnectError
        ? (reasonOf(error) ?? Code[error.code].replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase())
        : error instanceof CliFailure
          ? error.code
          : "CLI_ERROR";
    const message = error instanceof ConnectError ? error.rawMessage : (error as Error).message;
    finish(process.stderr, `${JSON.stringify({ error: { code, message } })}\n`, 1);
  }
}
