/** The OpenAPI 3.1 document of the gateway (filled in with the routes). */
export function openApiDocument(): Record<string, unknown> {
  return { openapi: "3.1.0", info: { title: "Payin platform API", version: "0.8.0" }, paths: {} };
}
