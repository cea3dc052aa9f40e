import { promises as dns } from "node:dns";
import ipaddr from "ipaddr.js";

/** The longest webhook URL accepted, in characters. */
export const MAX_WEBHOOK_URL_LENGTH = 2_048;

/** How long resolving a receiver's name may take before the URL is refused. */
export const WEBHOOK_DNS_TIMEOUT_MS = 5_000;

/** Every address a host name resolves to (IPv4 and IPv6), as text. */
export type HostLookup = (host: string) => Promise<string[]>;

export interface WebhookUrlOptions {
  /**
   * Local development only: allows `http:` and loopback receivers (127.0.0.0/8,
   * ::1). Private, link-local and every other non-public address stay refused.
   */
  allowInsecure: boolean;
  /** How names are resolved (default: the system's resolver, every address). */
  lookup?: HostLookup;
}

export type WebhookUrlCheck = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string };

/** The system's resolver (getaddrinfo, as every other connection of the process): all addresses of a name. */
export const systemLookup: HostLookup = async (host) => (await dns.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * A resolver asking the given DNS servers ("1.2.3.4" or "1.2.3.4:5353") for A
 * and AAAA records, instead of the system's resolver. A name with neither is
 * an error (ENOTFOUND).
 */
export function dnsServersLookup(servers: readonly string[]): HostLookup {
  const resolver = new dns.Resolver({ timeout: 2_000, tries: 2 });
  resolver.setServers([...servers]);
  return async (host) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    const addresses = [...(v4.status === "fulfilled" ? v4.value : []), ...(v6.status === "fulfilled" ? v6.value : [])];
    if (addresses.length > 0) return addresses;
    const failure = v4.status === "rejected" ? v4.reason : v6.status === "rejected" ? v6.reason : undefined;
    throw failure instanceof Error ? failure : Object.assign(new Error(`no address for ${host}`), { code: "ENOTFOUND" });
  };
}

/**
 * Why an address may not receive webhooks, or null when it may. Only public
 * unicast is allowed (ipaddr.js's "unicast" range: everything not in a special
 * range), and loopback when `allowInsecure`. An IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d) is judged as its IPv4 address; IPv4-compatible addresses
 * (::a.b.c.d, deprecated) are refused, and so are addresses embedding another
 * (6to4, Teredo, NAT64), which ipaddr.js gives ranges of their own.
 */
export function addressRefusal(address: string, allowInsecure: boolean): string | null {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv6" && isIpv4Compatible(parsed as ipaddr.IPv6)) return `${parsed.toString()} is an IPv4-compatible address`;
  const range = parsed.range();
  if (range === "unicast") return null;
  if (range === "loopback" && allowInsecure) return null;
  return `${parsed.toString()} is not a public address (${range})`;
}

/** ::/96 except :: and ::1 (those have ranges of their own). */
function isIpv4Compatible(address: ipaddr.IPv6): boolean {
  const parts = address.parts;
  return parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7]! > 1);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: "ETIMEOUT" })), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Decides whether `url` may receive webhooks, at creation and again before
 * every delivery: `https:` only (`http:` too when `allowInsecure`), no
 * credentials, at most MAX_WEBHOOK_URL_LENGTH characters, and every address
 * its host resolves to public (addressRefusal). An IP literal is judged as it
 * is. On success the addresses are those checked: a delivery connects to one
 * of them and to nothing else, so a name re-resolving elsewhere between the
 * check and the connection changes nothing.
 */
export async function checkWebhookUrl(url: string, options: WebhookUrlOptions): Promise<WebhookUrlCheck> {
  if (url.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, reason: `the URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: "not a valid absolute URL" };
  }
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && options.allowInsecure)) {
    return { ok: false, reason: options.allowInsecure ? "the URL must use https or http" : "the URL must use https" };
  }
  if (parsed.username !== "" || parsed.password !== "") return { ok: false, reason: "the URL may not carry credentials" };
  const host = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname;
  if (host === "") return { ok: false, reason: "the URL has no host" };

  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await withTimeout((options.lookup ?? systemLookup)(host), WEBHOOK_DNS_TIMEOUT_MS);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return { ok: false, reason: `the host ${host} could not be resolved${typeof code === "string" ? ` (${code})` : ""}` };
    }
    if (addresses.length === 0) return { ok: false, reason: `the host ${host} has no address` };
  }
  for (const address of addresses) {
    const refusal = addressRefusal(address, options.allowInsecure);
    if (refusal !== null) return { ok: false, reason: `the host ${host} resolves to a refused address: ${refusal}` };
  }
  return { ok: true, url: parsed, addresses };
}
