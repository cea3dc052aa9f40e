import { describe, expect, it } from "vitest";
import { DomainError } from "@payin/errors";
import { payableTermsOf, railsFromEnv } from "@payin/rails";
import {
  checkoutNotFound,
  chosenPair,
  DEFAULT_PAYMENT_WINDOW_S,
  createCheckoutSession,
  disableCheckoutSession,
  getCheckoutSession,
  isTokenFormat,
  listCheckoutSessions,
  newToken,
  sessionState,
  tokenHash,
  validateCreateCheckout,
  type CheckoutPair,
  type CheckoutRecord,
  type CheckoutSession,
  type CheckoutStore,
  type CreateCheckoutRequest,
} from "./checkout-session.js";

/** The mainnet defaults: USDT of 18 decimals on BEP20, USDC of 6 on ERC20, both from 0.001. */
const RAILS = payableTermsOf(railsFromEnv({}));
const USDT: CheckoutPair = { asset: "usdt", rail: "bep20" };
const USDC: CheckoutPair = { asset: "usdc", rail: "erc20" };
const now = new Date("2026-11-27T12:00:00.000Z");
const at = (ms: number) => new Date(now.getTime() + ms);

describe("sessionState", () => {
  const session = { checkoutUuid: "x", merchantUuid: "m", reference: null, description: null, amount: "1", pairs: [USDT], jurisdiction: "DE",
    intentUuid: "i", paymentWindowS: 1800, createdAt: now, updatedAt: now };
  it("reads paid from the intent, and the stored state otherwise", () => {
    expect(sessionState({ session: { ...session, state: "started" }, intentStatus: "paid", start: null })).toBe("paid");
    expect(sessionState({ session: { ...session, state: "started" }, intentStatus: "awaiting_payment", start: null })).toBe("started");
    expect(sessionState({ session: { ...session, state: "open", intentUuid: null }, intentStatus: null, start: null })).toBe("open");
    expect(sessionState({ session: { ...session, state: "disabled", intentUuid: null }, intentStatus: null, start: null })).toBe("disabled");
  });
});

describe("validateCreateCheckout", () => {
  const ok: CreateCheckoutRequest = {
    merchantUuid: "m", reference: "order-1", description: "Two tickets", amount: "010.500", jurisdiction: "DE", pairs: [USDT, USDC],
  };
  const refusal = (req: CreateCheckoutRequest) => {
    try {
      validateCreateCheckout(req, RAILS);
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      return (error as DomainError).reason;
    }
    return "accepted";
  };

  it("keeps the canonical amount and the pairs in order", () => {
    expect(validateCreateCheckout(ok, RAILS)).toEqual({ ...ok, amount: "10.5" });
    expect(validateCreateCheckout({ ...ok, reference: undefined, description: undefined }, RAILS)).toMatchObject({ reference: null, description: null });
  });

  it.each([
    ["no pairs", { pairs: [] }],
    ["a pair routing does not serve", { pairs: [{ asset: "usdt", rail: "erc20" }] }],
    ["an unknown asset", { pairs: [{ asset: "doge", rail: "bep20" }] }],
    ["a pair twice", { pairs: [USDT, USDT] }],
    ["a zero amount", { amount: "0" }],
    ["an amount with a comma", { amount: "1,5" }],
    ["an amount in scientific notation", { amount: "1e3" }],
    ["seven decimals", { amount: "1.0000001" }],
    ["an amount over the bound", { amount: "1000000000.000001" }],
    ["a lower-case jurisdiction", { jurisdiction: "de" }],
    ["an unassigned jurisdiction", { jurisdiction: "XX" }],
    ["a long reference", { reference: "r".repeat(256) }],
    ["a long description", { description: "d".repeat(501) }],
    ["a NUL in the description", { description: "a\u0000b" }],
    ["a bidirectional override in the description", { description: "Refund \u202Eorder" }],
    ["an isolate in the reference", { reference: "INV-\u20661\u2069" }],
    ["a zero-width space in the description", { description: "Two\u200Btickets" }],
    ["a byte order mark in the reference", { reference: "INV\uFEFF-1" }],
  ])("refuses %s with VALIDATION_ERROR", (_, over) => {
    expect(refusal({ ...ok, ...over } as CreateCheckoutRequest)).toBe("VALIDATION_ERROR");
  });

  it("accepts the limits", () => {
    expect(refusal({ ...ok, reference: "r".repeat(255), description: "d".repeat(500), amount: "1000000000" })).toBe("accepted");
  });
});

