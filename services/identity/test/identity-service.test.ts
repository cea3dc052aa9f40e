import { createHash, randomBytes } from "node:crypto";
import { assertionSigningKey } from "@payin/config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { database, migrate, openOrm, type MikroORM } from "@payin/db";
import { uuidv7 } from "@payin/ids";
import { createLogger } from "@payin/logging";
import { identityV1 } from "@payin/proto";
import { actAsCaller, ConnectError, Code, domainErrorInterceptor, reasonOf } from "@payin/rpc";
import { createTestDatabase, failure } from "@payin/testing";
import { reasonCodes } from "../src/rpc/reason-codes.js";
import { createIdentityService } from "../src/service.js";
import { ormOptions } from "../src/store/orm.js";

const { IdentityService, PrincipalKind } = identityV1;
const TOKEN_FORMAT = /^mpk_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/;

let orm: MikroORM;
let client: Client<typeof IdentityService>;

beforeAll(async () => {
  const url = await createTestDatabase("identity");
  await migrate(ormOptions(url));
  orm = await openOrm(ormOptions(url, 20));
  const logger = createLogger("test", { level: "silent" });
  const transport = createRouterTransport(createIdentityService({ db: database(orm), logger, totpKey: randomBytes(32), assertionKey: assertionSigningKey(randomBytes(32)) }), {
    router: { interceptors: [actAsCaller("test"), domainErrorInterceptor("identity", reasonCodes, logger)] },
  });
  client = createClient(IdentityService, transport);
});

afterAll(async () => {
  await orm?.close();
});

function sql(query: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  return orm.em.fork().execute(query, params);
}

async function issue(merchantUuid = uuidv7()) {
  const response = await client.createMachineCredential({ merchantUuid });
  return { merchantUuid, token: response.token, credential: response.credential! };
}

async function expectUnauthenticated(token: string): Promise<void> {
  const error = await failure(client.authenticate({ token }));
  expect(error.code).toBe(Code.Unauthenticated);
  expect(reasonOf(error)).toBe("AUTH_INVALID_TOKEN");
  expect(error.rawMessage).toBe("invalid token");
}

describe("CreateMachineCredential", () => {
  it("returns the plaintext token once, with the public credential fields", async () => {
    const before = Date.now();
    const { merchantUuid, token, credential } = await issue();
    expect(token).toMatch(TOKEN_FORMAT);
    expect(credential.merchantUuid).toBe(merchantUuid);
    expect(credential.credentialUuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(credential.keyId).toBe(token.slice(4, 36));
    expect(credential.status).toBe("active");
    expect(timestampDate(credential.createdAt!).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(credential.lastUsedAt).toBeUndefined();
    expect(credential.revokedAt).toBeUndefined();
    expect(credential.replacedByUuid).toBeUndefined();
  });

  it("stores only the key id and SHA-256 of the secret, never the secret", async () => {
    const { token, credential } = await issue();
    const secretText = token.slice(36);
    const secretBytes = Buffer.from(secretText, "base64url");
    const [row] = await sql(`select t::text as text, secret_hash, key_id from identity.machine_credentials t where credential_uuid = ?`, [
      credential.credentialUuid,
    ]);
    expect(row).toBeDefined();
    const text = row!.text as string;
    expect(text).not.toContain(secretText);
    expect(text).not.toContain(token);
    expect(text).not.toContain(secretBytes.toString("hex"));
    expect(text).not.toContain(secretBytes.toString("base64"));
    expect(row!.key_id).toBe(credential.keyId);
    expect((row!.secret_hash as Buffer).equals(createHash("sha256").update(secretBytes).digest())).toBe(true);
  });

  it("refuses a second credential while one is active", async () => {
    const { merchantUuid } = await issue();
    const error = await failure(client.createMachineCredential({ merchantUuid }));
    expect(error.code).toBe(Code.FailedPrecondition);
    expect(reasonOf(error)).toBe("CREDENTIAL_ALREADY_ACTIVE");
    const rows = await sql(`select count(*)::int as n from identity.machine_credentials where merchant_uuid = ?`, [merchantUuid]);
    expect(rows[0]!.n).toBe(1);
  });

  it("leaves exactly one active credential after 20 concurrent creates", async () => {
    const merchantUuid = uuidv7();
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => client.createMachineCredential({ merchantUuid })));
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(19);
    for (const r of lost) {
      expect(r.reason).toBeInstanceOf(ConnectError);
      expect((r.reason as ConnectError).code).toBe(Code.FailedPrecondition);
      expect(reasonOf(r.reason as ConnectError)).toBe("CREDENTIAL_ALREADY_ACTIVE");
    }
    const rows = await sql(
      `select status, count(*)::int as n from identity.machine_credentials where merchant_uuid = ? group by status`,
      [merchantUuid],
    );
    expect(rows).toEqual([{ status: "active", n: 1 }]);
  });

  it.each(["", "not-a-uuid", "01935C4E-7A3B-7C2D-8E4F-5A6B7C8D9E0F"])("refuses merchant uuid %j", async (merchantUuid) => {
    const error = await failure(client.createMachineCredential({ merchantUuid }));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(reasonOf(error)).toBe("INVALID_ARGUMENT");
  });

  it("has the database refuse a second active row even when the service is bypassed", async () => {
    const { merchantUuid } = await issue();
    const error = await sql(
      `insert into identity.machine_credentials (credential_uuid, merchant_uuid, key_id, secret_hash, status, created_at)
       values (?, ?, ?, ?, 'active', now())`,
      [uuidv7(), merchantUuid, randomBytes(16).toString("hex"), randomBytes(32)],
    ).catch((e: unknown) => e);
    expect(String((error as Error).message)).toContain("machine_credentials_one_active_per_merchant");
  });
});

