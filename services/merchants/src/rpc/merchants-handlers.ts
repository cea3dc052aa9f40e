import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { MikroORM } from "@payin/db";
import { DomainError } from "@payin/errors";
import { isUuid, uuidv7 } from "@payin/ids";
import { merchantsV1 } from "@payin/proto";
import { toTimestamp } from "@payin/rpc";
import {
  getMerchant,
  newMerchant,
  transitionMerchant,
  type Merchant,
  type MerchantStatus,
  type MerchantTransition,
} from "../domain/merchant.js";
import { MerchantsReason } from "../domain/reasons.js";
import { MerchantRepository } from "../store/merchant-repository.js";

const { MerchantSchema, MerchantStatus: PbStatus, MerchantTransition: PbTransition } = merchantsV1;

const STATUS_TO_PB: Record<MerchantStatus, merchantsV1.MerchantStatus> = {
  inactive: PbStatus.INACTIVE,
  active: PbStatus.ACTIVE,
  suspended: PbStatus.SUSPENDED,
  closed: PbStatus.CLOSED,
};

const TRANSITION_FROM_PB: Partial<Record<merchantsV1.MerchantTransition, MerchantTransition>> = {
  [PbTransition.ACTIVATE]: "activate",
  [PbTransition.DEACTIVATE]: "deactivate",
  [PbTransition.SUSPEND]: "suspend",
  [PbTransition.CLOSE]: "close",
};

function toPb(m: Merchant): merchantsV1.Merchant {
  return create(MerchantSchema, {
    uuid: m.uuid,
    displayName: m.displayName,
    legalName: m.legalName ?? undefined,
    status: STATUS_TO_PB[m.status],
    createdAt: toTimestamp(m.createdAt),
    updatedAt: toTimestamp(m.updatedAt),
  });
}

function merchantUuid(value: string): string {
  if (!isUuid(value)) throw new DomainError(MerchantsReason.MerchantNotFound, "merchant not found");
  return value;
}

/** MerchantsService handlers: proto in, domain call, proto out. */
export function merchantsHandlers(orm: MikroORM): ServiceImpl<typeof merchantsV1.MerchantsService> {
  const repo = () => new MerchantRepository(orm.em.fork());
  return {
    async createMerchant(req) {
      const merchant = newMerchant({ uuid: uuidv7(), displayName: req.displayName, legalName: req.legalName, now: new Date() });
      await repo().insert(merchant);
      return { merchant: toPb(merchant) };
    },
    async getMerchant(req) {
      return { merchant: toPb(await getMerchant(repo(), merchantUuid(req.uuid))) };
    },
    async transitionMerchant(req) {
      const transition = TRANSITION_FROM_PB[req.transition];
      if (!transition) throw new DomainError(MerchantsReason.InvalidArgument, "transition is required");
      return { merchant: toPb(await transitionMerchant(repo(), merchantUuid(req.uuid), transition, new Date())) };
    },
    async getPayinContext(req) {
      const merchant = await getMerchant(repo(), merchantUuid(req.merchantUuid));
      return { status: STATUS_TO_PB[merchant.status] };
    },
  };
}