describe("chosenPair", () => {
  it("takes an allowed pair, or the only one when none is named", () => {
    expect(chosenPair({ pairs: [USDT, USDC] }, { asset: "usdc", rail: "erc20" })).toEqual(USDC);
    expect(chosenPair({ pairs: [USDC] }, undefined)).toEqual(USDC);
    expect(chosenPair({ pairs: [USDC] }, { asset: "", rail: "" })).toEqual(USDC);
  });

  it("refuses a pair the session does not allow, and none among several", () => {
    expect(() => chosenPair({ pairs: [USDC] }, USDT)).toThrow(/not offered/);
    expect(() => chosenPair({ pairs: [USDT, USDC] }, undefined)).toThrow(/choose one/);
  });
});

describe("tokens", () => {
  it("are 43 base64url characters of 32 random bytes, stored as their SHA-256", () => {
    const a = newToken();
    const b = newToken();
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.token, "base64url")).toHaveLength(32);
    expect(a.token).not.toBe(b.token);
    expect(a.tokenHash).toBe(tokenHash(a.token));
    expect(a.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(isTokenFormat(a.token)).toBe(true);
    expect(isTokenFormat(`${a.token}x`)).toBe(false);
    expect(isTokenFormat("../etc/passwd")).toBe(false);
  });
});

describe("field rules' messages", () => {
  const ok: CreateCheckoutRequest = { merchantUuid: "m", reference: undefined, description: undefined, amount: "5", jurisdiction: "DE", pairs: [USDT] };
  const message = (over: Partial<CreateCheckoutRequest>) => {
    try {
      validateCreateCheckout({ ...ok, ...over }, RAILS);
    } catch (error) {
      expect(error).toMatchObject({ reason: "VALIDATION_ERROR" });
      return (error as DomainError).message;
    }
    return "accepted";
  };

  it.each([
    [{ reference: "r".repeat(256) }, "reference must be at most 255 characters"],
    [{ reference: "a\u0000b" }, "reference must not contain the character U+0000"],
    [{ description: "d".repeat(501) }, "description must be at most 500 characters"],
    [{ description: "\u0000" }, "description must not contain the character U+0000"],
    [{ amount: "0" }, "amount must be greater than 0"],
    [{ amount: "1.0000001" }, "amount must have at most 6 decimal places"],
    [{ jurisdiction: "de" }, "jurisdiction must be exactly 2 upper-case letters (ISO 3166-1 alpha-2)"],
    [{ jurisdiction: "D" }, "jurisdiction must be exactly 2 upper-case letters (ISO 3166-1 alpha-2)"],
    [{ jurisdiction: "DEU" }, "jurisdiction must be exactly 2 upper-case letters (ISO 3166-1 alpha-2)"],
    [{ jurisdiction: "xDE" }, "jurisdiction must be exactly 2 upper-case letters (ISO 3166-1 alpha-2)"],
    [{ jurisdiction: "" }, "jurisdiction must be exactly 2 upper-case letters (ISO 3166-1 alpha-2)"],
    [{ jurisdiction: "XX" }, "jurisdiction must be an assigned ISO 3166-1 alpha-2 country code"],
    [{ pairs: [] }, "a checkout needs at least one asset/rail pair"],
    [{ pairs: [{ asset: "usdt", rail: "erc20" }] }, "pair usdt/erc20 is not served; pairs are: usdt/bep20, usdc/erc20"],
    [{ pairs: [USDC, { asset: "doge", rail: "bep20" }] }, "pair doge/bep20 is not served; pairs are: usdt/bep20, usdc/erc20"],
    [{ pairs: [USDC, USDT, USDC] }, "each asset/rail pair may be given once"],
  ])("refuses %j: %s", (over, text) => {
    expect(message(over)).toBe(text);
  });

  it("counts characters, not UTF-16 units, against the limits", () => {
    expect(message({ reference: "😀".repeat(255), description: "é".repeat(500) })).toBe("accepted");
  });

  it("keeps only the routed asset and rail of each pair, in the merchant's order", () => {
    const pairs = [{ ...USDC, extra: "x" }, { ...USDT }];
    expect(validateCreateCheckout({ ...ok, pairs }, RAILS).pairs).toEqual([USDC, USDT]);
  });
});

