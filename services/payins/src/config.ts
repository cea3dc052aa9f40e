import { port, serviceBase, serviceUrl } from "@payin/config";

export const configSchema = {
  ...serviceBase,
  PAYINS_PORT: port(50053),
  MERCHANTS_URL: serviceUrl("MERCHANTS_PORT"),
  ALLOCATION_URL: serviceUrl("ALLOCATION_PORT"),
};
