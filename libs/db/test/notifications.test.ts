import net from "node:net";
import { expect, it } from "vitest";
import { listenForNotifications } from "../src/notifications.js";

// The listener against a live PostgreSQL (announcements, a cut connection) is
// tested with the merchants schema's triggers in services/merchants.

/** A port nothing listens on (it was free a moment ago). */
function unusedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

it("reports a database it cannot reach as lost, keeps trying, and stops for good on close", async () => {
  const port = await unusedPort();
  const events: string[] = [];
  const listener = listenForNotifications({
    url: `postgres://payin@127.0.0.1:${port}/nothing`,
    channel: "some_channel",
    retryMs: 20,
    onNotification: () => events.push("notification"),
    onListening: () => events.push("listening"),
    onLost: (error) => events.push(`lost: ${error.message}`),
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await listener.close();
  const seen = events.length;
  expect(seen).toBeGreaterThanOrEqual(3);
  expect(new Set(events)).toEqual(new Set([`lost: connect ECONNREFUSED 127.0.0.1:${port}`]));
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(events).toHaveLength(seen);
});

it("refuses a channel name that is not a plain identifier (it is written into LISTEN)", () => {
  const handlers = { onNotification() {}, onListening() {}, onLost() {} };
  expect(() => listenForNotifications({ url: "postgres://127.0.0.1/x", channel: "a; drop table x", ...handlers })).toThrow(/not a channel name/);
  expect(() => listenForNotifications({ url: "postgres://127.0.0.1/x", channel: "Upper", ...handlers })).toThrow(/not a channel name/);
});

it("gives up on a server that accepts and never answers: reported lost, tried again, and close() does not wait for it", async () => {
  const silent = net.createServer(() => {});
  const sockets: net.Socket[] = [];
  silent.on("connection", (socket) => sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const port = (silent.address() as net.AddressInfo).port;
  const events: string[] = [];
  const listener = listenForNotifications({
    url: `postgres://payin@127.0.0.1:${port}/nothing`,
    channel: "some_channel",
    retryMs: 20,
    dropAfterMs: 200,
    onNotification: () => events.push("notification"),
    onListening: () => events.push("listening"),
    onLost: (_error, first) => events.push(first ? "lost (first)" : "lost"),
  });
  try {
    const started = Date.now();
    while (events.length < 2 && Date.now() - started < 5_000) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events.slice(0, 2)).toEqual(["lost (first)", "lost"]);
    expect(await listener.sync()).toBe(false);
    const closing = Date.now();
    await listener.close();
    expect(Date.now() - closing).toBeLessThan(500);
  } finally {
    await listener.close();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});
