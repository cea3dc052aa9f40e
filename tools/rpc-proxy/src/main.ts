/**
 * The JSON-RPC fault proxy as a process of its own:
 *
 *   node --import tsx tools/rpc-proxy/src/main.ts --upstream http://127.0.0.1:8545 [--port 0]
 *
 * Started by `startRpcProxy` (index.ts), it reports `{ ready: "rpc-proxy", port }` over IPC and
 * exits when its parent goes away (the IPC channel closes), so no proxy outlives a crashed test.
 * Started by hand, it prints the URL it listens on.
 */
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { createProxyServer } from "./proxy-server.js";

const { values } = parseArgs({ options: { upstream: { type: "string" }, port: { type: "string", default: "0" } } });
if (!values.upstream || !/^https?:\/\//.test(values.upstream)) {
  process.stderr.write("usage: rpc-proxy --upstream http(s)://host:port [--port N]\n");
  process.exit(2);
}
const server = createProxyServer({ upstream: values.upstream });
server.keepAliveTimeout = 5_000;
server.listen(Number(values.port), "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  if (process.send) process.send({ ready: "rpc-proxy", port });
  else process.stdout.write(`rpc-proxy on http://127.0.0.1:${port} -> ${values.upstream}\n`);
});
process.on("disconnect", () => process.exit(0));
process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => process.exit(0));
