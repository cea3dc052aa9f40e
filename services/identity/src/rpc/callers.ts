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

/**
 * Internal callers that may administer with no person behind the call (the
 * ADMINISTRATION RPCs they may call, without `caller`): the operator CLI, which
 * holds no session and acts as the platform itself (audited as `operator_cli`;
 * docs/operations.md, "Operator CLI"), and the test harness. From any other
 * caller an operation without a person is FORBIDDEN: the API gateway always
 * acts for a person.
 */
export const ACT_WITHOUT_PERSON: ReadonlySet<string> = new Set(["payinctl", "test"]);

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
  // The operator CLI (and npm start's bootstrap of the first admin). It holds no
  // session: it administers identities and machine credentials as the platform
  // itself (ACT_WITHOUT_PERSON), never a person's sessions, sign-in or MFA.
  payinctl: ["bootstrapAdmin", ...ADMINISTRATION],
  // The test harness and the benchmark only: never given a digest in a deployment.
  test: ALL_METHODS,
});
