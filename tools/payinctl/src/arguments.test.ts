import { describe, expect, it } from "vitest";
import { HelpRequested, parseCommand, usage, UsageError } from "./arguments.js";
import { COMMANDS } from "./commands.js";

const UUID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";

/** The usage error `argv` gets (fails the test when it gets none). */
function refusal(...argv: string[]): UsageError {
  try {
    parseCommand(COMMANDS, argv);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`accepted: ${argv.join(" ")}`);
}

function help(...argv: string[]): HelpRequested {
  try {
    parseCommand(COMMANDS, argv);
  } catch (error) {
    if (error instanceof HelpRequested) return error;
    throw error;
  }
  throw new Error(`no help for: ${argv.join(" ")}`);
}

describe("payinctl's commands", () => {
  it("cover what an operator does in an emergency and in onboarding", () => {
    expect(COMMANDS.map((c) => `${c.group} ${c.action}`)).toEqual([
      "session login", "session show", "session logout",
      "merchant create", "merchant list", "merchant get", "merchant activate", "merchant deactivate", "merchant suspend", "merchant close",
      "member attach", "member remove", "member list",
      "rule set", "rule list", "profile set", "policy set", "provider create", "provider list",
      "binding ensure", "connection ensure", "connection rotate-secret",
      "wallet set", "wallet get", "readiness get",
      "credential create", "credential list", "credential rotate", "credential revoke",
      "identity create", "identity list", "identity disable", "identity lock", "identity activate", "identity remove-role", "identity reset-sign-in-failures",
      "audit list", "rail list", "rail resume", "admin bootstrap",
    ]);
  });

  it("need a signed-in person, with the admin API's permission, for every change but break-glass recovery of people", () => {
    expect(Object.fromEntries(COMMANDS.filter((c) => c.person).map((c) => [`${c.group} ${c.action}`, c.person]))).toEqual({
      "merchant create": "merchant.manage",
      "merchant activate": "merchant.manage",
      "merchant deactivate": "merchant.manage",
      "merchant suspend": "merchant.manage",
      "merchant close": "merchant.manage",
      "member attach": "merchant.manage",
      "member remove": "merchant.manage",
      "rule set": "rule.manage",
      "profile set": "policy.manage",
      "policy set": "policy.manage",
      "provider create": "provider.manage",
      "binding ensure": "provider.manage",
      "connection ensure": "provider.manage",
      "connection rotate-secret": "provider.manage",
      "wallet set": "provider.manage",
      "credential create": "credential.manage",
      "credential rotate": "credential.manage",
      "identity create": "identity.create",
    });
  });

  it("list every command with its arguments and options in the help, and a group's in the group's help", () => {
    const all = usage(COMMANDS);
    expect(all).toContain("  merchant list [--status inactive|active|suspended|closed] [--uuid UUID] [--display-name NAME] [--limit N] [--offset N]\n");
    expect(all).toContain("  connection rotate-secret MERCHANT_UUID CONNECTION_UUID --secret-reference SCHEME:PATH\n");
    expect(all).toContain("  identity create --email EMAIL [--role ROLE]... [--out FILE]\n");
    expect(all).toContain("  credential revoke MERCHANT_UUID CREDENTIAL_UUID\n");
    for (const spec of COMMANDS) {
      const line = all.split("\n").find((l) => l.startsWith(`  ${spec.group} ${spec.action} `) || l === `  ${spec.group} ${spec.action}`);
      expect(line, `${spec.group} ${spec.action}`).toBeDefined();
      for (const arg of spec.args ?? []) expect(line).toContain(` ${arg.name}`);
      for (const name of Object.keys(spec.options ?? {})) expect(line).toContain(`--${name}`);
      const group = usage(COMMANDS, spec.group);
      expect(group).toContain(line);
      expect(group.split("\n").filter((l) => /^ {2}\S/.test(l)).every((l) => l.startsWith(`  ${spec.group} `))).toBe(true);
    }
  });

  it("answers help for everything, a group, or a command (its group's)", () => {
    expect(help().group).toBeUndefined();
    expect(help("help").group).toBeUndefined();
    expect(help("--help").group).toBeUndefined();
    expect(help("credential", "--help").group).toBe("credential");
    expect(help("credential", "revoke", "-h").group).toBe("credential");
  });
});

