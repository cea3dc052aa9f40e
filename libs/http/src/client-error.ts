import http from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "@payin/logging";
import { REQUEST_ID_HEADER, requestIdFrom } from "@payin/rpc";
import { httpLayerCode, type PublicErrorCode } from "./errors.js";
import { SECURITY_HEADERS } from "./response-headers.js";

interface ClientErrorAnswer {
  status: number;
  code: PublicErrorCode;
  message: string;
}

/**
 * What a request Node's HTTP parser refused is answered with. The status follows
 * Node's own default answers (431 for headers over the limit, 408 for a request
 * not received within `requestTimeout`, 400 otherwise); the code is BAD_REQUEST,
 * the HTTP layer's code (httpLayerCode), or PAYLOAD_TOO_LARGE for 413 as for an
 * oversized body.
 */
export function clientErrorAnswer(error: Error): ClientErrorAnswer {
  switch ((error as NodeJS.ErrnoException).code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, code: httpLayerCode(431), message: "the request headers are too large" };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, code: "PAYLOAD_TOO_LARGE", message: "the request's chunk extensions are too large" };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, code: httpLayerCode(408), message: "the request was not received in time" };
    default:
      return { status: 400, code: "BAD_REQUEST", message: "the request is not well-formed HTTP" };
  }
}

/** The raw HTTP/1.1 answer: the error body, a new request id, and the connection closed. */
export function clientErrorResponse(answer: ClientErrorAnswer, requestId: string): string {
  const body = JSON.stringify({ error: { code: answer.code, message: answer.message, request_id: requestId } });
  return [
    `HTTP/1.1 ${answer.status} ${http.STATUS_CODES[answer.status] ?? "Error"}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    `${REQUEST_ID_HEADER}: ${requestId}`,
    "Cache-Control: no-store",
    ...Object.entries(SECURITY_HEADERS).map(([name, value]) => `${name}: ${value}`),
    "",
    body,
  ].join("\r\n");
}

/**
 * The server's `clientError` listener. A request the HTTP parser refuses (a bad
 * request line, `Content-Length: abc`, headers over the limit) never reaches Koa,
 * so without this Node answers a bare status with no body and no request id. It
 * answers as the error middleware does, `{error:{code,message,request_id}}` with
 * `x-request-id` (a new id: the request's own headers did not parse), then closes
 * the connection. When nothing may be written (the socket is gone, or a response
 * on it has already begun, which the answer would corrupt) it only destroys it.
 */
export function clientErrorHandler(logger?: Logger) {
  return (error: Error, socket: Duplex): void => {
    const code = (error as NodeJS.ErrnoException).code;
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
      // Already answered and closing: let the answer flush, then it is destroyed.
      if (socket.writableEnded && !socket.writableFinished && !socket.destroyed) socket.once("finish", () => socket.destroy());
      else socket.destroy();
      return;
    }
    const requestId = requestIdFrom(undefined);
    const answer = clientErrorAnswer(error);
    logger?.debug({ requestId, code, status: answer.status }, "request refused by the HTTP parser");
    socket.end(clientErrorResponse(answer, requestId), () => socket.destroy());
  };
}
