/**
 * The one error type a domain throws. It carries a reason from the service's
 * closed set of reasons; the RPC layer maps the reason to a status code through a
 * `Record<Reason, Code>` that the compiler keeps complete. Domains import this
 * and nothing of the transport.
 */
export class DomainError<R extends string = string> extends Error {
  constructor(
    /** Machine reason in UPPER_SNAKE case; becomes the public `error.code`. */
    readonly reason: R,
    /** Human message, safe to show a client: never a secret, SQL or stack. */
    message: string,
    /**
     * For a refusal that lifts by itself (a rate limit): whole seconds, at least 1,
     * until a new attempt can succeed. Travels to the gateway's Retry-After.
     */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

