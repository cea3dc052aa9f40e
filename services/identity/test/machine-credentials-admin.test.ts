import { describe, expect, it } from "vitest";
import { toJson } from "@bufbuild/protobuf";
import { uuidv7 } from "@payin/ids";
import { identityV1 } from "@payin/proto";
import { Code, ConnectError, reasonOf } from "@payin/rpc";
import { expectFailure } from "@payin/testing";
import { caller, createPerson, signIn, useAdmin, useHarness } from "./support.js";

const { MachineCredentialSchema } = identityV1;
const TOKEN_FORMAT = /^mpk_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/;
const h = useHarness();
const admin = useAdmin(h);

/** Creates a merchant's credential through an MFA-satisfied admin session. */
async function issue(token: string, merchantUuid = uuidv7()) {
  const response = await h.client.createMachineCredential({ ...caller(token), merchantUuid });
  h.secrets.add(response.token);
  return { merchantUuid, token: response.token, credential: response.credential! };
}

async function works(token: string): Promise<boolean> {
  return h.client.authenticate({ token }).then(
    () => true,
    () => false,
  );
}

describe("who may manage machine credentials", () => {
  it("needs credential.manage with MFA: machines and other roles are FORBIDDEN, admins without MFA MFA_REQUIRED", async () => {
    const adminToken = await signIn(h, admin);
    const { token: machine, merchantUuid, credential } = await issue(adminToken);
    const operator = await signIn(h, await createPerson(h, adminToken, ["platform_operator"]));
    const merchantAdmin = await signIn(h, await createPerson(h, adminToken, ["merchant_admin"]));
    const adminWithoutMfa = await signIn(h, await createPerson(h, adminToken, ["platform_admin"]));
    const calls = (token: string) => [
      () => h.client.createMachineCredential({ ...caller(token), merchantUuid: uuidv7() }),
      () => h.client.listMachineCredentials({ ...caller(token), merchantUuid }),
      () => h.client.rotateMachineCredential({ ...caller(token), merchantUuid }),
      () => h.client.revokeMachineCredential({ ...caller(token), merchantUuid, credentialUuid: credential.credentialUuid }),
    ];
    for (const token of [machine, operator, merchantAdmin]) {
      for (const call of calls(token)) await expectFailure(call(), Code.PermissionDenied, "FORBIDDEN");
    }
    for (const call of calls(adminWithoutMfa)) await expectFailure(call(), Code.PermissionDenied, "MFA_REQUIRED");
    for (const call of calls("")) await expectFailure(call(), Code.Unauthenticated, "AUTH_INVALID_TOKEN");
    // Nothing changed.
    expect(await works(machine)).toBe(true);
  });
});

