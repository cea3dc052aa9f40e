/**
 * Generated protobuf code for every service contract (see proto/). Regenerate
 * with `npm run proto:generate`; `npm run proto:check` fails when it is stale.
 */
import { installTextEncoding } from "./text-encoding.js";

export * from "./gen/payin/common/v1/error_detail_pb.js";
export * as identityV1 from "./gen/payin/identity/v1/identity_service_pb.js";
export * as merchantsV1 from "./gen/payin/merchants/v1/merchants_service_pb.js";
export * as payinsV1 from "./gen/payin/payins/v1/payins_service_pb.js";
export * as allocationV1 from "./gen/payin/allocation/v1/allocation_service_pb.js";
export * as notificationsV1 from "./gen/payin/notifications/v1/notifications_service_pb.js";
export * as healthV1 from "./gen/grpc/health/v1/health_pb.js";
export * from "./names.js";

// Every process that speaks the contracts imports this module before it
// encodes a message: the faster string encoding is in place from the start.
installTextEncoding();
