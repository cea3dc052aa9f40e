/**
 * Every payinctl command: its arguments (arguments.ts makes the usage and the
 * checks from them) and what it does: the admin API's operations, from
 * @payin/operations (the same merchant checks before a change in identity or
 * allocation, the same audit actions, targets and refusals recorded), and what
 * it prints, the admin API's JSON views of the same resources.
 */
import { randomBytes } from "node:crypto";
import {
  attachMember,
  audited,
  auditEventView,
  bindingView,
  connectionView,
  createIdentity,
  createMachineCredential,
  createMerchant,
  createPolicy,
  createProvider,
  createRule,
  credentialView,
  ensureOperatingProfile,
  ensureProviderBinding,
  ensureProviderConnection,
  existingMerchant,
  IDENTITY_STATUS_CHANGES,
  identityView,
  issuedCredentialView,
  listMachineCredentials,
  listView,
  membershipView,
  merchantView,
  operatingProfileView,
  policyView,
  providerView,
  readinessView,
  readReceivingWallet,
  removeMember,
  removeRole,
  resetSignInFailures,
  revokeMachineCredential,
  rotateConnectionSecret,
  rotateMachineCredential,
  ruleView,
  setIdentityStatus,
  setReceivingWallet,
  transitionMerchant,
  walletView,
  type IdentityStatusVerb,
} from "@payin/operations";
import { MERCHANT_STATUS, MERCHANT_STATUS_NAMES, MERCHANT_TRANSITION_NAMES, merchantsV1, type MerchantTransitionName } from "@payin/proto";
import { WALLET_PERMISSION } from "@payin/permissions";
import { isoFromTimestamp } from "@payin/rpc";
import type { CommandSpec, Input, OptionSpec } from "./arguments.js";
import type { Operator } from "./operator.js";
import { checkSecretsDestination, issueSecrets } from "./secrets.js";
import { logIn, logOut, readInputLines } from "./session.js";
import { bootstrapView } from "./views.js";

type Command = CommandSpec<Operator>;

const MERCHANT = [{ name: "MERCHANT_UUID", kind: "uuid" }] as const;
const IDENTITY = [{ name: "IDENTITY_UUID", kind: "uuid" }] as const;
const PAGE: Record<string, OptionSpec> = { limit: { value: "N", kind: "limit" }, offset: { value: "N", kind: "offset" } };
const DEFAULT_LIMIT = 20;

/** The page an input asks for: limit 1 to 100 (default 20), offset from 0 (default 0). */
function page(input: Input) {
  return { limit: input.number("limit", DEFAULT_LIMIT), offset: input.number("offset", 0) };
}

/** What each merchant transition of the contract does, as its command's summary. */
const TRANSITION_SUMMARIES: Readonly<Record<MerchantTransitionName, string>> = {
  activate: "inactive or suspended -> active",
  deactivate: "active or suspended -> inactive",
  suspend: "active -> suspended",
  close: "any status but closed -> closed, for good",
};

/** What each status change of an identity does, as its command's summary. */
const IDENTITY_STATUS_SUMMARIES: Readonly<Record<IdentityStatusVerb, string>> = {
  disable: "disables an identity and ends its sessions",
  lock: "locks an identity and ends its sessions",
  activate: "makes a disabled or locked identity active again (and forgives its counted sign-in failures)",
};

/**
 * A password for a new identity, shown once: 144 random bits (24 base64url
 * characters), never containing the email's name (identity would refuse it).
 */
function generatePassword(email: string): string {
  const name = email.slice(0, Math.max(0, email.lastIndexOf("@"))).toLowerCase();
  for (;;) {
    const password = randomBytes(18).toString("base64url");
    if (name.length < 3 || !password.toLowerCase().includes(name)) return password;
  }
}

