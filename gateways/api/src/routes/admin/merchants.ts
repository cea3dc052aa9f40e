/**
 * /admin/merchants: list, create, read, lifecycle transitions and members. The
 * operations are @payin/operations' (the merchants service records its own
 * changes; refused attempts are recorded by the library's audit rule).
 */
import type Router from "@koa/router";
import { MERCHANT_STATUS, MERCHANT_STATUS_NAMES, MERCHANT_TRANSITION_NAMES, merchantsV1 } from "@payin/proto";
import { attachMember, createMerchant, listView, membershipView, merchantView, readMember, transitionMerchant } from "@payin/operations";
import type { AppDeps } from "../../deps.js";
import { requirePermission, requireRecentMfa } from "../../auth/authenticator.js";
import { isUuidAnyCase } from "@payin/ids";
import { charLength, listPage, optionalString, PAGE_PARAMETERS, readQuery, requiredString, rpcOffset, UUID_RULE, validationError } from "@payin/http";
import { actorOf, operationPorts } from "../../operations.js";
import { param, readBody, readNoBody } from "./common.js";

export function merchantRoutes(router: Router, deps: Pick<AppDeps, "auth" | "identity" | "merchants" | "logger">): void {
  const ports = operationPorts(deps);

  router.get("/merchants", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "merchant.read");
    const query = readQuery(ctx, ["status", "uuid", "display_name", ...PAGE_PARAMETERS]);
    const page = listPage(query);
    if (query.status !== undefined && !MERCHANT_STATUS.isName(query.status)) {
      throw validationError(`status must be one of: ${MERCHANT_STATUS_NAMES.join(", ")}`);
    }
    if (query.uuid !== undefined && !isUuidAnyCase(query.uuid)) throw validationError("uuid must be a uuid");
    if (query.display_name !== undefined && (charLength(query.display_name) < 1 || charLength(query.display_name) > 150)) {
      throw validationError("display_name must be 1 to 150 characters");
    }
    const res = await deps.merchants.listMerchants({
      limit: page.limit,
      offset: rpcOffset(page.offset),
      status: query.status ? MERCHANT_STATUS.byName[query.status] : merchantsV1.MerchantStatus.UNSPECIFIED,
      uuid: query.uuid?.toLowerCase(),
      displayName: query.display_name,
    });
    ctx.body = listView(res.merchants.map(merchantView), res.total, page);
  });

  router.post("/merchants", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const merchant = await createMerchant(ports, actorOf(ctx, principal), async () => {
      requirePermission(principal, "merchant.manage");
      readQuery(ctx, []);
      const body = await readBody(ctx, ["display_name", "legal_name"]);
      const displayName = requiredString(body, "display_name", { min: 1, max: 150, notBlank: true });
      const legalName = optionalString(body, "legal_name", { min: 1, max: 255, notBlank: true });
      return { displayName, legalName };
    });
    ctx.status = 201;
    ctx.set("location", `/api/v1/admin/merchants/${merchant.uuid}`);
    ctx.body = { merchant: merchantView(merchant) };
  });

  router.get("/merchants/:uuid", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "merchant.read");
    readQuery(ctx, []);
    const res = await deps.merchants.getMerchant({ uuid: param(ctx, "uuid") });
    ctx.body = { merchant: merchantView(res.merchant!) };
  });

  // Lifecycle operations, one per transition of the contract; the source states each allows are the merchants service's table.
  for (const verb of MERCHANT_TRANSITION_NAMES) {
    router.post(`/merchants/:uuid/${verb}`, async (ctx) => {
      const principal = await deps.auth.authenticate(ctx);
      const merchant = await transitionMerchant(ports, actorOf(ctx, principal), param(ctx, "uuid"), verb, async () => {
        requirePermission(principal, "merchant.manage");
        requireRecentMfa(principal);
        readQuery(ctx, []);
        await readNoBody(ctx);
      });
      ctx.body = { merchant: merchantView(merchant) };
    });
  }

  // Idempotent: 201 when the identity became a member, 200 when it already was.
  // An identity that does not exist is 404 (IDENTITY_NOT_FOUND), before anything
  // is written.
  router.put("/merchants/:uuid/members", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const uuid = param(ctx, "uuid");
    const res = await attachMember(ports, actorOf(ctx, principal), uuid, async () => {
      requirePermission(principal, "merchant.manage");
      requireRecentMfa(principal);
      readQuery(ctx, []);
      const body = await readBody(ctx, ["identity_uuid"]);
      return { identityUuid: requiredString(body, "identity_uuid", UUID_RULE).toLowerCase() };
    });
    ctx.status = res.created ? 201 : 200;
    if (res.created) ctx.set("location", `/api/v1/admin/merchants/${uuid}/members/${res.membership.identityUuid}`);
    ctx.body = { membership: membershipView(res.membership) };
  });

  // The resource an attach's Location names: a read like the merchant's.
  router.get("/merchants/:uuid/members/:identity_uuid", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "merchant.read");
    readQuery(ctx, []);
    const membership = await readMember(deps, param(ctx, "uuid"), param(ctx, "identity_uuid"));
    ctx.body = { membership: membershipView(membership) };
  });
}
