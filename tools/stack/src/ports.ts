/**
 * The ports `npm start` is about to listen on, checked before anything starts:
 * a port that is taken (or given twice, or not ours to take) stops it with one
 * line naming the variable to change, instead of a process's stack trace.
 */
import net from "node:net";
import { PLATFORM_PROCESSES } from "@payin/launcher";

/** A port one variable sets, and the address it is listened on. */
export interface PortClaim {
  readonly variable: string;
  readonly port: number;
  readonly host: string;
}

/**
 * Every port the platform listens on: each process's `<NAME>_PORT` on HOST,
 * and the embedded PostgreSQL's PG_PORT on 127.0.0.1 when it is set (0 picks
 * a free one) and no DATABASE_URL replaces it.
 */
export function platformPortClaims(config: { HOST: string; PG_PORT: number; DATABASE_URL?: string } & Record<string, unknown>): PortClaim[] {
  const claims: PortClaim[] = PLATFORM_PROCESSES.map((spec) => ({ variable: spec.portVariable, port: Number(config[spec.portVariable]), host: config.HOST }));
  if (!config.DATABASE_URL && config.PG_PORT) claims.push({ variable: "PG_PORT", port: config.PG_PORT, host: "127.0.0.1" });
  return claims;
}

/** Listens on `host:port` and closes again: the error code when that fails, else undefined. */
function tryListen(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen(port, host, () => server.close(() => resolve(undefined)));
  });
}

/** The one line that says why `claim` cannot be listened on. */
function unavailable(claim: PortClaim, code: string): string {
  switch (code) {
    case "EADDRINUSE":
      return `${claim.variable} is ${claim.port}, which is in use`;
    case "EACCES":
      return `${claim.variable} is ${claim.port}, which this user may not listen on`;
    case "EADDRNOTAVAIL":
      return `HOST is ${claim.host}, which is not an address of this machine`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `HOST is ${claim.host}, which does not resolve to an address`;
    default:
      return `${claim.variable} is ${claim.port}, which cannot be listened on at ${claim.host} (${code})`;
  }
}

/** The first of `claims` the platform could not listen on, as one line; undefined when every one is free. */
export async function portProblem(claims: readonly PortClaim[]): Promise<string | undefined> {
  const byPort = new Map<number, string>();
  for (const claim of claims) {
    const other = byPort.get(claim.port);
    if (other) return `${claim.variable} is ${claim.port}, the same as ${other}`;
    byPort.set(claim.port, claim.variable);
  }
  for (const claim of claims) {
    const code = await tryListen(claim.host, claim.port);
    if (code) return unavailable(claim, code);
  }
  return undefined;
}