describe("checking a command's input before anything is called", () => {
  it("lower-cases uuids in any letter case and passes values through", () => {
    const { spec, input } = parseCommand(COMMANDS, ["member", "attach", UUID.toUpperCase(), "--identity", UUID.toUpperCase()]);
    expect(`${spec.group} ${spec.action}`).toBe("member attach");
    expect(input.args).toEqual([UUID]);
    expect(input.text("identity")).toBe(UUID);
    const list = parseCommand(COMMANDS, ["identity", "create", "--email", "a@example.com", "--role", "merchant_admin", "--role", "merchant_member", "--out", "f"]);
    expect(list.input.list("role")).toEqual(["merchant_admin", "merchant_member"]);
    const page = parseCommand(COMMANDS, ["merchant", "list", "--limit", "100", "--offset", "4294967295"]).input;
    expect([page.number("limit", 20), page.number("offset", 0)]).toEqual([100, 4294967295]);
  });

  it.each([
    [["merchant", "get", "nope"], 'merchant uuid must be a uuid, got "nope"'],
    [["merchant", "activate", `${UUID}0`], `merchant uuid must be a uuid, got "${UUID}0"`],
    [["credential", "revoke", UUID, "x"], 'credential uuid must be a uuid, got "x"'],
    [["connection", "rotate-secret", "m", UUID, "--secret-reference", "env:X"], 'merchant uuid must be a uuid, got "m"'],
    [["member", "attach", UUID, "--identity", "someone"], '--identity must be a uuid, got "someone"'],
    [["binding", "ensure", UUID, "--provider", "evm-rpc", "--capability", "crypto.payin", "--jurisdiction", "DE"], '--provider must be a uuid, got "evm-rpc"'],
    [["merchant", "list", "--uuid", "1"], '--uuid must be a uuid, got "1"'],
    [["audit", "list", "--target-uuid", "t"], '--target-uuid must be a uuid, got "t"'],
    [["identity", "lock", "ops@example.com"], 'identity uuid must be a uuid, got "ops@example.com"'],
  ])("refuses a malformed uuid: %j", (argv, message) => {
    expect(refusal(...argv).message).toBe(message);
  });

  it.each([
    [["merchant", "get"], "expected exactly one merchant uuid"],
    [["merchant", "get", UUID, UUID], "expected exactly one merchant uuid"],
    [["credential", "revoke", UUID], "expected merchant uuid and credential uuid"],
    [["merchant", "create", "x", "--display-name", "X"], "merchant create takes no positional arguments"],
    [["merchant", "create"], "--display-name is required"],
    [["wallet", "set", UUID], "--xpub is required"],
    [["merchant", "list", "--limit", "0"], '--limit must be a whole number from 1 to 100, got "0"'],
    [["identity", "list", "--limit", "101"], '--limit must be a whole number from 1 to 100, got "101"'],
    [["audit", "list", "--offset=-1"], '--offset must be a whole number from 0 to 4294967295, got "-1"'],
    [["audit", "list", "--offset", "-1"], "Option '--offset' argument is ambiguous."],
    [["audit", "list", "--offset", "4294967296"], '--offset must be a whole number from 0 to 4294967295, got "4294967296"'],
    [["merchant", "list", "--status", "open"], '--status must be one of: inactive, active, suspended, closed; got "open"'],
    [["audit", "list", "--outcome", "ok"], '--outcome must be one of: succeeded, failed; got "ok"'],
  ])("refuses %j", (argv, message) => {
    expect(refusal(...argv).message).toContain(message);
  });

  it("refuses unknown commands and options, naming the group whose usage follows", () => {
    expect(refusal("merchants", "list")).toMatchObject({ message: "unknown command: merchants", group: undefined });
    expect(refusal("merchant", "delete", UUID)).toMatchObject({ message: "unknown command: merchant delete", group: "merchant" });
    expect(refusal("merchant")).toMatchObject({ message: "merchant needs a command", group: "merchant" });
    const unknownOption = refusal("merchant", "get", UUID, "--xpub", "x");
    expect(unknownOption.group).toBe("merchant");
    expect(unknownOption.message).toMatch(/--xpub/);
  });
});
