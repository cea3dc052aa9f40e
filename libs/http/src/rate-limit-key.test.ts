import { describe, expect, it } from "vitest";
import { rateLimitKeyOf } from "./rate-limit-key.js";

describe("rateLimitKeyOf", () => {
  it("counts IPv4 by its dotted text", () => {
    expect(rateLimitKeyOf("1.2.3.4")).toBe("1.2.3.4");
    expect(rateLimitKeyOf("203.0.113.255")).toBe("203.0.113.255");
  });

  it("counts an IPv4-mapped IPv6 address as the IPv4, however it is written", () => {
    for (const spelling of ["::ffff:1.2.3.4", "::FFFF:1.2.3.4", "0:0:0:0:0:ffff:102:304", "0000:0000:0000:0000:0000:FFFF:0102:0304", "::ffff:102:304"]) {
      expect(rateLimitKeyOf(spelling), spelling).toBe("1.2.3.4");
    }
  });

  it("counts IPv6 by its /64, in one canonical text", () => {
    for (const spelling of [
      "2001:db8:1:2::1",
      "2001:DB8:1:2:ffff:ffff:ffff:ffff",
      "2001:0db8:0001:0002:0000:0000:0000:0001",
      "2001:db8:1:2:a:b:c:d",
      "2001:db8:1:2::1%eth0",
    ]) {
      expect(rateLimitKeyOf(spelling), spelling).toBe("2001:db8:1:2::/64");
    }
    expect(rateLimitKeyOf("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(rateLimitKeyOf("::1")).toBe("::/64");
    expect(rateLimitKeyOf("fe80::1%25")).toBe("fe80::/64");
    expect(rateLimitKeyOf("2001:0:0:1::")).toBe("2001:0:0:1::/64");
  });

  it("takes the prefix length it is given", () => {
    expect(rateLimitKeyOf("2001:db8:1:2::1", 48)).toBe("2001:db8:1::/48");
    expect(rateLimitKeyOf("2001:db8:1:2::1", 56)).toBe("2001:db8:1::/56");
    expect(rateLimitKeyOf("2001:db8:1:2ff::1", 56)).toBe("2001:db8:1:200::/56");
    expect(rateLimitKeyOf("2001:db8:1:2::1", 128)).toBe("2001:db8:1:2::1/128");
    expect(rateLimitKeyOf("2001:db8:1:2::1", 0)).toBe("::/0");
    // IPv4 and mapped IPv4 ignore it.
    expect(rateLimitKeyOf("::ffff:1.2.3.4", 48)).toBe("1.2.3.4");
    expect(() => rateLimitKeyOf("::1", 129)).toThrow(RangeError);
    expect(() => rateLimitKeyOf("::1", 63.5)).toThrow(RangeError);
  });

  it("answers null for what is no IP address", () => {
    for (const text of ["", "localhost", "01.2.3.4", "1.2.3", " 1.2.3.4", "1.2.3.4 ", "2001:db8::1::2", "[::1]", "::1/64", "1.2.3.4:80", "::g"]) {
      expect(rateLimitKeyOf(text), JSON.stringify(text)).toBeNull();
    }
  });
});
