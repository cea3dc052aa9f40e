import type { DescService } from "@bufbuild/protobuf";
import { createClient, createRouterTransport, type Client, type ConnectRouter } from "@connectrpc/connect";
import { migrate, openOrm, type MikroORM, type ServiceOrmOptions } from "@payin/db";
import { createLogger, type Logger } from "@payin/logging";
import { ConnectError, domainErrorInterceptor, reasonOf, type Code } from "@payin/rpc";
import { expect } from "vitest";
import { createTestDatabase } from "./database.js";

export interface ServiceHarness<S extends DescService> {
  client: Client<S>;
  orm: MikroORM;
  /** URL of the service's fresh database. */
  url: string;
  logger: Logger;
  close(): Promise<void>;
}

/**
 * One service over an in-memory transport, on a fresh database of the run's
 * PostgreSQL with the service's migrations applied, behind the same domain-error
 * interceptor its server uses. `TEST_LOG_LEVEL` shows its logs.
 */
export async function startServiceHarness<S extends DescService>(options: {
  service: S;
  /** Error domain, e.g. "allocation". */
  domain: string;
  ormOptions: (url: string, poolMax?: number) => ServiceOrmOptions;
  routes: (orm: MikroORM, logger: Logger) => (router: ConnectRouter) => void;
  reasonCodes: Record<string, Code>;
  logger?: Logger;
  poolMax?: number;
}): Promise<ServiceHarness<S>> {
  const url = await createTestDatabase(options.domain);
  await migrate(options.ormOptions(url));
  const orm = await openOrm(options.ormOptions(url, options.poolMax ?? 25));
  const logger = options.logger ?? createLogger("test", { level: process.env.TEST_LOG_LEVEL ?? "silent" });
  const transport = createRouterTransport(options.routes(orm, logger), {
    router: { interceptors: [domainErrorInterceptor(options.domain, options.reasonCodes, logger)] },
  });
  return { client: createClient(options.service, transport), orm, url, logger, close: () => orm.close() };
}

/** The ConnectError a call fails with (the test fails if it succeeds). */
export async function failure(promise: Promise<unknown>): Promise<ConnectError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectError);
  return error as ConnectError;
}

/** Asserts a call fails with this status code and reason. */
export async function expectFailure(promise: Promise<unknown>, code: Code, reason: string): Promise<ConnectError> {
  const error = await failure(promise);
  expect({ code: error.code, reason: reasonOf(error) }).toEqual({ code, reason });
  return error;
}
