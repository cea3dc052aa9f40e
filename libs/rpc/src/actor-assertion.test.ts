import { randomBytes, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { assertionPublicKeyOf, assertionSigningKey, assertionVerifyingKey } from "@payin/config";
import { ASSERTION_TTL_MS, isOperatorOsUser, operatorOsUser, recordedActor, signActorAssertion, stampActor, verifyActorAssertion, vouchedPerson, type ActorClaims } from "./actor-assertion.js";

const seed = randomBytes(32);
const key = assertionSigningKey(seed);
const publicKey = assertionVerifyingKey(assertionPublicKeyOf(seed));
const otherKey = assertionSigningKey(randomBytes(32));
const NOW = 1_800_000_000_000;
const PERSON = "0190a000-0000-7000-8000-000000000001";
const claims = (over: Partial<ActorClaims> = {}): ActorClaims => ({
  kind: "identity",
  uuid: PERSON,
  permissions: ["identity.manage", "merchant.payin.read"],
  mfaRecentUntil: NOW + 60_000,
  expiresAt: NOW + ASSERTION_TTL_MS,
  ...over,
});
/** The claims part of an assertion replaced by `json`, the signature kept. */
const withClaims = (assertion: string, json: string) => {
  const [, , signature] = assertion.split(".");
  return `pa1.${Buffer.from(json).toString("base64url")}.${signature}`;
};

describe("actor assertions", () => {
  it("verify with identity's public key and give back exactly the claims signed", () => {
    for (const signed of [claims(), claims({ kind: "machine_credential", permissions: [], mfaRecentUntil: null })]) {
      expect(verifyActorAssertion(publicKey, signActorAssertion(key, signed), NOW)).toEqual({ ok: true, claims: signed });
    }
  });

  it("are good until their expiry, not at it", () => {
    const assertion = signActorAssertion(key, claims({ expiresAt: NOW + 1 }));
    expect(verifyActorAssertion(publicKey, assertion, NOW).ok).toBe(true);
    expect(verifyActorAssertion(publicKey, assertion, NOW + 1)).toEqual({ ok: false, refusal: "expired" });
  });

  it("signed by any other key, or changed in any part, do not verify", () => {
    const assertion = signActorAssertion(key, claims());
    expect(verifyActorAssertion(publicKey, signActorAssertion(otherKey, claims()), NOW)).toEqual({ ok: false, refusal: "bad_signature" });
    const forged = withClaims(assertion, JSON.stringify({ k: "identity", u: "0190a000-0000-7000-8000-000000000002", p: [], m: null, e: NOW + 1000 }));
    expect(verifyActorAssertion(publicKey, forged, NOW)).toEqual({ ok: false, refusal: "bad_signature" });
    const [, body, signature] = assertion.split(".") as [string, string, string];
    const flipped = Buffer.from(signature, "base64url");
    flipped[0] = flipped[0]! ^ 1;
    expect(verifyActorAssertion(publicKey, `pa1.${body}.${flipped.toString("base64url")}`, NOW)).toEqual({ ok: false, refusal: "bad_signature" });
  });

  it("are malformed without the prefix, with the wrong number of parts, a short signature or foreign characters", () => {
    const assertion = signActorAssertion(key, claims());
    const [, body, signature] = assertion.split(".") as [string, string, string];
    for (const bad of ["", "pa1.", `pa2.${body}.${signature}`, `pa1.${body}`, `pa1.${body}.${signature}.x`, `pa1.${body}.${signature.slice(0, 40)}`, `pa1.${body}+.${signature}`, `pa1.${body}.${signature}=`, `pa1.${"A".repeat(5000)}.${signature}`]) {
      expect(verifyActorAssertion(publicKey, bad, NOW), bad.slice(0, 40)).toEqual({ ok: false, refusal: "malformed" });
    }
  });

  it("with a validly signed body of the wrong shape are malformed", () => {
    const good = { k: "identity", u: PERSON, p: ["a.b"], m: null, e: NOW + 1000 };
    const shapes: unknown[] = [
      "not json",
      null,
      [],
      { ...good, k: "operator_cli" },
      { ...good, u: "0190A000-0000-7000-8000-000000000001" },
      { ...good, u: 7 },
      { ...good, p: "a.b" },
      { ...good, p: ["A.B"] },
      { ...good, p: [1] },
      { ...good, m: "soon" },
      { ...good, m: 1.5 },
      { ...good, e: "later" },
      { ...good, e: undefined },
    ];
    for (const shape of shapes) {
      const json = typeof shape === "string" ? shape : JSON.stringify(shape);
      const assertion = signedRaw(json);
      expect(verifyActorAssertion(publicKey, assertion, NOW), json).toEqual({ ok: false, refusal: "malformed" });
    }
    expect(verifyActorAssertion(publicKey, signedRaw(JSON.stringify(good)), NOW)).toEqual({
      ok: true,
      claims: { kind: "identity", uuid: PERSON, permissions: ["a.b"], mfaRecentUntil: null, expiresAt: NOW + 1000 },
    });
  });
});

/** Signs raw claims JSON the way signActorAssertion does (same context string), for shape tests. */
function signedRaw(json: string): string {
  const part = Buffer.from(json).toString("base64url");
  return `pa1.${part}.${sign(null, Buffer.from(`payin actor assertion v1\n${part}`, "utf8"), key).toString("base64url")}`;
}

describe("stampActor", () => {
  const assertion = signActorAssertion(key, claims());

  it("names the person an assertion vouches for, whichever caller brings it", () => {
    for (const caller of ["api", "checkout", undefined]) {
      expect(stampActor(publicKey, { caller, assertion, osUser: "" }, NOW)).toEqual({ ok: true, actor: { kind: "identity", uuid: PERSON, osUser: null, claims: claims() } });
    }
  });

  it("gives the operator CLI its OS user, with or without a person", () => {
    expect(stampActor(publicKey, { caller: "payinctl", assertion: "", osUser: "ops" }, NOW)).toEqual({ ok: true, actor: { kind: "operator_cli", uuid: null, osUser: "ops", claims: null } });
    expect(stampActor(publicKey, { caller: "payinctl", assertion, osUser: "ops" }, NOW)).toEqual({ ok: true, actor: { kind: "identity", uuid: PERSON, osUser: "ops", claims: claims() } });
  });

  it("makes npm start's own provisioning the system, and only without an assertion or OS user", () => {
    expect(stampActor(publicKey, { caller: "stack", assertion: "", osUser: "" }, NOW)).toEqual({ ok: true, actor: { kind: "system", uuid: null, osUser: null, claims: null } });
    expect(stampActor(publicKey, { caller: "stack", assertion, osUser: "" }, NOW)).toEqual({ ok: true, actor: { kind: "identity", uuid: PERSON, osUser: null, claims: claims() } });
    expect(stampActor(publicKey, { caller: "stack", assertion: "", osUser: "ops" }, NOW)).toEqual({ ok: false, refusal: "bad_os_user" });
  });

  it("refuses any other caller without an assertion, and any caller with a bad one", () => {
    for (const caller of ["api", "checkout", "payins", "test", undefined]) {
      expect(stampActor(publicKey, { caller, assertion: "", osUser: "" }, NOW)).toEqual({ ok: false, refusal: "not_vouched" });
    }
    expect(stampActor(publicKey, { caller: "payinctl", assertion: signActorAssertion(otherKey, claims()), osUser: "ops" }, NOW)).toEqual({ ok: false, refusal: "bad_signature" });
    expect(stampActor(publicKey, { caller: "api", assertion, osUser: "" }, NOW + ASSERTION_TTL_MS)).toEqual({ ok: false, refusal: "expired" });
  });

  it("takes an OS user from the operator CLI only, and a well-formed one", () => {
    expect(stampActor(publicKey, { caller: "api", assertion, osUser: "root" }, NOW)).toEqual({ ok: false, refusal: "bad_os_user" });
    for (const osUser of ["", "a b", "x".repeat(65), "é"]) {
      expect(stampActor(publicKey, { caller: "payinctl", assertion: "", osUser }, NOW)).toEqual({ ok: false, refusal: "bad_os_user" });
    }
    expect(stampActor(publicKey, { caller: "payinctl", assertion: "", osUser: "A-z.0_9@h" }, NOW).ok).toBe(true);
    expect(stampActor(publicKey, { caller: "payinctl", assertion: "", osUser: "x".repeat(64) }, NOW).ok).toBe(true);
  });
});

describe("operatorOsUser", () => {
  it("reports the OS user in the characters the service takes, never empty", () => {
    expect(operatorOsUser("alice.ops")).toBe("alice.ops");
    expect(operatorOsUser("DOMAIN\\bob smith")).toBe("DOMAIN_bob_smith");
    expect(operatorOsUser("x".repeat(80))).toBe("x".repeat(64));
    expect(operatorOsUser("")).toBe("unknown");
    expect(operatorOsUser()).toMatch(/^[A-Za-z0-9._@-]{1,64}$/);
  });
});

describe("vouchedPerson", () => {
  const person = (over: Partial<ActorClaims> = {}) => signActorAssertion(key, claims(over));

  it("lets a person with the permission and a recent second factor, from any caller", () => {
    for (const caller of ["api", "payinctl"]) {
      expect(vouchedPerson(publicKey, { caller, assertion: person() }, "identity.manage", NOW)).toEqual({ ok: true, claims: claims() });
    }
  });

  it("refuses without the permission, without recent MFA (at its end too), a machine credential, and an assertion another key signed", () => {
    expect(vouchedPerson(publicKey, { caller: "api", assertion: person() }, "provider.manage", NOW)).toEqual({ ok: false, refusal: "lacks_permission" });
    expect(vouchedPerson(publicKey, { caller: "api", assertion: person({ mfaRecentUntil: null }) }, "identity.manage", NOW)).toEqual({ ok: false, refusal: "mfa_not_recent" });
    expect(vouchedPerson(publicKey, { caller: "api", assertion: person({ mfaRecentUntil: NOW }) }, "identity.manage", NOW)).toEqual({ ok: false, refusal: "mfa_not_recent" });
    expect(vouchedPerson(publicKey, { caller: "api", assertion: person({ mfaRecentUntil: NOW + 1 }) }, "identity.manage", NOW).ok).toBe(true);
    expect(vouchedPerson(publicKey, { caller: "api", assertion: person({ kind: "machine_credential" }) }, "identity.manage", NOW)).toEqual({ ok: false, refusal: "not_vouched" });
    expect(vouchedPerson(publicKey, { caller: "api", assertion: signActorAssertion(otherKey, claims()) }, "identity.manage", NOW)).toEqual({ ok: false, refusal: "bad_signature" });
  });

  it("lets only npm start's provisioning, the harness and in-process calls act without a person", () => {
    for (const caller of ["stack", "test", undefined]) expect(vouchedPerson(publicKey, { caller, assertion: "" }, "provider.manage", NOW)).toEqual({ ok: true, claims: null });
    for (const caller of ["api", "payinctl", "checkout", "payins"]) expect(vouchedPerson(publicKey, { caller, assertion: "" }, "provider.manage", NOW)).toEqual({ ok: false, refusal: "not_vouched" });
  });
});

describe("recordedActor", () => {
  const origin = (caller: string | undefined, osUser: string | null) => ({ caller, osUser, requestId: "req_1" });

  it("names the person when one acted, with the operator CLI's OS user beside them", () => {
    expect(recordedActor(origin("api", null), PERSON)).toEqual({ ok: true, actor: { actorKind: "identity", actorUuid: PERSON, actorOsUser: null } });
    expect(recordedActor(origin("payinctl", "ops"), PERSON)).toEqual({ ok: true, actor: { actorKind: "identity", actorUuid: PERSON, actorOsUser: "ops" } });
  });

  it("names the operator CLI without a person, and the system for anyone else", () => {
    expect(recordedActor(origin("payinctl", "ops"), null)).toEqual({ ok: true, actor: { actorKind: "operator_cli", actorUuid: null, actorOsUser: "ops" } });
    for (const caller of ["stack", "test", undefined]) expect(recordedActor(origin(caller, null), null)).toEqual({ ok: true, actor: { actorKind: "system", actorUuid: null, actorOsUser: null } });
    expect(recordedActor(undefined, null)).toEqual({ ok: true, actor: { actorKind: "system", actorUuid: null, actorOsUser: null } });
  });

  it("refuses the operator CLI's missing or malformed OS user, with a person or without", () => {
    for (const osUser of ["", null, "a b", "x".repeat(65)]) {
      expect(recordedActor(origin("payinctl", osUser), null)).toEqual({ ok: false, refusal: "bad_os_user" });
      expect(recordedActor(origin("payinctl", osUser), PERSON)).toEqual({ ok: false, refusal: "bad_os_user" });
    }
    expect(isOperatorOsUser("ops")).toBe(true);
    expect(isOperatorOsUser("o p")).toBe(false);
  });
});
