import { randomBytes } from "node:crypto";
import type { Interceptor } from "@connectrpc/connect";
import { assertionSigningKey } from "@payin/config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { database, migrate, openOrm, type MikroORM } from "@payin/db";
import { createLogger } from "@payin/logging";
import { identityV1 } from "@payin/proto";
import { Code, createServiceClient, domainErrorInterceptor, reasonOf } from "@payin/rpc";
import { createTestDatabase, failure, startTestServiceServer, type TestServiceServer } from "@payin/testing";
import { ACT_WITHOUT_PERSON, CALLERS } from "../src/rpc/callers.js";
import { reasonCodes } from "../src/rpc/reason-codes.js";
import { createIdentityService, SERVICE_NAMES } from "../src/service.js";
import { ormOptions } from "../src/store/orm.js";

const Identity = identityV1.IdentityService;
const procedure = (method: string) => `payin.identity.v1.IdentityService/${method}`;

describe("identity's callers", () => {
  it("lets no service call identity, the api all but bootstrapping, payinctl the operator's RPCs and its own sign-in", () => {
    expect(CALLERS.get("payins")!.size).toBe(0);
    expect(CALLERS.get("allocation")!.size).toBe(0);
    expect(CALLERS.get("api")!.has(procedure("Authenticate"))).toBe(true);
    expect(CALLERS.get("api")!.has(procedure("BootstrapAdmin"))).toBe(false);
    expect(CALLERS.get("payinctl")!.has(procedure("BootstrapAdmin"))).toBe(true);
    expect(CALLERS.get("api")!.has(procedure("ResetSignInFailures"))).toBe(true);
    // The CLI signs its operator in (a bearer session, TOTP) and out; it never reaches another person's sessions or MFA enrolment.
    for (const method of ["Authenticate", "Login", "CompleteMfa", "Logout"]) {
      expect({ method, allowed: CALLERS.get("payinctl")!.has(procedure(method)) }).toEqual({ method, allowed: true });
    }
    for (const method of ["GetSession", "ChangePassword", "ListSessions", "RevokeSession", "EnrollTotp", "ConfirmTotp"]) {
      expect({ method, allowed: CALLERS.get("payinctl")!.has(procedure(method)) }).toEqual({ method, allowed: false });
    }
    expect(CALLERS.get("payinctl")!.has(procedure("CreateIdentity"))).toBe(true);
  });

  describe("on the real server", () => {
    let orm: MikroORM;
    let service: TestServiceServer;
    // payinctl reports the OS user it runs as with every call (tools/payinctl/src/operator.ts), for the audit records of its changes.
    const osUser: Interceptor = (next) => (req) => {
      req.header.set("x-operator-os-user", "ops");
      return next(req);
    };
    const client = (caller: string) =>
      createServiceClient(Identity, { baseUrl: service.url, serviceToken: service.credential(caller), interceptors: caller === "payinctl" ? [osUser] : [] });

    beforeAll(async () => {
      const url = await createTestDatabase("identity");
      await migrate(ormOptions(url));
      orm = await openOrm(ormOptions(url, 5));
      const logger = createLogger("identity", { level: "silent" });
      const register = createIdentityService({ db: database(orm), logger, totpKey: randomBytes(32), assertionKey: assertionSigningKey(randomBytes(32)) });
      const interceptors = [domainErrorInterceptor("identity", reasonCodes, logger)];
      service = await startTestServiceServer({ name: "identity", services: SERVICE_NAMES, routes: register, allow: CALLERS, interceptors });
    });
    afterAll(async () => {
      await service?.close();
      await orm?.close();
    });

    it("refuses payins minting a machine credential, and allocation authenticating: PermissionDenied without a reason", async () => {
      for (const [caller, call] of [
        ["payins", () => client("payins").createMachineCredential({ merchantUuid: crypto.randomUUID() })],
        ["allocation", () => client("allocation").authenticate({ token: "x" })],
        ["api", () => client("api").bootstrapAdmin({ email: "nope@example.com" })],
      ] as const) {
        const error = await failure(call());
        expect({ caller, code: error.code, reason: reasonOf(error) }).toEqual({ caller, code: Code.PermissionDenied, reason: undefined });
      }
    });

    it("lets each caller call its own RPCs", async () => {
      const boot = await client("payinctl").bootstrapAdmin({ email: "ops@example.com" });
      expect(boot.identity?.email).toBe("ops@example.com");
      // Past the allowlist: identity itself refuses the unknown token, with its reason.
      const refused = await failure(client("api").authenticate({ token: "pk_unknown" }));
      expect(refused.code).toBe(Code.Unauthenticated);
      expect(reasonOf(refused)).toBeDefined();
    });

    it("administers without a person only for payinctl's break-glass, npm start's demo credential and the harness: the api must name the person (FORBIDDEN)", async () => {
      expect([...ACT_WITHOUT_PERSON.keys()].sort()).toEqual(["payinctl", "stack", "test"]);
      const merchantUuid = crypto.randomUUID();
      const refused = await failure(client("api").createMachineCredential({ merchantUuid }));
      expect({ code: refused.code, reason: reasonOf(refused) }).toEqual({ code: Code.PermissionDenied, reason: "FORBIDDEN" });
      // The operator CLI issues, rotates and creates nothing without a signed-in person.
      for (const call of [
        () => client("payinctl").createMachineCredential({ merchantUuid }),
        () => client("payinctl").rotateMachineCredential({ merchantUuid }),
        () => client("payinctl").createIdentity({ email: "new-admin@example.com", password: "a long enough password 1", roles: ["platform_admin"] }),
      ]) {
        const error = await failure(call());
        expect({ code: error.code, reason: reasonOf(error) }).toEqual({ code: Code.PermissionDenied, reason: "FORBIDDEN" });
      }
      expect((await client("payinctl").listIdentities({ limit: 10 })).identities.some((i) => i.email === "new-admin@example.com")).toBe(false);
      const issued = await client("stack").createMachineCredential({ merchantUuid });
      expect(issued.credential?.merchantUuid).toBe(merchantUuid);
      expect(issued.token).toMatch(/^mpk_/);
      // Another merchant's, so the one above being active is not why the api is refused.
      const again = await failure(client("api").createMachineCredential({ merchantUuid: crypto.randomUUID() }));
      expect(reasonOf(again)).toBe("FORBIDDEN");

      // Identities too: the api without a person is FORBIDDEN for each; payinctl recovers people without one.
      const password = "correct horse battery staple 42";
      const email = `person-${crypto.randomUUID()}@example.com`;
      const refusedCreate = await failure(client("api").createIdentity({ email, password, roles: ["platform_operator"] }));
      expect(reasonOf(refusedCreate)).toBe("FORBIDDEN");
      const { identity } = await client("test").createIdentity({ email, password, roles: ["platform_operator"] });
      const identityUuid = identity!.uuid;
      for (const call of [
        () => client("api").listIdentities({ limit: 10 }),
        () => client("api").setIdentityStatus({ identityUuid, status: "locked" }),
        () => client("api").removeRole({ identityUuid, role: "platform_operator" }),
        () => client("api").resetSignInFailures({ identityUuid }),
        () => client("api").listMachineCredentials({ merchantUuid }),
        () => client("api").rotateMachineCredential({ merchantUuid }),
        () => client("api").revokeMachineCredential({ merchantUuid, credentialUuid: issued.credential!.credentialUuid }),
      ]) {
        const error = await failure(call());
        expect({ code: error.code, reason: reasonOf(error) }).toEqual({ code: Code.PermissionDenied, reason: "FORBIDDEN" });
      }
      expect((await client("payinctl").listIdentities({ limit: 100 })).identities.map((i) => i.uuid)).toContain(identityUuid);
      expect((await client("payinctl").setIdentityStatus({ identityUuid, status: "locked" })).identity?.status).toBe("locked");
      expect((await client("payinctl").removeRole({ identityUuid, role: "platform_operator" })).identity?.roles).toEqual([]);
      expect((await client("payinctl").listMachineCredentials({ merchantUuid })).credentials).toHaveLength(1);
      // Revoking is break-glass (it takes trust away); issuing is not.
      expect((await client("payinctl").revokeMachineCredential({ merchantUuid, credentialUuid: issued.credential!.credentialUuid })).credential?.status).toBe("revoked");
    });

    it("refuses the api's admin calls without a caller: no person, no permission", async () => {
      const uuid = crypto.randomUUID();
      for (const call of [
        () => client("api").listIdentities({}),
        () => client("api").setIdentityStatus({ identityUuid: uuid, status: "active" }),
        () => client("api").resetSignInFailures({ identityUuid: uuid }),
        () => client("api").listMachineCredentials({ merchantUuid: uuid }),
        () => client("api").rotateMachineCredential({ merchantUuid: uuid }),
        () => client("api").revokeMachineCredential({ merchantUuid: uuid, credentialUuid: uuid }),
        () => client("api").createIdentity({ email: "x@example.com", password: "long enough password 1", roles: [] }),
      ]) {
        const error = await failure(call());
        expect([Code.Unauthenticated, Code.PermissionDenied]).toContain(error.code);
        expect(reasonOf(error)).toBeDefined();
      }
    });

    it("refuses an unknown caller and a wrong secret: Unauthenticated without a reason", async () => {
      for (const credential of [service.credential("stranger"), `${service.credential("api")}x`, `payinctl.${service.credential("api").slice(4)}`]) {
        const other = createServiceClient(Identity, { baseUrl: service.url, serviceToken: credential });
        const error = await failure(other.bootstrapAdmin({ email: "x@example.com" }));
        expect({ code: error.code, reason: reasonOf(error) }).toEqual({ code: Code.Unauthenticated, reason: undefined });
      }
    });
  });
});