const merchantCommands: Command[] = [
  {
    group: "merchant",
    action: "create",
    person: "merchant.manage",
    summary: "creates a merchant; it starts inactive",
    options: { "display-name": { value: "NAME", required: true }, "legal-name": { value: "NAME" } },
    async run(op, input) {
      const merchant = await createMerchant(op, op.actor, () => ({ displayName: input.text("display-name"), legalName: input.optional("legal-name") }));
      return { merchant: merchantView(merchant) };
    },
  },
  {
    group: "merchant",
    action: "list",
    summary: "lists merchants, newest first, with exact filters",
    options: {
      status: { value: MERCHANT_STATUS_NAMES.join("|"), kind: { choices: [...MERCHANT_STATUS_NAMES] } },
      uuid: { value: "UUID", kind: "uuid" },
      "display-name": { value: "NAME" },
      ...PAGE,
    },
    async run(op, input) {
      const { limit, offset } = page(input);
      const status = input.optional("status");
      const res = await op.merchants.listMerchants({
        limit,
        offset,
        status: status && MERCHANT_STATUS.isName(status) ? MERCHANT_STATUS.byName[status] : merchantsV1.MerchantStatus.UNSPECIFIED,
        uuid: input.optional("uuid"),
        displayName: input.optional("display-name"),
      });
      return listView(res.merchants.map(merchantView), res.total, { limit, offset });
    },
  },
  {
    group: "merchant",
    action: "get",
    summary: "reads a merchant (closed ones too)",
    args: MERCHANT,
    async run(op, input) {
      return { merchant: merchantView(await existingMerchant(op, input.args[0]!)) };
    },
  },
  ...MERCHANT_TRANSITION_NAMES.map(
    (verb): Command => ({
      group: "merchant",
      action: verb,
      person: "merchant.manage",
      summary: TRANSITION_SUMMARIES[verb],
      args: MERCHANT,
      async run(op, input) {
        return { merchant: merchantView(await transitionMerchant(op, op.actor, input.args[0]!, verb)) };
      },
    }),
  ),
];

const memberCommands: Command[] = [
  {
    group: "member",
    action: "attach",
    person: "merchant.manage",
    summary:
      "makes an identity a member of a merchant (created: false when it already was); --role sets its role for that merchant, " +
      "or changes it on a repeat (role_changed: true); without it a new membership names no role (the identity's own merchant roles apply)",
    args: MERCHANT,
    options: { identity: { value: "IDENTITY_UUID", kind: "uuid", required: true }, role: { value: "merchant_admin|merchant_member" } },
    async run(op, input) {
      const role = input.optional("role");
      const res = await attachMember(op, op.actor, input.args[0]!, () => ({ identityUuid: input.text("identity"), role }));
      return { membership: membershipView(res.membership), created: res.created, role_changed: res.roleChanged };
    },
  },
  {
    group: "member",
    action: "remove",
    person: "merchant.manage",
    summary: "removes an identity's membership of a merchant (prints it as it was): the person's next request for the merchant is refused",
    args: MERCHANT,
    options: { identity: { value: "IDENTITY_UUID", kind: "uuid", required: true } },
    async run(op, input) {
      return { membership: membershipView(await removeMember(op, op.actor, input.args[0]!, input.text("identity"))) };
    },
  },
  {
    group: "member",
    action: "list",
    summary: "lists the merchants an identity is a member of, oldest membership first",
    options: { identity: { value: "IDENTITY_UUID", kind: "uuid", required: true } },
    async run(op, input) {
      const identityUuid = input.text("identity");
      await op.identity.getIdentity({ identityUuid });
      const res = await op.merchants.listMemberships({ identityUuid });
      return { memberships: res.memberships.map(membershipView) };
    },
  },
];

