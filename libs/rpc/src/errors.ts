import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { DomainError } from "@payin/errors";
import { BatchItemErrorSchema, ErrorDetailSchema, type BatchItemError } from "@payin/proto";
import { loggableError, type Logger } from "@payin/logging";

export { Code, ConnectError };

/** Reason given to every failure that no domain rule explains. */
export const INTERNAL_REASON = "INTERNAL";

/**
 * Turns a service's domain errors into ConnectErrors carrying the reason in an
 * ErrorDetail. `codes` maps every reason of the service to a status code; any
 * other error is logged and becomes a bare INTERNAL with a generic message.
 */
export function domainErrorInterceptor<R extends string>(
  domain: string,
  codes: Record<R, Code>,
  logger: Logger,
): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      throw toConnectError(error, domain, codes, logger, req.method.name);
    }
  };
}

/**
 * The failure of one item of a batch call, as the item's own call would have
 * failed: a domain error keeps its reason and code; anything else is logged and
 * becomes a bare INTERNAL, exactly as domainErrorInterceptor does for a call.
 */
export function batchItemError<R extends string>(
  error: unknown,
  domain: string,
  codes: Record<R, Code>,
  logger: Logger,
  method: string,
): BatchItemError {
  const connectError = toConnectError(error, domain, codes, logger, method);
  return create(BatchItemErrorSchema, {
    code: connectError.code,
    message: connectError.rawMessage,
    detail: connectError.findDetails(ErrorDetailSchema)[0],
  });
}

/** How the failures of a batch call's items are reported (see batchItemError). */
export interface BatchErrorContext<R extends string> {
  domain: string;
  codes: Record<R, Code>;
  logger: Logger;
  method: string;
}

/**
 * Runs every item of a batch call at once, each as its own call would run, and
 * answers each, in order, with the `success` case of its result oneof or with
 * the error its own call would have failed with.
 */
export async function settleBatch<T, V, C extends string, R extends string>(
  items: readonly T[],
  run: (item: T) => Promise<V>,
  success: C,
  errors: BatchErrorContext<R>,
): Promise<{ outcome: { case: C; value: V } | { case: "error"; value: BatchItemError } }[]> {
  const outcomes = await Promise.allSettled(items.map(run));
  return outcomes.map((outcome) =>
    outcome.status === "fulfilled"
      ? { outcome: { case: success, value: outcome.value } }
      : { outcome: { case: "error" as const, value: batchItemError(outcome.reason, errors.domain, errors.codes, errors.logger, errors.method) } },
  );
}

/** The ConnectError a batch item's error stands for, as if its own call had failed. */
export function connectErrorOfItem(item: BatchItemError): ConnectError {
  const code = (Code[item.code] === undefined ? Code.Unknown : item.code) as Code;
  return new ConnectError(item.message, code, undefined, item.detail ? [{ desc: ErrorDetailSchema, value: item.detail }] : []);
}

function toConnectError<R extends string>(
  error: unknown,
  domain: string,
  codes: Record<R, Code>,
  logger: Logger,
  method: string,
): ConnectError {
  if (error instanceof DomainError && Object.hasOwn(codes, error.reason)) {
    const retryAfterSeconds = wholeSeconds(error.retryAfterSeconds);
    return new ConnectError(error.message, codes[error.reason as R], undefined, [
      { desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { reason: error.reason, domain, retryAfterSeconds }) },
    ]);
  }
  if (error instanceof ConnectError) {
    // Errors of downstream calls keep their code and details; the message is theirs.
    if (error.code !== Code.Internal && error.code !== Code.Unknown) return error;
  }
  logger.error({ err: loggableError(error), method }, "unexpected error");
  return new ConnectError("internal error", Code.Internal, undefined, [
    { desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { reason: INTERNAL_REASON, domain }) },
  ]);
}

/** The reason carried by a ConnectError, or undefined. */
export function reasonOf(error: ConnectError): string | undefined {
  return error.findDetails(ErrorDetailSchema)[0]?.reason || undefined;
}

/** Seconds (at least 1) until a refused call can succeed, as its service said; undefined when it did not say. */
export function retryAfterOf(error: ConnectError): number | undefined {
  return error.findDetails(ErrorDetailSchema)[0]?.retryAfterSeconds || undefined;
}

/** A whole number of seconds, at least 1, that fits the detail's uint32; 0 (not said) for anything else. */
function wholeSeconds(seconds: number | undefined): number {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return 0;
  return Math.min(Math.max(1, Math.ceil(seconds)), 0xffff_ffff);
}

/** The HTTP status a gateway answers for an RPC status code (docs/architecture.md, "Internal RPC"). */
export function httpStatusForCode(code: Code): number {
  switch (code) {
    case Code.InvalidArgument:
      return 400;
    case Code.Unauthenticated:
      return 401;
    case Code.PermissionDenied:
      return 403;
    case Code.NotFound:
      return 404;
    case Code.AlreadyExists:
    case Code.FailedPrecondition:
    case Code.Aborted:
      return 409;
    case Code.ResourceExhausted:
      return 429;
    case Code.Unavailable:
    case Code.DeadlineExceeded:
      return 503;
    default:
      return 500;
  }
}
