import { identityV1 } from "@payin/proto";
import { ALL_METHODS, allowCallers } from "@payin/rpc";

/** The admin API's operations on people's accounts and roles, and on machine credentials. */
const ADMINISTRATION = [
  "createIdentity",
  "listIdentities",
  "getIdentity",
  "setIdentityStatus",
  "removeRole",
  "resetSignInFailures",
  "createMachineCredential",
  "listMachineCredentials",
  "rotateMachineCredential",
  "revokeMachineCredential",
] as const;

type Administration = (typeof ADMINISTRATION)[number];

/**
 * Break-glass recovery of people, which the operator CLI may do with no person
 * signed in (docs/security.md): reads, unlocking, locking or disabling an
 * identity, forgiving its sign-in failures, taking a role away, revoking a
 * machine credential. Everything that grants trust or moves money (creating an
 * identity, issuing or rotating a machine credential) needs a person who signed
 * in with TOTP, from the CLI too.
 */
const BREAK_GLASS: readonly Administration[] = [
  "listIdentities",
  "getIdentity",
  "setIdentityStatus",
  "resetSignInFailures",
  "removeRole",
  "listMachineCredentials",
  "revokeMachineCredential",
];

/**
 * Which ADMINISTRATION RPCs an internal caller may call with no person behind
 * the call (without `caller`): the operator CLI its break-glass ones, npm
 * start's own provisioning (`stack`: the demo merchant's credential) and the
 * test harness every one. From any other caller, or another RPC, an operation
 * without a person is FORBIDDEN: the API gateway always acts for a person.
 */
export const ACT_WITHOUT_PERSON: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["payinctl", new Set<string>(BREAK_GLASS)],
  ["stack", new Set<string>(["createMachineCredential"])],
  ["test", new Set<string>(ADMINISTRATION)],
]);

/**
 * Which internal caller may call which identity RPC: docs/callers.md is generated from
 * this (npm run docs:callers), and a test fails when a caller is let call what its code never calls.
 * A caller not listed, or listed with nothing, may call none.
 */
export const CALLERS = allowCallers(identityV1.IdentityService, {
  // The API gateway: token checks, sign-in and sessions, and the admin API
  // (always for a signed-in person; bootstrapping the first admin is the CLI's).
  api: [
    "authenticate",
    "login",
    "completeMfa",
    "getSession",
    "logout",
    "changePassword",
    "listSessions",
    "revokeSession",
    "enrollTotp",
    "confirmTotp",
    ...ADMINISTRATION,
  ],
  // The hosted checkout's merchant area: sign-in (cookie sessions), MFA, the session and logout.
  checkout: ["authenticate", "login", "completeMfa", "getSession", "logout"],
  // Services never call identity: above all, they cannot mint machine credentials.
  payins: [],
  allocation: [],
  // The operator CLI: an operator signs in with TOTP (bearer sessions) and
  // administers as that person; without one, only break-glass recovery
  // (ACT_WITHOUT_PERSON) and bootstrapping the first admin.
  payinctl: ["bootstrapAdmin", "login", "completeMfa", "authenticate", "logout", ...ADMINISTRATION],
  // npm start's own provisioning: the first admin and the demo merchant's credential.
  stack: ["bootstrapAdmin", "createMachineCredential"],
  // The test harness and the benchmark only: never given a digest in a deployment.
  test: ALL_METHODS,
});