describe("List, Rotate and Revoke", () => {
  it("lists a merchant's credentials without any token, secret or hash", async () => {
    const adminToken = await signIn(h, admin);
    const { merchantUuid, token, credential } = await issue(adminToken);
    await issue(adminToken); // another merchant's
    const { credentials } = await h.client.listMachineCredentials({ ...caller(adminToken), merchantUuid });
    expect(credentials.map((c) => c.credentialUuid)).toEqual([credential.credentialUuid]);
    const json = JSON.stringify(credentials.map((c) => toJson(MachineCredentialSchema, c)));
    expect(json).not.toContain(token.slice(36));
    expect(json).not.toMatch(/token|secret|hash/i);
    expect(Object.keys(toJson(MachineCredentialSchema, credentials[0]!) as object).sort()).toEqual(["createdAt", "credentialUuid", "keyId", "merchantUuid", "status"]);
    expect((await h.client.listMachineCredentials({ ...caller(adminToken), merchantUuid: uuidv7() })).credentials).toEqual([]);
    await expectFailure(h.client.listMachineCredentials({ ...caller(adminToken), merchantUuid: "nope" }), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it("rotates: the old credential is revoked and replaced, the new token works, the old one no longer does", async () => {
    const adminToken = await signIn(h, admin);
    const { merchantUuid, token: oldToken, credential: old } = await issue(adminToken);
    const rotated = await h.client.rotateMachineCredential({ ...caller(adminToken), merchantUuid });
    h.secrets.add(rotated.token);
    expect(rotated.token).toMatch(TOKEN_FORMAT);
    expect(rotated.credential).toMatchObject({ merchantUuid, status: "active", keyId: rotated.token.slice(4, 36) });
    expect(await works(rotated.token)).toBe(true);
    expect(await works(oldToken)).toBe(false);
    const { credentials } = await h.client.listMachineCredentials({ ...caller(adminToken), merchantUuid });
    expect(credentials.map((c) => [c.credentialUuid, c.status, c.replacedByUuid])).toEqual([
      [rotated.credential!.credentialUuid, "active", undefined],
      [old.credentialUuid, "revoked", rotated.credential!.credentialUuid],
    ]);
    expect(credentials[1]!.revokedAt).toBeDefined();
  });

  it("refuses to rotate without an active credential", async () => {
    const adminToken = await signIn(h, admin);
    await expectFailure(h.client.rotateMachineCredential({ ...caller(adminToken), merchantUuid: uuidv7() }), Code.FailedPrecondition, "NO_ACTIVE_CREDENTIAL");
    const { merchantUuid, credential } = await issue(adminToken);
    await h.client.revokeMachineCredential({ ...caller(adminToken), merchantUuid, credentialUuid: credential.credentialUuid });
    await expectFailure(h.client.rotateMachineCredential({ ...caller(adminToken), merchantUuid }), Code.FailedPrecondition, "NO_ACTIVE_CREDENTIAL");
  });

  it("leaves exactly one active credential after 20 concurrent rotates", async () => {
    const adminToken = await signIn(h, admin);
    const { merchantUuid, token: first } = await issue(adminToken);
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => h.client.rotateMachineCredential({ ...caller(adminToken), merchantUuid })));
    const won = results.filter((r): r is PromiseFulfilledResult<identityV1.RotateMachineCredentialResponse> => r.status === "fulfilled");
    for (const r of results) if (r.status === "rejected") expect(reasonOf(r.reason as ConnectError)).toBe("NO_ACTIVE_CREDENTIAL");
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const r of won) h.secrets.add(r.value.token);

    const rows = await h.sql(`select status, count(*)::int as n from identity.machine_credentials where merchant_uuid = ? group by status order by status`, [
      merchantUuid,
    ]);
    expect(rows).toEqual([
      { status: "active", n: 1 },
      { status: "revoked", n: won.length },
    ]);
    // The rotations form one chain: every revoked credential names its successor.
    const chain = await h.sql(`select credential_uuid, replaced_by_uuid, status from identity.machine_credentials where merchant_uuid = ?`, [merchantUuid]);
    const successors = new Set(chain.filter((c) => c.status === "revoked").map((c) => c.replaced_by_uuid));
    expect(successors.size).toBe(won.length);
    const [active] = chain.filter((c) => c.status === "active");
    expect(successors.has(active!.credential_uuid)).toBe(true);
    // Exactly one of all the tokens handed out still works: the active one's.
    const tokens = [first, ...won.map((r) => r.value.token)];
    const working = [];
    for (const t of tokens) if (await works(t)) working.push(t);
    expect(working).toHaveLength(1);
    expect(working[0]!.slice(4, 36)).toBe(won.find((r) => r.value.credential!.credentialUuid === active!.credential_uuid)!.value.credential!.keyId);
  });

  it("revokes a credential once; another merchant's or an unknown one is NOT_FOUND", async () => {
    const adminToken = await signIn(h, admin);
    const { merchantUuid, token, credential } = await issue(adminToken);
    const other = await issue(adminToken);
    await expectFailure(
      h.client.revokeMachineCredential({ ...caller(adminToken), merchantUuid, credentialUuid: other.credential.credentialUuid }),
      Code.NotFound,
      "CREDENTIAL_NOT_FOUND",
    );
    expect(await works(other.token)).toBe(true);
    for (const credentialUuid of [uuidv7(), "nope"]) {
      await expectFailure(h.client.revokeMachineCredential({ ...caller(adminToken), merchantUuid, credentialUuid }), Code.NotFound, "CREDENTIAL_NOT_FOUND");
    }
    const { credential: revoked } = await h.client.revokeMachineCredential({ ...caller(adminToken), merchantUuid, credentialUuid: credential.credentialUuid });
    expect(revoked).toMatchObject({ credentialUuid: credential.credentialUuid, status: "revoked" });
    expect(revoked?.revokedAt).toBeDefined();
    expect(revoked?.replacedByUuid).toBeUndefined();
    expect(await works(token)).toBe(false);
    await expectFailure(
      h.client.revokeMachineCredential({ ...caller(adminToken), merchantUuid, credentialUuid: credential.credentialUuid }),
      Code.FailedPrecondition,
      "CREDENTIAL_ALREADY_REVOKED",
    );
    // After a revoke, a new credential can be created.
    await issue(adminToken, merchantUuid);
  });

  it("creates with a caller, and still refuses a second active credential", async () => {
    const adminToken = await signIn(h, admin);
    const { merchantUuid } = await issue(adminToken);
    await expectFailure(h.client.createMachineCredential({ ...caller(adminToken), merchantUuid }), Code.FailedPrecondition, "CREDENTIAL_ALREADY_ACTIVE");
  });
});
