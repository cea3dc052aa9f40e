/**
 * payinctl: the operator CLI until the admin API exists. Talks to the running
 * services over RPC with the configuration `npm start` uses (service URLs from
 * <NAME>_URL or the default ports, SERVICE_TOKEN or .data/service-token).
 * Prints JSON on stdout; errors go to stderr as JSON with a non-zero exit.
 */
import { parseArgs } from "node:util";
import { DEFAULT_PORTS } from "@payin/config";
import { readServiceToken } from "@payin/launcher";
import { bootstrapView } from "./views.js";
import { allocationV1, identityV1, merchantStatusName, merchantsV1 } from "@payin/proto";
import { Code, ConnectError, createServiceClient, isoFromTimestamp, reasonOf } from "@payin/rpc";

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
  admin bootstrap --email EMAIL
`;

class UsageError extends Error {}

const TRANSITIONS: Record<string, merchantsV1.MerchantTransition> = {
  activate: merchantsV1.MerchantTransition.ACTIVATE,
  deactivate: merchantsV1.MerchantTransition.DEACTIVATE,
  suspend: merchantsV1.MerchantTransition.SUSPEND,
  close: merchantsV1.MerchantTransition.CLOSE,
};

function serviceUrl(name: "IDENTITY" | "MERCHANTS" | "ALLOCATION"): string {
  const port = process.env[`${name}_PORT`] ?? String(DEFAULT_PORTS[`${name}_PORT`]);
  return process.env[`${name}_URL`] ?? `http://127.0.0.1:${port}`;
}

function merchantView(m: merchantsV1.Merchant | undefined) {
  return {
    uuid: m?.uuid,
    display_name: m?.displayName,
    legal_name: m?.legalName ?? null,
    status: m ? merchantStatusName(m.status) : undefined,
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

async function run(argv: string[]): Promise<unknown> {
  const [group, action, ...rest] = argv;
  if (!group || group === "--help" || group === "help") throw new UsageError("");
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
    },
  });
  const serviceToken = await readServiceToken({ create: false });
  const merchants = createServiceClient(merchantsV1.MerchantsService, { baseUrl: serviceUrl("MERCHANTS"), serviceToken });

  if (group === "merchant") {
    if (action === "create") {
      if (positionals.length) throw new UsageError("merchant create takes no positional arguments");
      if (values["display-name"] === undefined) throw new UsageError("--display-name is required");
      const res = await merchants.createMerchant({ displayName: values["display-name"], legalName: values["legal-name"] });
      return { merchant: merchantView(res.merchant) };
    }
    if (action === "get") return { merchant: merchantView((await merchants.getMerchant({ uuid: one(positionals, "merchant uuid") })).merchant) };
    const transition = action ? TRANSITIONS[action] : undefined;
    if (transition !== undefined) {
      const res = await merchants.transitionMerchant({ uuid: one(positionals, "merchant uuid"), transition });
      return { merchant: merchantView(res.merchant) };
    }
  }
  if (group === "wallet") {
    const allocation = createServiceClient(allocationV1.AllocationService, { baseUrl: serviceUrl("ALLOCATION"), serviceToken });
    const merchantUuid = one(positionals, "merchant uuid");
    if (action === "set") {
      if (!values.xpub) throw new UsageError("--xpub is required");
      await merchants.getMerchant({ uuid: merchantUuid }); // a wallet only for a merchant that exists
      return { wallet: walletView((await allocation.setWallet({ merchantUuid, xpub: values.xpub })).wallet) };
    }
    if (action === "get") return { wallet: walletView((await allocation.getWallet({ merchantUuid })).wallet) };
  }
  const actor = { kind: "operator_cli", uuid: "", requestId: "" };
  const required = (name: keyof typeof values): string => {
    const value = values[name];
    if (typeof value !== "string") throw new UsageError(`--${name} is required`);
    return value;
  };
  if (group === "rule" && action === "set") {
    if (positionals.length) throw new UsageError("rule set takes no positional arguments");
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
    if (positionals.length) throw new UsageError("admin bootstrap takes no positional arguments");
    const identity = createServiceClient(identityV1.IdentityService, { baseUrl: serviceUrl("IDENTITY"), serviceToken });
    return bootstrapView(await identity.bootstrapAdmin({ email: required("email") }));
  }
  if (group === "credential" && action === "create") {
    const identity = createServiceClient(identityV1.IdentityService, { baseUrl: serviceUrl("IDENTITY"), serviceToken });
    const merchantUuid = one(positionals, "merchant uuid");
    await merchants.getMerchant({ uuid: merchantUuid });
    const res = await identity.createMachineCredential({ merchantUuid });
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

try {
  const result = await run(process.argv.slice(2));
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (error) {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith?.("ERR_PARSE_ARGS")) {
    process.stderr.write(`${(error as Error).message ? `${(error as Error).message}\n\n` : ""}${USAGE}`);
    process.exit(2);
  }
  const body =
    error instanceof ConnectError
      ? { error: { code: reasonOf(error) ?? Code[error.code], message: error.rawMessage } }
      : { error: { code: "CLI_ERROR", message: (error as Error).message } };
  process.stderr.write(`${JSON.stringify(body)}\n`);
  process.exit(1);
}
