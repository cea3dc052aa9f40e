import { describe, expect, it } from "vitest";
import { cookieValues, hostCookie } from "./cookies.js";

describe("cookieValues", () => {
  it("answers every non-empty value of the name, as sent", () => {
    expect(cookieValues("a=1; __Host-x=tok%41; b=2", "__Host-x")).toEqual(["tok%41"]);
    expect(cookieValues("__Host-x=one;__Host-x=; __Host-x= two ", "__Host-x")).toEqual(["one", "two"]);
    expect(cookieValues("__Host-xy=1; y__Host-x=2; __Host-x", "__Host-x")).toEqual([]);
    expect(cookieValues("", "__Host-x")).toEqual([]);
  });
});

describe("hostCookie", () => {
  it("sets Path=/, Max-Age, Secure, HttpOnly and SameSite=Lax, and no Domain", () => {
    const line = hostCookie("__Host-x", "tok", 90.7, new Date(0));
    expect(line.split("; ").sort()).toEqual(["Expires=Thu, 01 Jan 1970 00:00:00 GMT", "HttpOnly", "Max-Age=90", "Path=/", "SameSite=Lax", "Secure", "__Host-x=tok"]);
    expect(hostCookie("__Host-x", "", -5)).toBe("__Host-x=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax");
  });

  it("refuses a value a cookie cannot carry", () => {
    expect(() => hostCookie("__Host-x", "a;b", 1)).toThrow();
  });
});
