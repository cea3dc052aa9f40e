import dgram from "node:dgram";

/**
 * A tiny DNS server for tests (never used by the notifier itself): answers A
 * queries for the names it is given over UDP on 127.0.0.1, NXDOMAIN for
 * other names, and an empty answer for other record types. Lets a test make
 * a real name resolve to a private address through a real resolver
 * (WEBHOOK_DNS_SERVERS / dnsServersLookup).
 */
export interface DnsTestServer {
  /** "127.0.0.1:<port>", as WEBHOOK_DNS_SERVERS takes it. */
  readonly address: string;
  /** Sets (or replaces) the IPv4 addresses of a name. */
  set(name: string, addresses: string[]): void;
  close(): Promise<void>;
}

function readName(message: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = offset;
  for (;;) {
    const length = message[at];
    if (length === undefined) throw new Error("truncated question");
    at += 1;
    if (length === 0) break;
    labels.push(message.subarray(at, at + length).toString("ascii"));
    at += length;
  }
  return { name: labels.join(".").toLowerCase(), end: at };
}

export async function startDnsTestServer(records: Record<string, string[]> = {}): Promise<DnsTestServer> {
  const table = new Map(Object.entries(records).map(([name, addresses]) => [name.toLowerCase(), addresses]));
  const socket = dgram.createSocket("udp4");
  socket.on("message", (query, peer) => {
    try {
      const { name, end } = readName(query, 12);
      const qtype = query.readUInt16BE(end);
      const question = query.subarray(12, end + 4);
      const addresses = table.get(name);
      const answers = addresses && qtype === 1 ? addresses : [];
      const header = Buffer.alloc(12);
      query.copy(header, 0, 0, 2); // id
      header.writeUInt16BE(0x8180 | (addresses ? 0 : 3), 2); // response, recursion desired+available, NOERROR or NXDOMAIN
      header.writeUInt16BE(1, 4);
      header.writeUInt16BE(answers.length, 6);
      const records = answers.map((address) => {
        const record = Buffer.alloc(16);
        record.writeUInt16BE(0xc00c, 0); // the question's name
        record.writeUInt16BE(1, 2); // A
        record.writeUInt16BE(1, 4); // IN
        record.writeUInt32BE(1, 6); // TTL 1 s
        record.writeUInt16BE(4, 10);
        address.split(".").forEach((octet, i) => record.writeUInt8(Number(octet), 12 + i));
        return record;
      });
      socket.send(Buffer.concat([header, question, ...records]), peer.port, peer.address);
    } catch {
      // Not a query this server understands: no answer.
    }
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    set: (name, addresses) => void table.set(name.toLowerCase(), addresses),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
