import type { Client } from "@connectrpc/connect";
import { database, type Database, type MikroORM } from "@payin/db";
import { payinsV1 } from "@payin/proto";
import { payableTermsOf, railsFromEnv } from "@payin/rails";
import { startServiceHarness } from "@payin/testing";
import type { AddressAllocator, MerchantDirectory } from "../src/domain/create-pay-in-intent.js";
import type { RailMinimums } from "../src/domain/pay-in-intent.js";
import { serviceReasonCodes } from "../src/rpc/reason-codes.js";
import { createPayinsService } from "../src/service.js";
import { ormOptions } from "../src/store/orm.js";

/**
 * The payins service on its own database, served in process, with the given
 * stand-ins for merchants and allocation: what the service tests call. The
 * rails' minimums are the mainnet defaults' (0.001) unless given.
 */
export async function startPayinsHarness(ports: {
  merchants: MerchantDirectory;
  allocator: AddressAllocator;
  checkoutPaymentWindowS?: number;
  rails?: RailMinimums;
}): Promise<{ orm: MikroORM; db: Database; client: Client<typeof payinsV1.PayinsService> }> {
  let db!: Database;
  const harness = await startServiceHarness({
    service: payinsV1.PayinsService,
    domain: "payins",
    ormOptions,
    routes: (orm, logger) => createPayinsService({ db: (db = database(orm)), logger, rails: payableTermsOf(railsFromEnv({})), ...ports }),
    reasonCodes: serviceReasonCodes,
  });
  return { orm: harness.orm, db, client: harness.client };
}
