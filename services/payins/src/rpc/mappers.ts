import { create } from "@bufbuild/protobuf";
import { PAY_IN_STATUS_BY_NAME, payinsV1 } from "@payin/proto";
import { toTimestamp } from "@payin/rpc";
import type { PayInIntent } from "../domain/pay-in-intent.js";

/** The payins service's domain values as its contract's messages. */

const { PayInIntentSchema } = payinsV1;

export function payInIntentToPb(i: PayInIntent): payinsV1.PayInIntent {
  return create(PayInIntentSchema, {
    intentUuid: i.intentUuid,
    merchantUuid: i.merchantUuid,
    status: PAY_IN_STATUS_BY_NAME[i.status],
    asset: i.asset,
    rail: i.rail,
    expectedAmount: i.expectedAmount,
    address: i.address ?? undefined,
    allocationReference: i.allocationReference ?? undefined,
    reference: i.reference ?? undefined,
    jurisdiction: i.jurisdiction,
    createdAt: toTimestamp(i.createdAt),
    expiresAt: toTimestamp(i.expiresAt),
    updatedAt: toTimestamp(i.updatedAt),
  });
}
