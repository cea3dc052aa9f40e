import { expect, it } from "vitest";
import { freePort } from "../src/embedded.js";
import { listenForNotifications } from "../src/notifications.js";

// The listener against a live PostgreSQL (announcements, a cut connection) is
// tested with the merchants schema's triggers in services/merchants.

it("reports a database it cannot reach as lost, keeps trying, and stops for good on close", async () => {
  const port = await freePort();
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
