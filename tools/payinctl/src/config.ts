import path from "node:path";
import { optionalSecret, serviceUrl, str } from "@payin/config";
import { REPO_ROOT } from "@payin/launcher";

/**
 * What payinctl reads from its environment, the configuration `npm start` uses:
 * each service at `<NAME>_URL`, else at 127.0.0.1 on `<NAME>_PORT` (or its default
 * port); SERVICE_TOKEN, else the token `npm start` keeps in PAYIN_DATA_DIR.
 */
export const cliConfigSchema = {
  IDENTITY_URL: serviceUrl("IDENTITY_PORT"),
  MERCHANTS_URL: serviceUrl("MERCHANTS_PORT"),
  ALLOCATION_URL: serviceUrl("ALLOCATION_PORT"),
  SERVICE_TOKEN: optionalSecret(32),
  PAYIN_DATA_DIR: str(path.join(REPO_ROOT, ".data")),
};