describe("Authenticate", () => {
  it("resolves a machine token to its principal", async () => {
    const { merchantUuid, token, credential } = await issue();
    const { principal } = await client.authenticate({ token });
    expect(principal?.kind).toBe(PrincipalKind.MACHINE);
    expect(principal?.merchantUuid).toBe(merchantUuid);
    expect(principal?.credentialUuid).toBe(credential.credentialUuid);
    expect(principal?.permissions).toEqual(["merchant.payin.create", "merchant.payin.read"]);
  });

  it("sets last_used_at after a successful authentication, and only then", async () => {
    const { token, credential } = await issue();
    const lastUsed = async () => {
      const [row] = await sql(`select last_used_at from identity.machine_credentials where credential_uuid = ?`, [credential.credentialUuid]);
      const value = row!.last_used_at as string | Date | null;
      return value === null ? null : new Date(value);
    };
    await expectUnauthenticated(`${token.slice(0, 36)}${randomBytes(32).toString("base64url")}`);
    expect(await lastUsed()).toBeNull();
    const before = Date.now();
    await client.authenticate({ token });
    await expect.poll(lastUsed, { timeout: 5_000 }).not.toBeNull();
    const first = (await lastUsed())!;
    expect(first.getTime()).toBeGreaterThanOrEqual(before - 1000);
    // A second use within the minute leaves the timestamp as it was.
    await client.authenticate({ token });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await lastUsed())!.getTime()).toBe(first.getTime());
    // Once the last recorded use is over a minute old, the next use moves it forward.
    const set = (age: string) =>
      sql(`update identity.machine_credentials set last_used_at = now() - ?::interval where credential_uuid = ?`, [age, credential.credentialUuid]);
    await set("30 seconds");
    const recent = (await lastUsed())!;
    await client.authenticate({ token });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await lastUsed())!.getTime()).toBe(recent.getTime());
    await set("2 minutes");
    const stale = (await lastUsed())!;
    await client.authenticate({ token });
    await expect.poll(async () => (await lastUsed())!.getTime(), { timeout: 5_000 }).toBeGreaterThan(stale.getTime() + 60_000);
  });

  it("refuses a wrong secret for a real key id", async () => {
    const { token } = await issue();
    await expectUnauthenticated(`${token.slice(0, 36)}${randomBytes(32).toString("base64url")}`);
  });

  it("refuses an unknown key id with a real secret", async () => {
    const { token } = await issue();
    await expectUnauthenticated(`mpk_${randomBytes(16).toString("hex")}${token.slice(36)}`);
  });

  it("refuses a revoked credential", async () => {
    const { token, credential } = await issue();
    await sql(`update identity.machine_credentials set status = 'revoked', revoked_at = now() where credential_uuid = ?`, [
      credential.credentialUuid,
    ]);
    await expectUnauthenticated(token);
  });

  it("refuses malformed tokens and tokens that look human", async () => {
    const { token } = await issue();
    const candidates = [
      "",
      "mpk_",
      token.slice(0, -1),
      `${token}A`,
      `${token}\n`,
      ` ${token}`,
      `Bearer ${token}`,
      token.toUpperCase(),
      `mpk_${token.slice(4, 36).toUpperCase()}${token.slice(36)}`,
      token.replace("mpk_", "mpk-"),
      randomBytes(32).toString("base64url"), // a session-style token
      `eyJhbGciOiJIUzI1NiJ9.${randomBytes(24).toString("base64url")}.${randomBytes(32).toString("base64url")}`,
      "x".repeat(10_000),
    ];
    for (const candidate of candidates) await expectUnauthenticated(candidate);
  });
});
