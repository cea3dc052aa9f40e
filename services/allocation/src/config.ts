import { port, serviceBase, serviceUrl } from "@payin/config";

export const configSchema = { ...serviceBase, ALLOCATION_PORT: port(50054), MERCHANTS_URL: serviceUrl("MERCHANTS_PORT") };
