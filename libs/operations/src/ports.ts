/**
 * The services an operation reaches: the generated Connect clients, injected by
 * whoever calls (a gateway's clients, payinctl's). Each operation takes the Pick
 * of them it uses, so what it can reach is in its signature.
 */
import type { Client } from "@connectrpc/connect";
import type { allocationV1, identityV1, merchantsV1, payinsV1 } from "@payin/proto";

export interface ServicePorts {
  identity: Client<typeof identityV1.IdentityService>;
  merchants: Client<typeof merchantsV1.MerchantsService>;
  allocation: Client<typeof allocationV1.AllocationService>;
  payins: Client<typeof payinsV1.PayinsService>;
}

/**
 * What a caller still checks before a change (its permission, MFA, the body it
 * read), run by the operation inside its audited scope so that such a refusal
 * is recorded under the change's action; it answers the change's input.
 */
export type Prepare<I> = () => I | Promise<I>;

/** The Caller (identity.v1) a person's session token makes, passed to identity to re-check; none for payinctl. */
export interface Caller {
  sessionToken: string;
}