const configurationCommands: Command[] = [
  {
    group: "rule",
    action: "set",
    person: "rule.manage",
    summary: "opens a new version of the rule for (capability, jurisdiction), closing the open one",
    options: {
      capability: { value: "CAPABILITY", required: true },
      jurisdiction: { value: "CC", required: true },
      effect: { value: "allow|deny", required: true },
    },
    async run(op, input) {
      const rule = await createRule(op, op.actor, () => ({ capability: input.text("capability"), jurisdiction: input.text("jurisdiction"), effect: input.text("effect") }));
      return { rule: ruleView(rule) };
    },
  },
  {
    group: "rule",
    action: "list",
    summary: "lists the rules' open versions (every version with --include-closed) by capability, jurisdiction and version",
    options: { "include-closed": {}, ...PAGE },
    async run(op, input) {
      const { limit, offset } = page(input);
      const res = await op.merchants.listRules({ includeClosed: input.flag("include-closed"), limit, offset });
      return listView(res.rules.map(ruleView), res.total, { limit, offset });
    },
  },
  {
    group: "profile",
    action: "set",
    person: "policy.manage",
    summary: "sets a merchant's operating profile (creates or updates it)",
    args: MERCHANT,
    options: { "operating-mode": { value: "non_custodial|platform_custody|hybrid", required: true } },
    async run(op, input) {
      const profile = await ensureOperatingProfile(op, op.actor, input.args[0]!, () => ({ operatingMode: input.text("operating-mode") }));
      return { operating_profile: operatingProfileView(profile) };
    },
  },
  {
    group: "policy",
    action: "set",
    person: "policy.manage",
    summary: "opens a new version of a merchant's policy for a scope, closing the open one",
    args: MERCHANT,
    options: { scope: { value: "payin|payout|custody|settlement", required: true }, effect: { value: "allow|deny", required: true } },
    async run(op, input) {
      const policy = await createPolicy(op, op.actor, input.args[0]!, () => ({ scope: input.text("scope"), effect: input.text("effect") }));
      return { policy: policyView(policy) };
    },
  },
  {
    group: "provider",
    action: "create",
    person: "provider.manage",
    summary: "registers a provider (its name unique, letter case ignored)",
    options: { name: { value: "NAME", required: true } },
    async run(op, input) {
      return { provider: providerView(await createProvider(op, op.actor, () => ({ name: input.text("name") }))) };
    },
  },
  {
    group: "provider",
    action: "list",
    summary: "lists the provider registry by name (evm-rpc is always there)",
    options: PAGE,
    async run(op, input) {
      const { limit, offset } = page(input);
      const res = await op.merchants.listProviders({ limit, offset });
      return listView(res.providers.map(providerView), res.total, { limit, offset });
    },
  },
  {
    group: "binding",
    action: "ensure",
    person: "provider.manage",
    summary: "binds a provider to a merchant for (capability, jurisdiction) (created: false when it was)",
    args: MERCHANT,
    options: {
      provider: { value: "PROVIDER_UUID", kind: "uuid", required: true },
      capability: { value: "CAPABILITY", required: true },
      jurisdiction: { value: "CC", required: true },
    },
    async run(op, input) {
      const res = await ensureProviderBinding(op, op.actor, input.args[0]!, () => ({
        providerUuid: input.text("provider"),
        capability: input.text("capability"),
        jurisdiction: input.text("jurisdiction"),
      }));
      return { provider_binding: bindingView(res.binding), created: res.created };
    },
  },
  {
    group: "connection",
    action: "ensure",
    person: "provider.manage",
    summary: "connects a merchant to a provider, with a secret reference (never a secret) (created: false when it was)",
    args: MERCHANT,
    options: { provider: { value: "PROVIDER_UUID", kind: "uuid", required: true }, "secret-reference": { value: "SCHEME:PATH" } },
    async run(op, input) {
      const res = await ensureProviderConnection(op, op.actor, input.args[0]!, () => ({
        providerUuid: input.text("provider"),
        secretReference: input.optional("secret-reference"),
      }));
      return { provider_connection: connectionView(res.connection), created: res.created };
    },
  },
  {
    group: "connection",
    action: "rotate-secret",
    person: "provider.manage",
    summary: "replaces a connection's secret reference",
    args: [...MERCHANT, { name: "CONNECTION_UUID", kind: "uuid" }],
    options: { "secret-reference": { value: "SCHEME:PATH", required: true } },
    async run(op, input) {
      const [merchantUuid, connectionUuid] = input.args as [string, string];
      const connection = await rotateConnectionSecret(op, op.actor, merchantUuid, connectionUuid, () => ({ secretReference: input.text("secret-reference") }));
      return { provider_connection: connectionView(connection) };
    },
  },
  {
    group: "wallet",
    action: "set",
    person: WALLET_PERMISSION,
    summary: "sets (or replaces, keeping its address counter) a merchant's receiving wallet: the xpub of m/44'/60'/N'",
    args: MERCHANT,
    options: { xpub: { value: "XPUB", required: true } },
    async run(op, input) {
      return { wallet: walletView(await setReceivingWallet(op, op.actor, input.args[0]!, () => ({ xpub: input.text("xpub") }))) };
    },
  },
  {
    group: "wallet",
    action: "get",
    summary: "reads a merchant's receiving wallet",
    args: MERCHANT,
    async run(op, input) {
      return { wallet: walletView(await readReceivingWallet(op, input.args[0]!)) };
    },
  },
  {
    group: "readiness",
    action: "get",
    summary: "whether a merchant can take pay-ins on each (asset, rail) pair (in a jurisdiction, or merchant-wide), and why not",
    args: MERCHANT,
    options: { jurisdiction: { value: "CC" } },
    async run(op, input) {
      const merchantUuid = input.args[0]!;
      const jurisdiction = input.optional("jurisdiction");
      return { readiness: readinessView(merchantUuid, (await op.allocation.getReadiness({ merchantUuid, jurisdiction })).pairs) };
    },
  },
];

