import { port, serviceBase, serviceCredential, serviceUrl } from "@payin/config";

export const configSchema = {
  ...serviceBase,
  /** This service's own credential for its calls to merchants. */
  SERVICE_CREDENTIAL: serviceCredential("allocation"),
  ALLOCATION_PORT: port(50054),
  MERCHANTS_URL: serviceUrl("MERCHANTS_PORT"),
};
