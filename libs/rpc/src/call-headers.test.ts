import { describe, expect, it } from "vitest";
import { CallHeaders } from "./call-headers.js";

describe("CallHeaders", () => {
  it("behaves as Fetch's Headers for a request: case-insensitive names, set, append, delete, trimmed values", () => {
    const headers = new CallHeaders({ "X-Caller": " kept ", Accept: "a" });
    expect(headers.get("x-caller")).toBe("kept");
    headers.set("Authorization", "Bearer one");
    headers.set("authorization", "Bearer two");
    headers.append("accept", "b");
    headers.delete("X-CALLER");
    expect(headers.get("AUTHORIZATION")).toBe("Bearer two");
    expect(headers.get("accept")).toBe("a, b");
    expect(headers.has("x-caller")).toBe(false);
    expect(headers.get("x-caller")).toBeNull();
    expect([...headers]).toEqual([
      ["accept", "a, b"],
      ["authorization", "Bearer two"],
    ]);
    expect([...headers.keys()]).toEqual(["accept", "authorization"]);
    const seen: string[] = [];
    headers.forEach((value, name) => seen.push(`${name}=${value}`));
    expect(seen).toEqual(["accept=a, b", "authorization=Bearer two"]);
    // Fetch's own Headers takes it as it takes any iterable of pairs.
    expect(new Headers(headers).get("authorization")).toBe("Bearer two");
  });

  it("reads every form of a caller's headers", () => {
    expect(new CallHeaders([["x-a", "1"]]).get("x-a")).toBe("1");
    expect(new CallHeaders(new Headers({ "x-b": "2" })).get("x-b")).toBe("2");
    expect([...new CallHeaders()]).toEqual([]);
  });
});
