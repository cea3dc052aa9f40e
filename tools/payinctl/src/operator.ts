/**
 * What a command works with once its input is checked: the services' clients,
 * with payinctl's own credential, as the ports of @payin/operations (whose
 * audit rule is the admin API's), and who acts: the person signed in with
 * `payinctl login` (identity's session and actor assertion), or nobody — then
 * every record names the actor `operator_cli`. Either way each record names the
 * OS user payinctl runs as, and this invocation's request id.
 */
import type { Client, Interceptor } from "@connectrpc/connect";
import type { Actor, AuditOutcome, AuditPorts } from "@payin/operations";
import { allocationV1, identityV1, merchantsV1 } from "@payin/proto";
import { createServiceClient, OPERATOR_OS_USER_HEADER, operatorOsUser } from "@payin/rpc";
import type { SignedInPerson } from "./session.js";

/** Where the services are and the credential to present. */
export interface Connection {
  identityUrl: string;
  merchantsUrl: string;
  allocationUrl: string;
  serviceToken: string;
  requestId: string;
  /** Where `payinctl session login` keeps the session (session.ts). */
  sessionFile: string;
}

/** Reports the OS user payinctl runs as to identity and allocation, for the audit records of their changes. */
function operatorOsUserHeader(osUser: string): Interceptor {
  return (next) => (req) => {
    req.header.set(OPERATOR_OS_USER_HEADER, osUser);
    return next(req);
  };
}

export class Operator implements AuditPorts {
  readonly merchants: Client<typeof merchantsV1.MerchantsService>;
  readonly identity: Client<typeof identityV1.IdentityService>;
  readonly allocation: Client<typeof allocationV1.AllocationService>;
  /** The Actor (merchants.v1) of every change this invocation makes. */
  actor: Actor;
  /** The signed-in person's session as identity's Caller; undefined when nobody signed in. */
  caller: { sessionToken: string } | undefined;
  /** Where the signed-in person's session is kept. */
  readonly sessionFile: string;
  /** The signed-in person, if any (session.ts). */
  person: SignedInPerson | "ended" | null = null;

  constructor(connection: Connection) {
    const osUser = operatorOsUser();
    const options = (baseUrl: string, interceptors: Interceptor[] = []) => ({ baseUrl, serviceToken: connection.serviceToken, protocol: "grpc" as const, interceptors });
    // gRPC (HTTP/2), as the services' own clients speak Connect; both reach the same port.
    this.merchants = createServiceClient(merchantsV1.MerchantsService, options(connection.merchantsUrl));
    // Identity records its own changes (its audit outbox) and takes the OS user from this header.
    this.identity = createServiceClient(identityV1.IdentityService, options(connection.identityUrl, [operatorOsUserHeader(osUser)]));
    // So does allocation (a wallet set, a rail resumed).
    this.allocation = createServiceClient(allocationV1.AllocationService, options(connection.allocationUrl, [operatorOsUserHeader(osUser)]));
    this.actor = { assertion: "", osUser };
    this.sessionFile = connection.sessionFile;
  }

  /** Acts as `person` from now on: identity's session for identity's operations, the assertion for every record. */
  actAs(person: SignedInPerson | "ended" | null): void {
    this.person = person;
    if (person && person !== "ended") {
      this.caller = { sessionToken: person.sessionToken };
      this.actor = { assertion: person.principal.actorAssertion, osUser: this.actor.osUser };
    }
  }

  /** A record the audit log could not take: the change (or refusal) stands, and stderr says so. */
  auditFailed(error: unknown, event: { action: string; outcome: AuditOutcome }): void {
    const warning = event.outcome === "succeeded" ? "the change was made but could not be recorded in the audit log" : "the refusal could not be recorded in the audit log";
    process.stderr.write(`${JSON.stringify({ warning, action: event.action, detail: (error as Error).message })}\n`);
  }
}
