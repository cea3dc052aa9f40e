import path from "node:path";
import { optionalSecret, optionalServiceCredential, serviceUrl, str } from "@payin/config";
import { REPO_ROOT } from "@payin/launcher";

/**
 * What payinctl reads from its environment, the configuration `npm start` uses:
 * each service at `<NAME>_URL`, else at 127.0.0.1 on `<NAME>_PORT` (or its default
 * port). Its credential: SERVICE_CREDENTIAL (`payinctl.<secret>`, as a deployment
 * hands an operator), else the `payinctl` credential derived from the master
 * secret as `npm start` derives every process's: SERVICE_TOKEN, else the one
 * `npm start` keeps in PAYIN_DATA_DIR.
 */
export const cliConfigSchema = {
  IDENTITY_URL: serviceUrl("IDENTITY_PORT"),
  MERCHANTS_URL: serviceUrl("MERCHANTS_PORT"),
  ALLOCATION_URL: serviceUrl("ALLOCATION_PORT"),
  SERVICE_CREDENTIAL: optionalServiceCredential("payinctl"),
  SERVICE_TOKEN: optionalSecret(32),
  PAYIN_DATA_DIR: str(path.join(REPO_ROOT, ".data")),
};
