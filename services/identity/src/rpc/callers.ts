import { identityV1 } from "@payin/proto";
import { ALL_METHODS, allowCallers } from "@payin/rpc";

/** What an operator does: the first admin, people's accounts and roles, machine credentials. */
const OPERATOR = [
  "bootstrapAdmin",
  "createIdentity",
  "listIdentities",
  "getIdentity",
  "setIdentityStatus",
  "removeRole",
  "createMachineCredential",
  "listMachineCredentials",
  "rotateMachineCredential",
  "revokeMachineCredential",
] as const;

/**
 * Which internal caller may call which identity RPC (see docs/architecture.md).
 * A caller not listed, or listed with nothing, may call none.
 */
export const CALLERS = allowCallers(identityV1.IdentityService, {
  // The API gateway: token checks, sign-in and sessions, and the admin API
  // (everything but bootstrapping the first admin, which only operators do).
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
    ...OPERATOR.filter((method) => method !== "bootstrapAdmin"),
  ],
  // Services never call identity: above all, they cannot mint machine credentials.
  payins: [],
  allocation: [],
  // The operator CLI (and npm start's bootstrap of the first admin).
  payinctl: [...OPERATOR],
  // The test harness and the benchmark only: never given a digest in a deployment.
  test: ALL_METHODS,
});