describe("the amount's minimum on every chosen pair", () => {
  const ok: CreateCheckoutRequest = { merchantUuid: "m", reference: undefined, description: undefined, amount: "5", jurisdiction: "DE", pairs: [USDT] };
  /** USDC with 2 decimals and dust below 0.5 on ERC20; USDT as on mainnet. */
  const coarse = payableTermsOf(railsFromEnv({
    ERC20_DUST_THRESHOLD: "0.5",
    ERC20_TOKENS: "usdc:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48:2",
  }));
  const verdict = (over: Partial<CreateCheckoutRequest>, rails = RAILS) => {
    try {
      return validateCreateCheckout({ ...ok, ...over }, rails).amount;
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ reason: "VALIDATION_ERROR" });
      return (error as DomainError).message;
    }
  };

  it("refuses an amount below a pair's dust threshold, naming the minimum", () => {
    expect(verdict({ amount: "0.0005" })).toBe("amount must be at least 0.001 USDT on BEP20 (smaller transfers are dust and never count)");
    expect(verdict({ amount: "0.000999", pairs: [USDC] })).toBe("amount must be at least 0.001 USDC on ERC20 (smaller transfers are dust and never count)");
  });

  it("takes the minimum itself, canonical", () => {
    expect(verdict({ amount: "0.0010" })).toBe("0.001");
    expect(verdict({ amount: "0.001", pairs: [USDC, USDT] })).toBe("0.001");
  });

  it("applies every chosen pair's minimum, whichever the payer takes", () => {
    expect(verdict({ amount: "0.1", pairs: [USDT] }, coarse)).toBe("0.1");
    expect(verdict({ amount: "0.1", pairs: [USDT, USDC] }, coarse)).toBe("amount must be at least 0.5 USDC on ERC20 (smaller transfers are dust and never count)");
    expect(verdict({ amount: "0.1", pairs: [USDC, USDT] }, coarse)).toBe("amount must be at least 0.5 USDC on ERC20 (smaller transfers are dust and never count)");
    expect(verdict({ amount: "0.5", pairs: [USDT, USDC] }, coarse)).toBe("0.5");
  });

  it("refuses an amount finer than a chosen token's smallest unit", () => {
    expect(verdict({ amount: "1.005", pairs: [USDT, USDC] }, coarse)).toBe(
      "amount must be a whole multiple of 0.01 USDC on ERC20, the token's smallest unit (at least 0.5)",
    );
    expect(verdict({ amount: "1.005", pairs: [USDT] }, coarse)).toBe("1.005");
  });

  it("checks the amount's form first", () => {
    expect(verdict({ amount: "0.0000001" })).toBe("amount must have at most 6 decimal places");
  });
});

describe("chosenPair's refusals", () => {
  it("names the pair the session does not offer, even with one half empty", () => {
    expect(() => chosenPair({ pairs: [USDC] }, USDT)).toThrow(new DomainError("VALIDATION_ERROR", "pair usdt/bep20 is not offered by this checkout"));
    expect(() => chosenPair({ pairs: [USDC] }, { asset: "", rail: "erc20" })).toThrow("pair /erc20 is not offered by this checkout");
    expect(() => chosenPair({ pairs: [USDC] }, { asset: "usdc", rail: "" })).toThrow("pair usdc/ is not offered by this checkout");
    expect(() => chosenPair({ pairs: [USDT, USDC] }, { asset: "usdc", rail: "bep20" })).toThrow("pair usdc/bep20 is not offered by this checkout");
  });

  it("asks for a choice when none is named among several", () => {
    for (const requested of [undefined, { asset: "", rail: "" }]) {
      let caught: unknown;
      try {
        chosenPair({ pairs: [USDT, USDC] }, requested);
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ reason: "VALIDATION_ERROR", message: "choose one of the checkout's asset/rail pairs" });
    }
  });
});

