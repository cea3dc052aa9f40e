import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { MikroORM } from "@payin/db";
import type { Logger } from "@payin/logging";
import { uuidv7 } from "@payin/ids";
import { identityV1 } from "@payin/proto";
import { toTimestamp } from "@payin/rpc";
import { authenticate } from "../domain/authenticate.js";
import { issueMachineCredential, type MachineCredential } from "../domain/machine-credential.js";
import type { Principal } from "../domain/principal.js";
import { MachineCredentialRepository } from "../store/machine-credential-repository.js";

const { MachineCredentialSchema, PrincipalSchema, PrincipalKind: PbKind } = identityV1;

const KIND_TO_PB: Record<Principal["kind"], identityV1.PrincipalKind> = {
  machine: PbKind.MACHINE,
};

function credentialToPb(c: MachineCredential): identityV1.MachineCredential {
  return create(MachineCredentialSchema, {
    credentialUuid: c.credentialUuid,
    merchantUuid: c.merchantUuid,
    keyId: c.keyId,
    status: c.status,
    createdAt: toTimestamp(c.createdAt),
    lastUsedAt: c.lastUsedAt ? toTimestamp(c.lastUsedAt) : undefined,
    revokedAt: c.revokedAt ? toTimestamp(c.revokedAt) : undefined,
    replacedByUuid: c.replacedByUuid ?? undefined,
  });
}

function principalToPb(p: Principal): identityV1.Principal {
  return create(PrincipalSchema, {
    kind: KIND_TO_PB[p.kind],
    merchantUuid: p.merchantUuid,
    credentialUuid: p.credentialUuid,
    permissions: [...p.permissions],
  });
}

/** IdentityService handlers: proto in, domain call, proto out. */
export function identityHandlers(orm: MikroORM, logger: Logger): ServiceImpl<typeof identityV1.IdentityService> {
  const machineCredentials = () => new MachineCredentialRepository(orm.em.fork());
  const onBackgroundError = (err: unknown, credentialUuid: string) => {
    logger.warn({ err, credentialUuid }, "could not record machine credential use");
  };
  return {
    async createMachineCredential(req) {
      const { credential, token } = await issueMachineCredential(machineCredentials(), {
        credentialUuid: uuidv7(),
        merchantUuid: req.merchantUuid,
        now: new Date(),
      });
      return { credential: credentialToPb(credential), token };
    },
    async authenticate(req) {
      const principal = await authenticate({ machineCredentials: machineCredentials() }, req.token, {
        now: new Date(),
        onBackgroundError,
      });
      return { principal: principalToPb(principal) };
    },
  };
}
