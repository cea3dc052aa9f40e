import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsTestServer, type DnsTestServer } from "../notifier/dns-test-server.js";
import { addressRefusal, checkWebhookUrl, dnsServersLookup, MAX_WEBHOOK_URL_LENGTH, type HostLookup } from "./webhook-url.js";

const strict = { allowInsecure: false };
const local = { allowInsecure: true };

/** A resolver answering fixed addresses, for names whose real answer cannot be arranged in a unit test. */
const answers =
  (table: Record<string, string[]>): HostLookup =>
  async (host) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return found;
  };

async function reason(url: string, options: Parameters<typeof checkWebhookUrl>[1]): Promise<string> {
  const check = await checkWebhookUrl(url, options);
  if (check.ok) throw new Error(`${url} was accepted`);
  return check.reason;
}

describe("checkWebhookUrl: scheme, credentials, length", () => {
  it("accepts an https URL with a public IP literal and answers the address it checked", async () => {
    const check = await checkWebhookUrl("https://93.184.215.14/hooks?x=1", strict);
    expect(check).toEqual({ ok: true, url: new URL("https://93.184.215.14/hooks?x=1"), addresses: ["93.184.215.14"] });
  });

  it("accepts a public IPv6 literal without its brackets in the addresses", async () => {
    const check = await checkWebhookUrl("https://[2606:4700:4700::1111]:8443/x", strict);
    expect(check.ok && check.addresses).toEqual(["2606:4700:4700::1111"]);
  });

  it("refuses http unless insecure URLs are allowed", async () => {
    expect(await reason("http://93.184.215.14/", strict)).toBe("the URL must use https");
    expect((await checkWebhookUrl("http://93.184.215.14/", local)).ok).toBe(true);
  });

  it("refuses other schemes even when insecure URLs are allowed", async () => {
    for (const url of ["ftp://93.184.215.14/", "file:///etc/passwd", "ws://93.184.215.14/", "javascript:alert(1)"]) {
      expect(await reason(url, local)).toBe("the URL must use https or http");
    }
  });

  it("refuses what is not an absolute URL", async () => {
    for (const url of ["", "example.com/hook", "/hook", "https://", "https://exa mple.com/"]) {
      expect(await reason(url, strict)).toBe("not a valid absolute URL");
    }
  });

  it("refuses credentials in the URL (user, or user and password)", async () => {
    expect(await reason("https://user@93.184.215.14/", strict)).toBe("the URL may not carry credentials");
    expect(await reason("https://user:pw@93.184.215.14/", strict)).toBe("the URL may not carry credentials");
    expect(await reason("https://:pw@93.184.215.14/", strict)).toBe("the URL may not carry credentials");
  });

  it("accepts exactly the longest length and refuses one character more", async () => {
    const base = "https://93.184.215.14/";
    const longest = base + "a".repeat(MAX_WEBHOOK_URL_LENGTH - base.length);
    expect((await checkWebhookUrl(longest, strict)).ok).toBe(true);
    expect(await reason(longest + "a", strict)).toBe("the URL is longer than 2048 characters");
  });
});

