import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clientAddressOf, trustedProxyProblem } from "./client-address.js";

/** A request from `peer` with these headers. */
function request(peer: string, headers: Record<string, string> = {}): IncomingMessage {
  const socket = { remoteAddress: peer };
  return { socket, connection: socket, headers } as unknown as IncomingMessage;
}

describe("clientAddressOf", () => {
  it("is the TCP peer by default, whatever X-Forwarded-For says", () => {
    const address = clientAddressOf([]);
    expect(address(request("203.0.113.7", { "x-forwarded-for": "198.51.100.1" }))).toBe("203.0.113.7");
    expect(address(request("127.0.0.1", { "x-forwarded-for": "198.51.100.1" }))).toBe("127.0.0.1");
  });

  it("follows X-Forwarded-For only through trusted hops", () => {
    const address = clientAddressOf(["10.0.0.0/8", "192.0.2.1"]);
    // From the trusted balancer: the address it saw.
    expect(address(request("10.1.2.3", { "x-forwarded-for": "198.51.100.1" }))).toBe("198.51.100.1");
    // A client's own X-Forwarded-For before the balancer's is not believed: the first untrusted hop from the right.
    expect(address(request("10.1.2.3", { "x-forwarded-for": "6.6.6.6, 198.51.100.1" }))).toBe("198.51.100.1");
    // Two trusted hops.
    expect(address(request("10.1.2.3", { "x-forwarded-for": "198.51.100.1, 192.0.2.1" }))).toBe("198.51.100.1");
    // Not from a trusted proxy: the header is ignored.
    expect(address(request("203.0.113.7", { "x-forwarded-for": "198.51.100.1" }))).toBe("203.0.113.7");
    // A trusted hop forwarding garbage: the hop.
    expect(address(request("10.1.2.3", { "x-forwarded-for": "not an address" }))).toBe("10.1.2.3");
  });
});

describe("TRUSTED_PROXIES", () => {
  it("accepts addresses and CIDR ranges, and nothing else", () => {
    expect(trustedProxyProblem("10.0.0.0/8")).toBeNull();
    expect(trustedProxyProblem("::1")).toBeNull();
    expect(trustedProxyProblem("10.0.0.0/33")).not.toBeNull();
    expect(trustedProxyProblem("proxy.example")).not.toBeNull();
  });
});
