/** An error the gateway answers as-is: HTTP status, public code, safe message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const badRequest = (code: string, message: string) => new ApiError(400, code, message);
export const forbidden = (message = "the credential may not perform this operation") => new ApiError(403, "FORBIDDEN", message);
