/**
 * What a command works with once its input is checked: the services' clients,
 * with payinctl's own credential, and the audit log. payinctl acts as the
 * platform itself (no person, no session): every change names the actor
 * `operator_cli` with this invocation's request id.
 */
import type { Client } from "@connectrpc/connect";
import { allocationV1, identityV1, merchantsV1 } from "@payin/proto";
import { Code, ConnectError, createServiceClient, reasonOf } from "@payin/rpc";

/** Where the services are and the credential to present. */
export interface Connection {
  identityUrl: string;
  merchantsUrl: string;
  allocationUrl: string;
  serviceToken: string;
  requestId: string;
}

export interface AuditTarget {
  type: string;
  uuid?: string;
}

export interface ChangeSpec<T> {
  /** Dotted action name, as the admin API records it (e.g. `merchant.activate`, `credential.rotate`). */
  action: string;
  /** The target recorded for a refusal, and for a success unless `succeeded` names another. */
  target: AuditTarget;
  /**
   * Who records a success: merchants records the changes it makes itself (the
   * request carries the actor); those made in identity and allocation are
   * recorded here once they succeeded.
   */
  successRecordedBy: "merchants" | "payinctl";
  /** The target of a success, when it is only known then (e.g. a new identity). */
  succeeded?: (result: T) => AuditTarget;
}

/** Answers the services give to a request they refuse (with their reason): recorded as failed attempts. */
const REFUSALS = new Set([Code.InvalidArgument, Code.NotFound, Code.AlreadyExists, Code.FailedPrecondition, Code.PermissionDenied, Code.OutOfRange]);

export class Operator {
  readonly merchants: Client<typeof merchantsV1.MerchantsService>;
  readonly identity: Client<typeof identityV1.IdentityService>;
  readonly allocation: Client<typeof allocationV1.AllocationService>;
  /** The Actor (merchants.v1) of every change this invocation makes. */
  readonly actor: { kind: string; uuid: string; requestId: string };

  constructor(connection: Connection) {
    const options = (baseUrl: string) => ({ baseUrl, serviceToken: connection.serviceToken, protocol: "grpc" as const });
    // gRPC (HTTP/2), as the services' own clients speak Connect; both reach the same port.
    this.merchants = createServiceClient(merchantsV1.MerchantsService, options(connection.merchantsUrl));
    this.identity = createServiceClient(identityV1.IdentityService, options(connection.identityUrl));
    this.allocation = createServiceClient(allocationV1.AllocationService, options(connection.allocationUrl));
    this.actor = { kind: "operator_cli", uuid: "", requestId: connection.requestId };
  }

  /**
   * Runs a change and keeps the audit log complete, as the admin API does: a
   * success merchants did not record itself, and every refusal the services
   * answered with a reason (validation, not found, conflict), are recorded.
   * Failures without an answer (unavailable, deadline) are not: their outcome
   * is unknown.
   */
  async change<T>(spec: ChangeSpec<T>, run: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await run();
    } catch (error) {
      const reason = error instanceof ConnectError && REFUSALS.has(error.code) ? reasonOf(error) : undefined;
      if (reason) await this.record(spec.action, spec.target, "failed", reason);
      throw error;
    }
    if (spec.successRecordedBy === "payinctl") await this.record(spec.action, spec.succeeded?.(result) ?? spec.target, "succeeded", "");
    return result;
  }

  /** The merchant, which must exist: MERCHANT_NOT_FOUND otherwise (merchants' own answer). */
  async existingMerchant(uuid: string): Promise<void> {
    await this.merchants.getMerchant({ uuid });
  }

  /**
   * The merchant, which must exist and not be closed (MERCHANT_CLOSED): a closed
   * merchant's configuration is frozen, what identity and allocation keep for it
   * (credentials, wallet) included, as the admin API has it.
   */
  async openMerchant(uuid: string): Promise<void> {
    await this.merchants.getMerchant({ uuid, requireOpen: true });
  }

  /** Records one event; best effort: the change stands, and a missing record is said on stderr. */
  private async record(action: string, target: AuditTarget, outcome: "succeeded" | "failed", errorCode: string): Promise<void> {
    try {
      await this.merchants.recordAuditEvent({
        event: { actor: this.actor, action, targetType: target.type, targetUuid: target.uuid ?? "", outcome, errorCode },
      });
    } catch (error) {
      const warning = outcome === "succeeded" ? "the change was made but could not be recorded in the audit log" : "the refusal could not be recorded in the audit log";
      process.stderr.write(`${JSON.stringify({ warning, action, detail: (error as Error).message })}\n`);
    }
  }
}
