import { hash, timingSafeEqual } from "node:crypto";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";

const HEALTH_SERVICE = "grpc.health.v1.Health";

function digest(value: string): Buffer {
  return hash("sha256", value, "buffer");
}

/**
 * Refuses every call whose `authorization` header is not `Bearer <serviceToken>`,
 * except the standard health check (probes carry no credentials). Comparison is
 * in constant time over SHA-256 digests, so length leaks nothing either.
 */
export function serviceTokenInterceptor(serviceToken: string): Interceptor {
  const expected = digest(`Bearer ${serviceToken}`);
  return (next) => async (req) => {
    if (req.service.typeName !== HEALTH_SERVICE) {
      const presented = req.header.get("authorization") ?? "";
      if (!timingSafeEqual(digest(presented), expected)) {
        throw new ConnectError("missing or invalid service credential", Code.Unauthenticated);
      }
    }
    return next(req);
  };
}
