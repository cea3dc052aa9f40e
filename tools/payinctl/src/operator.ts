/**
 * What a command works with once its input is checked: the services' clients,
 * with payinctl's own credential, as the ports of @payin/operations (whose
 * audit rule is the admin API's). payinctl acts as the platform itself (no
 * person, no session): every change names the actor `operator_cli` with this
 * invocation's request id.
 */
import type { Client } from "@connectrpc/connect";
import type { Actor, AuditOutcome, AuditPorts } from "@payin/operations";
import { allocationV1, identityV1, merchantsV1 } from "@payin/proto";
import { createServiceClient, operatorOsUser } from "@payin/rpc";

/** Where the services are and the credential to present. */
export interface Connection {
  identityUrl: string;
  merchantsUrl: string;
  allocationUrl: string;
  serviceToken: string;
  requestId: string;
}

export class Operator implements AuditPorts {
  readonly merchants: Client<typeof merchantsV1.MerchantsService>;
  readonly identity: Client<typeof identityV1.IdentityService>;
  readonly allocation: Client<typeof allocationV1.AllocationService>;
  /** The Actor (merchants.v1) of every change this invocation makes. */
  readonly actor: Actor;

  constructor(connection: Connection) {
    const options = (baseUrl: string) => ({ baseUrl, serviceToken: connection.serviceToken, protocol: "grpc" as const });
    // gRPC (HTTP/2), as the services' own clients speak Connect; both reach the same port.
    this.merchants = createServiceClient(merchantsV1.MerchantsService, options(connection.merchantsUrl));
    this.identity = createServiceClient(identityV1.IdentityService, options(connection.identityUrl));
    this.allocation = createServiceClient(allocationV1.AllocationService, options(connection.allocationUrl));
    this.actor = { assertion: "", osUser: operatorOsUser() };
  }

  /** A record the audit log could not take: the change (or refusal) stands, and stderr says so. */
  auditFailed(error: unknown, event: { action: string; outcome: AuditOutcome }): void {
    const warning = event.outcome === "succeeded" ? "the change was made but could not be recorded in the audit log" : "the refusal could not be recorded in the audit log";
    process.stderr.write(`${JSON.stringify({ warning, action: event.action, detail: (error as Error).message })}\n`);
  }
}