describe("token form", () => {
  it("is exactly 43 base64url characters", () => {
    const { token } = newToken();
    expect(isTokenFormat(token.slice(1))).toBe(false);
    expect(isTokenFormat(`!${token}`)).toBe(false);
    expect(isTokenFormat(`${token.slice(1)}!`)).toBe(false);
    expect(isTokenFormat("Az09_-".padEnd(43, "x"))).toBe(true);
  });

  it("hashes with SHA-256", () => {
    expect(tokenHash("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

// --- The session's lifecycle over an in-memory CheckoutStore.

const MERCHANT = "0190f000-0000-7000-8000-00000000000a";
const OTHER_MERCHANT = "0190f000-0000-7000-8000-00000000000b";
const uuid = (n: number) => `0190f000-0000-7000-8000-${n.toString(16).padStart(12, "0")}`;

/** Sessions in memory, with every call the port got. */
function memoryStore() {
  const rows: { record: CheckoutRecord; tokenHash: string }[] = [];
  const calls: string[] = [];
  const disables: unknown[][] = [];
  const find = (merchantUuid: string, checkoutUuid: string) =>
    rows.find((r) => r.record.session.merchantUuid === merchantUuid && r.record.session.checkoutUuid === checkoutUuid);
  const store: CheckoutStore = {
    insert: async (session, hash) => {
      calls.push("insert");
      rows.push({ record: { session: { ...session }, intentStatus: null, start: null }, tokenHash: hash });
    },
    get: async (merchantUuid, checkoutUuid) => {
      calls.push("get");
      const row = find(merchantUuid, checkoutUuid);
      return row ? structuredClone(row.record) : null;
    },
    getByTokenHash: async (hash) => {
      calls.push("getByTokenHash");
      const row = rows.find((r) => r.tokenHash === hash);
      return row ? structuredClone(row.record) : null;
    },
    list: async (merchantUuid, limit, offset) => {
      calls.push(`list ${merchantUuid} ${limit} ${offset}`);
      const mine = rows.filter((r) => r.record.session.merchantUuid === merchantUuid).map((r) => r.record);
      mine.sort((a, b) => b.session.createdAt.getTime() - a.session.createdAt.getTime());
      return { records: mine.slice(offset, offset + limit), total: mine.length };
    },
    disable: async (merchantUuid, checkoutUuid, at) => {
      calls.push("disable");
      disables.push([merchantUuid, checkoutUuid, at]);
      const row = find(merchantUuid, checkoutUuid);
      if (!row || row.record.session.state !== "open" || row.record.start) return false;
      row.record.session.state = "disabled";
      row.record.session.updatedAt = at;
      return true;
    },
    claimTerms: async () => false,
    releaseTerms: async () => {},
    link: async () => false,
  };
  return { rows, store, calls, disables };
}

const request: CreateCheckoutRequest = {
  merchantUuid: MERCHANT, reference: "order-1", description: "Two tickets", amount: "25.50", jurisdiction: "DE", pairs: [USDC, USDT],
};

async function created(mem: ReturnType<typeof memoryStore>, n: number, over: Partial<CreateCheckoutRequest> = {}) {
  const deps = { store: mem.store, newUuid: () => uuid(n), now: () => at(n * 1000), paymentWindowS: 900, rails: RAILS };
  return createCheckoutSession(deps, { ...request, ...over });
}

describe("createCheckoutSession", () => {
  it("stores an open session with the token's hash and answers the token once", async () => {
    const mem = memoryStore();
    const { session, token } = await created(mem, 1);
    const expected: CheckoutSession = {
      checkoutUuid: uuid(1), merchantUuid: MERCHANT, reference: "order-1", description: "Two tickets", amount: "25.5", pairs: [USDC, USDT],
      jurisdiction: "DE", state: "open", intentUuid: null, paymentWindowS: 900, createdAt: at(1000), updatedAt: at(1000),
    };
    expect(session).toEqual(expected);
    expect(isTokenFormat(token)).toBe(true);
    expect(mem.rows).toEqual([{ record: { session: expected, intentStatus: null, start: null }, tokenHash: tokenHash(token) }]);
    expect(JSON.stringify(mem.rows)).not.toContain(token);
  });

  it("gives every session its own token", async () => {
    const mem = memoryStore();
    const a = await created(mem, 1);
    const b = await created(mem, 2);
    expect(a.token).not.toBe(b.token);
    expect(mem.rows.map((r) => r.tokenHash)).toEqual([tokenHash(a.token), tokenHash(b.token)]);
  });

  it("stores nothing when a field rule refuses", async () => {
    const mem = memoryStore();
    await expect(created(mem, 1, { amount: "-1" })).rejects.toMatchObject({ reason: "VALIDATION_ERROR" });
    expect(mem.calls).toEqual([]);
  });

  it("stores nothing for an amount that could never be paid on one of its pairs", async () => {
    const mem = memoryStore();
    await expect(created(mem, 1, { amount: "0.0005" })).rejects.toMatchObject({
      reason: "VALIDATION_ERROR",
      message: "amount must be at least 0.001 USDC on ERC20 (smaller transfers are dust and never count)",
    });
    expect(mem.calls).toEqual([]);
  });
});

describe("the default payment window", () => {
  it("is 30 minutes", () => {
    expect(DEFAULT_PAYMENT_WINDOW_S).toBe(1_800);
  });
});

describe("getCheckoutSession", () => {
  it("answers the merchant's session", async () => {
    const mem = memoryStore();
    const { session } = await created(mem, 1);
    await expect(getCheckoutSession(mem.store, MERCHANT, session.checkoutUuid)).resolves.toEqual({ session, intentStatus: null, start: null });
  });

  it("answers CHECKOUT_NOT_FOUND for a missing session, another merchant's, or ids that are not uuids, without a lookup for the latter", async () => {
    const mem = memoryStore();
    const { session } = await created(mem, 1);
    const notFound = { reason: "CHECKOUT_NOT_FOUND", message: "checkout not found" };
    await expect(getCheckoutSession(mem.store, MERCHANT, uuid(9))).rejects.toMatchObject(notFound);
    await expect(getCheckoutSession(mem.store, OTHER_MERCHANT, session.checkoutUuid)).rejects.toMatchObject(notFound);
    mem.calls.length = 0;
    await expect(getCheckoutSession(mem.store, "merchant", session.checkoutUuid)).rejects.toMatchObject(notFound);
    await expect(getCheckoutSession(mem.store, MERCHANT, "x")).rejects.toMatchObject(notFound);
    expect(mem.calls).toEqual([]);
    expect(checkoutNotFound()).toEqual(new DomainError("CHECKOUT_NOT_FOUND", "checkout not found"));
  });
});

describe("listCheckoutSessions", () => {
  it("lists the merchant's sessions newest first, a page at a time, with their total", async () => {
    const mem = memoryStore();
    for (const n of [1, 2, 3]) await created(mem, n);
    await created(mem, 4, { merchantUuid: OTHER_MERCHANT });
    const page = await listCheckoutSessions(mem.store, { merchantUuid: MERCHANT, limit: 2, offset: 0 });
    expect(page.records.map((r) => r.session.checkoutUuid)).toEqual([uuid(3), uuid(2)]);
    expect(page.total).toBe(3);
    const next = await listCheckoutSessions(mem.store, { merchantUuid: MERCHANT, limit: 100, offset: 2 });
    expect(next.records.map((r) => r.session.checkoutUuid)).toEqual([uuid(1)]);
    expect(mem.calls.filter((c) => c.startsWith("list"))).toEqual([`list ${MERCHANT} 2 0`, `list ${MERCHANT} 100 2`]);
  });

  it("refuses a limit outside 1 to 100 and a negative or fractional offset", async () => {
    const mem = memoryStore();
    for (const limit of [0, -1, 101, 1.5, Number.NaN]) {
      await expect(listCheckoutSessions(mem.store, { merchantUuid: MERCHANT, limit, offset: 0 })).rejects.toEqual(
        new DomainError("VALIDATION_ERROR", "limit must be 1 to 100"),
      );
    }
    for (const offset of [-1, 0.5, Number.NaN]) {
      await expect(listCheckoutSessions(mem.store, { merchantUuid: MERCHANT, limit: 1, offset })).rejects.toEqual(
        new DomainError("VALIDATION_ERROR", "offset must be 0 or more"),
      );
    }
    expect(mem.calls).toEqual([]);
    await expect(listCheckoutSessions(mem.store, { merchantUuid: MERCHANT, limit: 1, offset: 0 })).resolves.toEqual({ records: [], total: 0 });
    await expect(listCheckoutSessions(mem.store, { merchantUuid: MERCHANT, limit: 100, offset: 0 })).resolves.toEqual({ records: [], total: 0 });
  });

  it("answers an empty page, without a lookup, for a merchant id that is not a uuid", async () => {
    const mem = memoryStore();
    await created(mem, 1);
    mem.calls.length = 0;
    await expect(listCheckoutSessions(mem.store, { merchantUuid: "m", limit: 10, offset: 0 })).resolves.toEqual({ records: [], total: 0 });
    expect(mem.calls).toEqual([]);
  });
});

describe("disableCheckoutSession", () => {
  const when = at(60_000);

  it("disables an open session no start has used, and answers it as stored", async () => {
    const mem = memoryStore();
    const { session } = await created(mem, 1);
    const record = await disableCheckoutSession(mem.store, MERCHANT, session.checkoutUuid, when);
    expect(record.session).toEqual({ ...session, state: "disabled", updatedAt: when });
    expect(mem.disables).toEqual([[MERCHANT, session.checkoutUuid, when]]);
  });

  it("is idempotent: a disabled session is answered as it is, without another disable", async () => {
    const mem = memoryStore();
    const { session } = await created(mem, 1);
    const first = await disableCheckoutSession(mem.store, MERCHANT, session.checkoutUuid, when);
    const again = await disableCheckoutSession(mem.store, MERCHANT, session.checkoutUuid, at(120_000));
    expect(again).toEqual(first);
    expect(mem.disables).toHaveLength(1);
  });

  it("answers a session a concurrent request disabled first", async () => {
    const mem = memoryStore();
    const { session } = await created(mem, 1);
    // The other request disables it between this one's read and its disable.
    const store: CheckoutStore = {
      ...mem.store,
      disable: async (m, c, t) => {
        await mem.store.disable(m, c, at(1));
        return mem.store.disable(m, c, t);
      },
    };
    const record = await disableCheckoutSession(store, MERCHANT, session.checkoutUuid, when);
    expect(record.session).toMatchObject({ state: "disabled", updatedAt: at(1) });
  });

  it("refuses with CHECKOUT_NOT_DISABLABLE once a start fixed terms or created the intent", async () => {
    const mem = memoryStore();
    const { session: claimed } = await created(mem, 1);
    const { session: started } = await created(mem, 2);
    mem.rows[0]!.record.start = { ...USDC, expiresAt: at(900_000), claimedAt: at(0) };
    Object.assign(mem.rows[1]!.record.session, { state: "started", intentUuid: uuid(99) });
    for (const session of [claimed, started]) {
      await expect(disableCheckoutSession(mem.store, MERCHANT, session.checkoutUuid, when)).rejects.toEqual(
        new DomainError("CHECKOUT_NOT_DISABLABLE", "only an open checkout that no payer has started can be disabled"),
      );
    }
    expect(mem.rows.map((r) => r.record.session.state)).toEqual(["open", "started"]);
  });

  it("answers CHECKOUT_NOT_FOUND for another merchant's session, and disables nothing", async () => {
    const mem = memoryStore();
    const { session } = await created(mem, 1);
    await expect(disableCheckoutSession(mem.store, OTHER_MERCHANT, session.checkoutUuid, when)).rejects.toMatchObject({ reason: "CHECKOUT_NOT_FOUND" });
    expect(mem.disables).toEqual([]);
    expect(mem.rows[0]!.record.session.state).toBe("open");
  });
});