describe("checkWebhookUrl: addresses", () => {
  it.each([
    ["https://127.0.0.1/", "loopback"],
    ["https://127.1.2.3/", "loopback"],
    ["https://[::1]/", "loopback"],
    ["https://10.0.0.1/", "private"],
    ["https://172.16.5.4/", "private"],
    ["https://192.168.1.1/", "private"],
    ["https://169.254.169.254/latest/meta-data/", "linkLocal"],
    ["https://[fe80::1]/", "linkLocal"],
    ["https://[fd00::1]/", "uniqueLocal"],
    ["https://100.64.0.1/", "carrierGradeNat"],
    ["https://0.0.0.0/", "unspecified"],
    ["https://[::]/", "unspecified"],
    ["https://224.0.0.1/", "multicast"],
    ["https://[ff02::1]/", "multicast"],
    ["https://255.255.255.255/", "broadcast"],
    ["https://240.0.0.1/", "reserved"],
    ["https://192.0.2.1/", "reserved"],
    ["https://[2001:db8::1]/", "reserved"],
    ["https://[2002:7f00:1::]/", "6to4"],
    ["https://[64:ff9b::a00:1]/", "rfc6052"],
  ])("refuses %s (%s)", async (url, range) => {
    expect(await reason(url, strict)).toContain(`(${range})`);
  });

  it("judges an IPv4-mapped IPv6 literal as its IPv4 address", async () => {
    expect(await reason("https://[::ffff:127.0.0.1]/", strict)).toContain("127.0.0.1 is not a public address (loopback)");
    expect(await reason("https://[::ffff:a9fe:a9fe]/", strict)).toContain("169.254.169.254 is not a public address (linkLocal)");
    expect(await reason("https://[::ffff:10.1.2.3]/", local)).toContain("10.1.2.3 is not a public address (private)");
    expect((await checkWebhookUrl("https://[::ffff:93.184.215.14]/", strict)).ok).toBe(true);
  });

  it("refuses IPv4-compatible IPv6 addresses (::a.b.c.d)", async () => {
    expect(await reason("https://[::7f00:1]/", strict)).toContain("is an IPv4-compatible address");
    expect(await reason("https://[::5db8:d70e]/", strict)).toContain("is an IPv4-compatible address");
  });

  it("reads the numeric forms a URL normalises (decimal, hex, short) as the address they are", async () => {
    expect(await reason("https://2130706433/", strict)).toContain("127.0.0.1 is not a public address (loopback)");
    expect(await reason("https://0x7f.1/", strict)).toContain("127.0.0.1 is not a public address (loopback)");
    expect(await reason("https://0xa9fea9fe/", strict)).toContain("169.254.169.254 is not a public address (linkLocal)");
  });

  it("allows loopback (and only loopback) when insecure URLs are allowed", async () => {
    expect((await checkWebhookUrl("http://127.0.0.1:8080/", local)).ok).toBe(true);
    expect((await checkWebhookUrl("http://[::1]:8080/", local)).ok).toBe(true);
    for (const url of ["http://10.0.0.1/", "http://169.254.169.254/", "http://[fd00::1]/", "http://0.0.0.0/", "http://[::]/"]) {
      expect((await checkWebhookUrl(url, local)).ok, url).toBe(false);
    }
  });

  it("resolves a name with the system's resolver: localhost is loopback", async () => {
    expect(await reason("https://localhost/hook", strict)).toMatch(/^the host localhost resolves to a refused address: .* \(loopback\)$/);
    const check = await checkWebhookUrl("http://localhost:3000/hook", local);
    expect(check.ok).toBe(true);
    if (check.ok) for (const address of check.addresses) expect(["127.0.0.1", "::1"]).toContain(address);
  });

  it("refuses a name that does not resolve", async () => {
    expect(await reason("https://nothing-here.invalid/", strict)).toMatch(/^the host nothing-here\.invalid could not be resolved/);
  });

  it("refuses a name when any one of its addresses is refused, whichever comes first", async () => {
    const lookup = answers({ "mixed.example": ["93.184.215.14", "10.0.0.7"], "mixed6.example": ["fd12::1", "93.184.215.14"] });
    expect(await reason("https://mixed.example/", { ...strict, lookup })).toBe(
      "the host mixed.example resolves to a refused address: 10.0.0.7 is not a public address (private)",
    );
    expect(await reason("https://mixed6.example/", { ...strict, lookup })).toContain("fd12::1 is not a public address (uniqueLocal)");
  });

  it("refuses a name resolving to a private or metadata address even when insecure URLs are allowed", async () => {
    const lookup = answers({ "inside.example": ["192.168.0.10"], "meta.example": ["169.254.169.254"] });
    expect(await reason("http://inside.example/", { ...local, lookup })).toContain("(private)");
    expect(await reason("http://meta.example/", { ...local, lookup })).toContain("(linkLocal)");
  });

  it("answers every address of a public name", async () => {
    const lookup = answers({ "public.example": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"] });
    expect(await checkWebhookUrl("https://public.example/x", { ...strict, lookup })).toEqual({
      ok: true,
      url: new URL("https://public.example/x"),
      addresses: ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    });
  });

  it("refuses a name with no address, and says why a lookup failed", async () => {
    expect(await reason("https://empty.example/", { ...strict, lookup: async () => [] })).toBe("the host empty.example has no address");
    expect(await reason("https://gone.example/", { ...strict, lookup: answers({}) })).toBe("the host gone.example could not be resolved (ENOTFOUND)");
    expect(await reason("https://odd.example/", { ...strict, lookup: () => Promise.reject(new Error("boom")) })).toBe("the host odd.example could not be resolved");
  });

  it("refuses an answer that is not an address", async () => {
    expect(await reason("https://weird.example/", { ...strict, lookup: async () => ["not-an-ip"] })).toContain('"not-an-ip" is not an IP address');
  });
});

describe("addressRefusal", () => {
  it("allows public unicast addresses", () => {
    expect(addressRefusal("8.8.8.8", false)).toBeNull();
    expect(addressRefusal("2001:4860:4860::8888", false)).toBeNull();
  });

  it("refuses teredo and other embedding ranges", () => {
    expect(addressRefusal("2001::1", false)).toMatch(/\((teredo|reserved)\)$/);
    expect(addressRefusal("::ffff:0:7f00:1", false)).toContain("(rfc6145)");
  });

  it("does not take :: or ::1 for IPv4-compatible addresses", () => {
    expect(addressRefusal("::", true)).toContain("(unspecified)");
    expect(addressRefusal("::1", true)).toBeNull();
    expect(addressRefusal("::2", false)).toContain("IPv4-compatible");
  });
});

describe("dnsServersLookup (a real resolver asking a DNS server on 127.0.0.1)", () => {
  let dns: DnsTestServer;
  beforeAll(async () => {
    dns = await startDnsTestServer({ "inside.test": ["10.1.2.3"], "public.test": ["93.184.215.14", "93.184.215.15"] });
  });
  afterAll(async () => {
    await dns.close();
  });

  it("answers every A record of a name", async () => {
    expect(await dnsServersLookup([dns.address])("public.test")).toEqual(["93.184.215.14", "93.184.215.15"]);
  });

  it("makes checkWebhookUrl refuse a name resolving to a private address, and accept a public one", async () => {
    const lookup = dnsServersLookup([dns.address]);
    expect(await reason("https://inside.test/hook", { ...strict, lookup })).toBe(
      "the host inside.test resolves to a refused address: 10.1.2.3 is not a public address (private)",
    );
    expect((await checkWebhookUrl("https://public.test/hook", { ...strict, lookup })).ok).toBe(true);
  });

  it("sees a name's new address at once (nothing is cached between checks)", async () => {
    const lookup = dnsServersLookup([dns.address]);
    dns.set("moving.test", ["93.184.215.14"]);
    expect((await checkWebhookUrl("https://moving.test/", { ...strict, lookup })).ok).toBe(true);
    dns.set("moving.test", ["169.254.169.254"]);
    expect(await reason("https://moving.test/", { ...strict, lookup })).toContain("(linkLocal)");
  });

  it("fails for an unknown name with the resolver's code", async () => {
    await expect(dnsServersLookup([dns.address])("nowhere.test")).rejects.toMatchObject({ code: "ENOTFOUND" });
    expect(await reason("https://nowhere.test/", { ...strict, lookup: dnsServersLookup([dns.address]) })).toBe("the host nowhere.test could not be resolved (ENOTFOUND)");
  });

  it("fails for a name with records of neither family", async () => {
    dns.set("empty.test", []);
    await expect(dnsServersLookup([dns.address])("empty.test")).rejects.toMatchObject({ code: "ENODATA" });
  });
});
