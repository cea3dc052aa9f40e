import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import proxyAddr from "proxy-addr";

/**
 * Why a TRUSTED_PROXIES item is not an IP address or CIDR range that proxy-addr
 * understands (e.g. `10.0.0.0/8`, `::1`, `loopback`); null when it is.
 */
export function trustedProxyProblem(item: string): string | null {
  try {
    proxyAddr.compile(item);
    return null;
  } catch {
    return "is not an IP address, CIDR range or proxy-addr name (loopback, linklocal, uniquelocal)";
  }
}

/**
 * The client address of a request: the TCP peer, unless the peer is one of the
 * `trusted` proxies; then X-Forwarded-For is followed from its right end, hop by
 * hop, while the hop is trusted, and the first untrusted address is the client.
 * With no trusted proxy (the default) the header is never read, so a client
 * cannot choose its own address.
 */
export function clientAddressOf(trusted: readonly string[]): (req: IncomingMessage) => string {
  const trust = proxyAddr.compile([...trusted]);
  return (req) => {
    const peer = req.socket?.remoteAddress;
    if (!peer) return "";
    const address = proxyAddr(req, trust);
    // A trusted hop forwarding something that is no address: the hop itself is what we know.
    return isIP(address) ? address : peer;
  };
}
