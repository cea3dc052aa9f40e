import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@payin/ids";
import type { Logger } from "@payin/logging";
import { Code } from "@payin/rpc";
import { expectFailure, failure } from "@payin/testing";
import { EVM_RPC_PROVIDER_UUID } from "../src/domain/provider.js";
import { activeMerchant, closedMerchant, startMerchants, UNKNOWN_UUID, type Harness } from "./harness.js";

/** Every log line the service writes during this file. */
const logged: string[] = [];
const capture = (...args: unknown[]) => {
  logged.push(JSON.stringify(args, (_k, v: unknown) => (v instanceof Error ? { message: v.message, stack: v.stack } : v)));
};
const captureLogger = { error: capture, warn: capture, info: capture, debug: capture } as unknown as Logger;

let h: Harness;

beforeAll(async () => {
  h = await startMerchants({ logger: captureLogger });
});

afterAll(async () => {
  await h?.close();
});

describe("providers", () => {
  it("has the seeded evm-rpc provider under its fixed uuid", async () => {
    const { providers } = await h.client.listProviders({});
    expect(providers.find((p) => p.name === "evm-rpc")?.providerUuid).toBe(EVM_RPC_PROVIDER_UUID);
    expect(EVM_RPC_PROVIDER_UUID).toBe("01a2008d-7400-7000-8000-000000000001");
  });

  it("pages the registry when asked, with the exact total", async () => {
    for (let i = 0; i < 3; i++) await h.client.createProvider({ name: `paged-${i}-${uuidv7()}` });
    const whole = await h.client.listProviders({});
    expect(whole.total).toBe(BigInt(whole.providers.length));
    const page = await h.client.listProviders({ limit: 2, offset: 1 });
    expect(page.total).toBe(whole.total);
    expect(page.providers.map((p) => p.providerUuid)).toEqual(whole.providers.slice(1, 3).map((p) => p.providerUuid));
    for (const limit of [0, 101]) await expectFailure(h.client.listProviders({ limit }), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it("registers providers and lists them by name", async () => {
    const name = `alchemy-${uuidv7()}`;
    const { provider } = await h.client.createProvider({ name });
    expect(provider).toMatchObject({ name });
    const { providers } = await h.client.listProviders({});
    expect(providers.map((p) => p.providerUuid)).toContain(provider!.providerUuid);
    const names = providers.map((p) => p.name.toLowerCase());
    expect(names).toEqual([...names].sort());
  });

  it("answers PROVIDER_NAME_TAKEN for a name in use, whatever its letter case", async () => {
    const name = `infura-${uuidv7()}`;
    await h.client.createProvider({ name });
    await expectFailure(h.client.createProvider({ name }), Code.AlreadyExists, "PROVIDER_NAME_TAKEN");
    await expectFailure(h.client.createProvider({ name: name.toUpperCase() }), Code.AlreadyExists, "PROVIDER_NAME_TAKEN");
    await expectFailure(h.client.createProvider({ name: "EVM-RPC" }), Code.AlreadyExists, "PROVIDER_NAME_TAKEN");
  });

  it.each([
    ["an empty name", ""],
    ["a 101-character name", "p".repeat(101)],
    ["a blank name", "   "],
    ["a name with a control character", "evm\u0000rpc"],
    ["a name with surrounding spaces", " quicknode "],
    ["a name with a right-to-left override", "quick\u202Eedon"],
    ["a name with a first-strong isolate", "quick\u2068node\u2069"],
  ])("refuses %s with INVALID_ARGUMENT", async (_name, name) => {
    await expectFailure(h.client.createProvider({ name }), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it("accepts a 100-character name", async () => {
    await h.client.createProvider({ name: `${"q".repeat(64)}${uuidv7().replaceAll("-", "")}`.slice(0, 100).padEnd(100, "z") });
  });
});

describe("EnsureProviderBinding", () => {
  it("binds once per (merchant, provider, capability, jurisdiction)", async () => {
    const merchant = await activeMerchant(h.client);
    const req = { merchantUuid: merchant, providerUuid: EVM_RPC_PROVIDER_UUID, capability: "crypto.payin", jurisdiction: "DE" };
    const first = await h.client.ensureProviderBinding(req);
    expect(first.created).toBe(true);
    expect(first.binding).toMatchObject(req);
    const again = await h.client.ensureProviderBinding(req);
    expect(again).toMatchObject({ created: false, binding: { bindingUuid: first.binding!.bindingUuid } });
    const other = await h.client.ensureProviderBinding({ ...req, jurisdiction: "FR" });
    expect(other.created).toBe(true);
    expect(other.binding?.bindingUuid).not.toBe(first.binding?.bindingUuid);
  });

  it("gives one binding to 20 concurrent identical requests", async () => {
    const merchant = await activeMerchant(h.client);
    const req = { merchantUuid: merchant, providerUuid: EVM_RPC_PROVIDER_UUID, capability: "crypto.payin", jurisdiction: "IT" };
    const results = await Promise.all(Array.from({ length: 20 }, () => h.client.ensureProviderBinding(req)));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.binding?.bindingUuid)).size).toBe(1);
  });

  it("answers PROVIDER_NOT_FOUND, MERCHANT_NOT_FOUND, MERCHANT_CLOSED and INVALID_ARGUMENT", async () => {
    const merchant = await activeMerchant(h.client);
    const good = { merchantUuid: merchant, providerUuid: EVM_RPC_PROVIDER_UUID, capability: "crypto.payin", jurisdiction: "DE" };
    await expectFailure(h.client.ensureProviderBinding({ ...good, providerUuid: UNKNOWN_UUID }), Code.NotFound, "PROVIDER_NOT_FOUND");
    await expectFailure(h.client.ensureProviderBinding({ ...good, merchantUuid: UNKNOWN_UUID }), Code.NotFound, "MERCHANT_NOT_FOUND");
    await expectFailure(
      h.client.ensureProviderBinding({ ...good, merchantUuid: await closedMerchant(h.client) }),
      Code.FailedPrecondition,
      "MERCHANT_CLOSED",
    );
    for (const bad of [{ providerUuid: "evm-rpc" }, { capability: "Crypto" }, { capability: "crypto.payout" }, { jurisdiction: "de" }, { jurisdiction: "XX" }]) {
      await expectFailure(h.client.ensureProviderBinding({ ...good, ...bad }), Code.InvalidArgument, "INVALID_ARGUMENT");
    }
  });
});

describe("provider connections", () => {
  const SECRET_LOOKALIKE = "sk_live_51HxYzNotAReferenceAtAll";

  it("creates one connection per (merchant, provider), idempotently", async () => {
    const merchant = await activeMerchant(h.client);
    const req = { merchantUuid: merchant, providerUuid: EVM_RPC_PROVIDER_UUID, secretReference: "vault:kv/payin/acme" };
    const first = await h.client.ensureProviderConnection(req);
    expect(first.created).toBe(true);
    expect(first.connection).toMatchObject(req);
    const again = await h.client.ensureProviderConnection(req);
    expect(again).toMatchObject({ created: false, connection: { connectionUuid: first.connection!.connectionUuid } });
    // Naming no reference is a repeat as well.
    const bare = await h.client.ensureProviderConnection({ merchantUuid: merchant, providerUuid: EVM_RPC_PROVIDER_UUID });
    expect(bare).toMatchObject({ created: false, connection: { secretReference: "vault:kv/payin/acme" } });
  });

  it("creates a connection without a reference and refuses to change it by ensure (CONNECTION_EXISTS)", async () => {
    const merchant = await activeMerchant(h.client);
    const first = await h.client.ensureProviderConnection({ merchantUuid: merchant, providerUuid: EVM_RPC_PROVIDER_UUID });
    expect(first.created).toBe(true);
    expect(first.connection?.secretReference).toBeUndefined();
    await expectFailure(
      h.client.ensureProviderConnection({ merchantUuid: merchant, providerUuid: EVM_RPC_PROVIDER_UUID, secretReference: "env:EVM_RPC_KEY" }),
      Code.FailedPrecondition,
      "CONNECTION_EXISTS",
    );
  });

  it("gives one connection to 20 concurrent identical requests", async () => {
    const merchant = await activeMerchant(h.client);
    const req = { merchantUuid: merchant, providerUuid: EVM_RPC_PROVIDER_UUID, secretReference: "env:EVM_RPC_KEY" };
    const results = await Promise.all(Array.from({ length: 20 }, () => h.client.ensureProviderConnection(req)));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.connection?.connectionUuid)).size).toBe(1);
  });

  it("answers PROVIDER_NOT_FOUND, MERCHANT_NOT_FOUND, MERCHANT_CLOSED and INVALID_ARGUMENT on ensure", async () => {
    const merchant = await activeMerchant(h.client);
    const good = { merchantUuid: merchant, providerUuid: EVM_RPC_PROVIDER_UUID };
    await expectFailure(h.client.ensureProviderConnection({ ...good, providerUuid: UNKNOWN_UUID }), Code.NotFound, "PROVIDER_NOT_FOUND");
    await expectFailure(h.client.ensureProviderConnection({ ...good, merchantUuid: UNKNOWN_UUID }), Code.NotFound, "MERCHANT_NOT_FOUND");
    await expectFailure(
      h.client.ensureProviderConnection({ ...good, merchantUuid: await closedMerchant(h.client) }),
      Code.FailedPrecondition,
      "MERCHANT_CLOSED",
    );
    await expectFailure(h.client.ensureProviderConnection({ ...good, providerUuid: "x" }), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it.each([
    ["an empty reference", ""],
    ["a bare secret", SECRET_LOOKALIKE],
    ["a reference with white space", "vault:kv/payin acme"],
    ["an upper-case scheme", "Vault:kv/payin"],
    ["a scheme without a path", "vault:"],
    ["a 256-character reference", `vault:${"k".repeat(250)}`],
    ["a reference holding U+0000", "vault:kv/a\u0000b"],
  ])("refuses %s without echoing it", async (_name, secretReference) => {
    const merchant = await activeMerchant(h.client);
    const error = await expectFailure(
      h.client.ensureProviderConnection({ merchantUuid: merchant, providerUuid: EVM_RPC_PROVIDER_UUID, secretReference }),
      Code.InvalidArgument,
      "INVALID_ARGUMENT",
    );
    if (secretReference !== "") expect(error.message).not.toContain(secretReference);
  });

  it("rotates the secret reference of the merchant's own connection only", async () => {
    const merchant = await activeMerchant(h.client);
    const { connection } = await h.client.ensureProviderConnection({
      merchantUuid: merchant,
      providerUuid: EVM_RPC_PROVIDER_UUID,
      secretReference: "vault:kv/payin/v1",
    });
    const uuid = connection!.connectionUuid;
    const rotated = await h.client.rotateProviderConnectionSecret({ merchantUuid: merchant, connectionUuid: uuid, secretReference: "vault:kv/payin/v2" });
    expect(rotated.connection).toMatchObject({ connectionUuid: uuid, secretReference: "vault:kv/payin/v2" });
    await expectFailure(
      h.client.rotateProviderConnectionSecret({ merchantUuid: merchant, connectionUuid: uuid, secretReference: "vault:kv/payin/v2" }),
      Code.FailedPrecondition,
      "SECRET_REFERENCE_UNCHANGED",
    );
    const stranger = await activeMerchant(h.client);
    for (const [merchantUuid, connectionUuid] of [
      [stranger, uuid],
      [merchant, UNKNOWN_UUID],
      [merchant, "not-a-uuid"],
    ] as const) {
      await expectFailure(
        h.client.rotateProviderConnectionSecret({ merchantUuid, connectionUuid, secretReference: "vault:kv/payin/v3" }),
        Code.NotFound,
        "CONNECTION_NOT_FOUND",
      );
    }
    await expectFailure(
      h.client.rotateProviderConnectionSecret({ merchantUuid: UNKNOWN_UUID, connectionUuid: uuid, secretReference: "vault:kv/payin/v3" }),
      Code.NotFound,
      "MERCHANT_NOT_FOUND",
    );
    for (const secretReference of ["", SECRET_LOOKALIKE]) {
      const error = await expectFailure(
        h.client.rotateProviderConnectionSecret({ merchantUuid: merchant, connectionUuid: uuid, secretReference }),
        Code.InvalidArgument,
        "INVALID_ARGUMENT",
      );
      expect(error.message).not.toContain(SECRET_LOOKALIKE);
    }
  });

  it("rotates a connection created without a reference, and refuses rotation for a closed merchant", async () => {
    const merchant = await activeMerchant(h.client);
    const { connection } = await h.client.ensureProviderConnection({ merchantUuid: merchant, providerUuid: EVM_RPC_PROVIDER_UUID });
    const rotated = await h.client.rotateProviderConnectionSecret({
      merchantUuid: merchant,
      connectionUuid: connection!.connectionUuid,
      secretReference: "env:EVM_RPC_KEY",
    });
    expect(rotated.connection?.secretReference).toBe("env:EVM_RPC_KEY");
    await h.client.transitionMerchant({ uuid: merchant, transition: 4 });
    await expectFailure(
      h.client.rotateProviderConnectionSecret({ merchantUuid: merchant, connectionUuid: connection!.connectionUuid, secretReference: "env:OTHER" }),
      Code.FailedPrecondition,
      "MERCHANT_CLOSED",
    );
  });

  it("never writes a secret reference or a refused value to the log, even on unexpected failures", async () => {
    const merchant = await activeMerchant(h.client);
    const { connection } = await h.client.ensureProviderConnection({
      merchantUuid: merchant,
      providerUuid: EVM_RPC_PROVIDER_UUID,
      secretReference: "vault:kv/logged/v1",
    });
    // Make every write to the table fail: the service logs unexpected errors.
    const em = h.orm.em.fork();
    await em.execute(`create function fail_connections() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`);
    await em.execute(
      `create trigger fail_connections before insert or update on provider_connections for each row execute function fail_connections()`,
    );
    try {
      const other = await activeMerchant(h.client);
      const created = await failure(
        h.client.ensureProviderConnection({ merchantUuid: other, providerUuid: EVM_RPC_PROVIDER_UUID, secretReference: "vault:kv/logged/never" }),
      );
      expect(created.code).toBe(Code.Internal);
      const rotated = await failure(
        h.client.rotateProviderConnectionSecret({
          merchantUuid: merchant,
          connectionUuid: connection!.connectionUuid,
          secretReference: "vault:kv/logged/v2",
        }),
      );
      expect(rotated.code).toBe(Code.Internal);
      for (const error of [created, rotated]) expect(error.message).not.toContain("vault:");
    } finally {
      await em.execute(`drop trigger fail_connections on provider_connections`);
    }
    expect(logged.length).toBeGreaterThanOrEqual(2);
    const text = logged.join("\n");
    expect(text).toContain("SQLSTATE P0001");
    for (const value of ["vault:", "env:EVM_RPC_KEY", SECRET_LOOKALIKE]) expect(text).not.toContain(value);
  });
});
