/**
 * Headers every gateway answer carries, the HTTP parser's refusals included
 * (see client-error.ts). The API serves JSON only, never a document: a response
 * opened in a browser may load nothing, run nothing and be framed by no one,
 * and no address of ours is sent on as a Referer.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
};
