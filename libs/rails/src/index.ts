/**
 * The rails a deployment watches: per rail its chain, its JSON-RPC endpoint, the
 * token an intent on it is paid in, the other tokens watched for evidence, and
 * how the observer reads and settles it. Read from the environment once,
 * validated at boot; the endpoint is never stored in the database.
 */
// The rails and assets themselves are @payin/money's; a tool that knows rails but not money names them from here.
export { RAILS, type Asset, type Rail } from "@payin/money";
export { MAINNET_RAILS, PUBLIC_CHAINS, type PublicChain, type RailDefaults } from "./mainnet.js";
export { isLoopbackHost, railsFromEnv, RAIL_ENV_PREFIX, type RailConfig, type RailToken, type RailsConfig } from "./rails.js";
export {
  minimumAmount, minimumUnits, payability, payableTerms, payableTermsOf, type NotPayableReason, type Payability, type PayableTerms,
} from "./minimum.js";