const credentialCommands: Command[] = [
  {
    group: "credential",
    action: "create",
    person: "credential.manage",
    summary: "issues a merchant's machine credential; prints its token once",
    args: MERCHANT,
    async run(op, input) {
      const res = await createMachineCredential(op, op.actor, op.caller, input.args[0]!);
      return { credential: issuedCredentialView(res.credential, res.token) };
    },
  },
  {
    group: "credential",
    action: "list",
    summary: "lists a merchant's machine credentials, newest first (never a token)",
    args: MERCHANT,
    async run(op, input) {
      return { credentials: (await listMachineCredentials(op, op.caller, input.args[0]!)).map(credentialView) };
    },
  },
  {
    group: "credential",
    action: "rotate",
    person: "credential.manage",
    summary: "revokes a merchant's active credential and issues a new one at once; prints its token once",
    args: MERCHANT,
    async run(op, input) {
      const res = await rotateMachineCredential(op, op.actor, op.caller, input.args[0]!);
      return { credential: issuedCredentialView(res.credential, res.token) };
    },
  },
  {
    group: "credential",
    action: "revoke",
    summary: "revokes one of a merchant's credentials (a closed merchant's too)",
    args: [...MERCHANT, { name: "CREDENTIAL_UUID", kind: "uuid" }],
    async run(op, input) {
      const [merchantUuid, credentialUuid] = input.args as [string, string];
      return { credential: credentialView(await revokeMachineCredential(op, op.actor, op.caller, merchantUuid, credentialUuid)) };
    },
  },
];

const identityCommands: Command[] = [
  {
    group: "identity",
    action: "create",
    person: "identity.create",
    summary: "creates an identity with a generated password, shown once (to a terminal, or to FILE, created with mode 0600)",
    options: { email: { value: "EMAIL", required: true }, role: { value: "ROLE", multiple: true }, out: { value: "FILE" } },
    check: (input) => checkSecretsDestination(input.optional("out"), "identity", "the identity's password"),
    async run(op, input) {
      const email = input.text("email");
      return issueSecrets(input.optional("out"), async () => {
        const password = generatePassword(email);
        const identity = await createIdentity(op, op.actor, op.caller, () => ({ email, password, roles: input.list("role") }));
        return { identity: identityView(identity), password };
      });
    },
  },
  {
    group: "identity",
    action: "list",
    summary: "lists identities",
    options: PAGE,
    async run(op, input) {
      const { limit, offset } = page(input);
      const res = await op.identity.listIdentities({ limit, offset });
      return listView(res.identities.map(identityView), res.total, { limit, offset });
    },
  },
  ...IDENTITY_STATUS_CHANGES.map(
    ([verb]): Command => ({
      group: "identity",
      action: verb,
      summary: IDENTITY_STATUS_SUMMARIES[verb],
      args: IDENTITY,
      async run(op, input) {
        return { identity: identityView(await setIdentityStatus(op, op.actor, op.caller, input.args[0]!, verb)) };
      },
    }),
  ),
  {
    group: "identity",
    action: "remove-role",
    summary: "takes a role from an identity (never the last active platform_admin's)",
    args: IDENTITY,
    options: { role: { value: "ROLE", required: true } },
    async run(op, input) {
      return { identity: identityView(await removeRole(op, op.actor, op.caller, input.args[0]!, () => ({ role: input.text("role") }))) };
    },
  },
  {
    group: "identity",
    action: "reset-sign-in-failures",
    summary: "forgives an identity's counted sign-in failures, so its owner can sign in at once",
    args: IDENTITY,
    async run(op, input) {
      const res = await resetSignInFailures(op, op.actor, op.caller, input.args[0]!);
      return { identity: identityView(res.identity), forgiven_failures: res.forgiven };
    },
  },
];

const auditCommands: Command[] = [
  {
    group: "audit",
    action: "list",
    summary: "lists the audit log, newest first; each filter given must match exactly",
    options: {
      action: { value: "ACTION" },
      "target-type": { value: "TYPE" },
      "target-uuid": { value: "UUID", kind: "uuid" },
      "actor-kind": { value: "identity|machine_credential|operator_cli|system", kind: { choices: ["identity", "machine_credential", "operator_cli", "system"] } },
      "actor-uuid": { value: "UUID", kind: "uuid" },
      outcome: { value: "succeeded|failed", kind: { choices: ["succeeded", "failed"] } },
      ...PAGE,
    },
    async run(op, input) {
      const { limit, offset } = page(input);
      const res = await op.merchants.listAuditEvents({
        limit,
        offset,
        action: input.optional("action"),
        targetType: input.optional("target-type"),
        targetUuid: input.optional("target-uuid"),
        actorKind: input.optional("actor-kind"),
        actorUuid: input.optional("actor-uuid"),
        outcome: input.optional("outcome"),
      });
      return listView(res.events.map(auditEventView), res.total, { limit, offset });
    },
  },
];

const adminCommands: Command[] = [
  {
    group: "admin",
    action: "bootstrap",
    summary: "creates the first platform admin (only while none exists); its secrets go to a terminal, or to FILE (mode 0600)",
    options: { email: { value: "EMAIL", required: true }, out: { value: "FILE" } },
    check: (input) => checkSecretsDestination(input.optional("out"), "admin", "the first admin's secrets"),
    async run(op, input) {
      return issueSecrets(input.optional("out"), async () => {
        const spec = { action: "identity.bootstrap", target: { type: "identity" }, successRecordedBy: "identity" } as const;
        const res = await audited(op, op.actor, spec, () => op.identity.bootstrapAdmin({ email: input.text("email") }));
        return bootstrapView(res);
      });
    },
  },
];

const RAIL = [{ name: "RAIL", kind: "text" }] as const;

/** A rail's observation as payinctl prints it. */
function railView(r: { rail: string; chainId: bigint; nextBlock: bigint; settledThrough?: bigint; advancedAt?: { seconds: bigint; nanos: number }; halt?: { kind: string; reason: string; since?: { seconds: bigint; nanos: number } } }) {
  const iso = (t?: { seconds: bigint; nanos: number }) => (t ? new Date(Number(t.seconds) * 1000 + Math.floor(t.nanos / 1e6)).toISOString() : null);
  return {
    rail: r.rail,
    chain_id: Number(r.chainId),
    next_block: Number(r.nextBlock),
    settled_through: r.settledThrough === undefined ? null : Number(r.settledThrough),
    advanced_at: iso(r.advancedAt),
    halt: r.halt ? { kind: r.halt.kind, reason: r.halt.reason, since: iso(r.halt.since) } : null,
  };
}

const railCommands: Command[] = [
  {
    group: "rail",
    action: "list",
    summary: "how the chain observation of each rail stands: next block, highest settled block, last pass, and a halt with its reason",
    async run(op) {
      return { rails: (await op.allocation.listRails({})).rails.map(railView) };
    },
  },
  {
    group: "rail",
    action: "resume",
    summary: "resumes a rail halted by a disagreement between endpoints or a finality violation, once you have looked into it",
    args: RAIL,
    async run(op, input) {
      const rail = input.args[0]!;
      const spec = { action: "rail.resume", target: { type: "rail" }, successRecordedBy: "allocation" } as const;
      const res = await audited(op, op.actor, spec, () => op.allocation.resumeRail({ rail, actorAssertion: op.actor.assertion }));
      return { resumed: res.resumed, cleared: res.cleared ? { kind: res.cleared.kind, reason: res.cleared.reason } : null };
    },
  },
];

/** Every command, in the order the usage lists them. */
/** The operator's own sign-in (session.ts): who the other commands act as. */
const sessionCommands: Command[] = [
  {
    group: "session",
    action: "login",
    summary: "signs a person in (bearer session, TOTP required): reads the password, then a TOTP or recovery code, from stdin (prompted, not echoed, on a terminal)",
    options: { email: { value: "EMAIL", required: true } },
    async run(op, input) {
      const [password = "", code = ""] = await readInputLines(2, ["password: ", "TOTP or recovery code: "]);
      const session = await logIn(op.identity, op.sessionFile, input.text("email"), { password, code: code.trim() });
      return { session: { session_uuid: session.sessionUuid, identity_uuid: session.identity?.uuid ?? null, email: session.identity?.email ?? null, expires_at: isoFromTimestamp(session.expiresAt) }, session_file: op.sessionFile };
    },
  },
  {
    group: "session",
    action: "show",
    summary: "who the commands act as: the signed-in person (with the permissions and until when their second factor is recent), or nobody",
    async run(op) {
      const person = op.person;
      if (person === null) return { signed_in: false };
      if (person === "ended") return { signed_in: false, ended: true };
      const p = person.principal;
      return { signed_in: true, identity_uuid: p.identityUuid, session_uuid: p.sessionUuid, permissions: [...p.permissions], mfa_recent_until: isoFromTimestamp(p.mfaRecentUntil) };
    },
  },
  {
    group: "session",
    action: "logout",
    summary: "ends the signed-in person's session and forgets it",
    async run(op) {
      return { signed_out: await logOut(op.identity, op.sessionFile) };
    },
  },
];

export const COMMANDS: readonly Command[] = [
  ...sessionCommands,
  ...merchantCommands,
  ...memberCommands,
  ...configurationCommands,
  ...credentialCommands,
  ...identityCommands,
  ...auditCommands,
  ...railCommands,
  ...adminCommands,
];
