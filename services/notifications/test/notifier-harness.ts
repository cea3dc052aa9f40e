import { randomBytes } from "node:crypto";
import http from "node:http";
import path from "node:path";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import { inject } from "vitest";
import { uuidv7 } from "@payin/ids";
import { killProcess, NOTIFIER, startProcess, stopProcess, type RunningProcess } from "@payin/launcher";
import { newSigningKey, sealSigningKey, secretText } from "../src/domain/secrets.js";

/** A notifier process started on the test's database. */
export interface NotifierProcess {
  readonly process: RunningProcess;
  health(): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export interface NotifierEnv {
  databaseUrl: string;
  sealingKey: Buffer;
  env?: Record<string, string>;
  logName: string;
}

export async function startNotifierProcess(options: NotifierEnv): Promise<NotifierProcess> {
  const running = await startProcess(NOTIFIER, {
    env: {
      DATABASE_URL: options.databaseUrl,
      WEBHOOK_SECRET_KEY: options.sealingKey.toString("base64url"),
      WEBHOOK_ALLOW_INSECURE_URLS: "true",
      NOTIFIER_PORT: "0",
      LOG_LEVEL: "info",
      ...options.env,
    },
    output: path.join(inject("testLogDir"), `${options.logName}.log`),
  });
  return {
    process: running,
    health: async () => (await (await fetch(`http://127.0.0.1:${running.port}/health`)).json()) as Record<string, unknown>,
    stop: () => stopProcess(running),
    kill: () => killProcess(running),
  };
}

/** One request a receiver got, and whether its signature verified with the endpoint's secret. */
export interface Received {
  id: string;
  at: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  verified: boolean;
}

export type Answer = (request: Received, res: http.ServerResponse) => void;

/** A webhook receiver on 127.0.0.1 verifying every request with `standardwebhooks`; `answer` decides the response (default 200). */
export interface Receiver {
  readonly url: string;
  readonly port: number;
  readonly received: Received[];
  answer: Answer;
  /** How many times each webhook-id came. */
  countsById(): Map<string, number>;
  close(): Promise<void>;
}

export async function startReceiver(secret: string, answer: Answer = (_r, res) => res.end("ok")): Promise<Receiver> {
  const received: Received[] = [];
  const receiver = {
    received,
    answer,
    url: "",
    port: 0,
    countsById() {
      const counts = new Map<string, number>();
      for (const r of received) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
      return counts;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let verified = false;
      try {
        new Webhook(secret).verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      const request = { id: String(req.headers["webhook-id"]), at: Date.now(), headers: req.headers, body, verified };
      received.push(request);
      receiver.answer(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = (server.address() as { port: number }).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  return receiver;
}

/** Rows put in with SQL, as the notifications service would (its RPCs are tested on their own). */
export class Rows {
  readonly merchantUuid = uuidv7();
  private constructor(
    private readonly client: pg.Client,
    readonly sealingKey: Buffer,
  ) {}

  static async open(databaseUrl: string, sealingKey: Buffer): Promise<Rows> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query("set search_path to notifications");
    return new Rows(client, sealingKey);
  }

  query<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    return this.client.query<R>(text, values);
  }

  /** An enabled endpoint with a new secret; answers its uuid and the secret as the merchant got it. */
  async endpoint(url: string): Promise<{ endpointUuid: string; secret: string }> {
    const endpointUuid = uuidv7();
    const key = newSigningKey();
    const now = new Date();
    await this.client.query(
      `insert into webhook_endpoints (endpoint_uuid, merchant_uuid, url, secret_sealed, created_at, updated_at) values ($1, $2, $3, $4, $5, $5)`,
      [endpointUuid, this.merchantUuid, url, sealSigningKey(this.sealingKey, endpointUuid, key), now],
    );
    return { endpointUuid, secret: secretText(key) };
  }

  /** `count` events, each with a pending delivery to the endpoint and its job; answers the event uuids (the webhook-ids). */
  async events(endpointUuid: string, count = 1): Promise<{ eventUuids: string[]; deliveryUuids: string[] }> {
    const eventUuids: string[] = [];
    const deliveryUuids: string[] = [];
    for (let i = 0; i < count; i++) {
      const eventUuid = uuidv7();
      const deliveryUuid = uuidv7();
      const now = new Date();
      const data = JSON.stringify({ id: eventUuid, type: "pay_in_intent.created", sequence: i + 1, merchant_uuid: this.merchantUuid });
      await this.client.query(
        // Its place in the merchant's listing after the ones before (what RecordEvents gives a new event).
        `insert into events (event_uuid, merchant_uuid, type, sequence, created_at, recorded_at, data, position)
         values ($1, $2, 'pay_in_intent.created', $3, $4, $4, $5, coalesce((select max(position) from events where merchant_uuid = $2), 0) + 1)`,
        [eventUuid, this.merchantUuid, i + 1, now, data],
      );
      await this.client.query(
        `insert into deliveries (delivery_uuid, event_uuid, endpoint_uuid, merchant_uuid, event_type, status, next_attempt_at, created_at, updated_at)
         values ($1, $2, $3, $4, 'pay_in_intent.created', 'pending', $5, $5, $5)`,
        [deliveryUuid, eventUuid, endpointUuid, this.merchantUuid, now],
      );
      eventUuids.push(eventUuid);
      deliveryUuids.push(deliveryUuid);
    }
    await this.client.query(
      `select graphile_worker.add_job('deliver', json_build_object('delivery_uuid', d::text), job_key := 'delivery:' || d::text) from unnest($1::uuid[]) d`,
      [deliveryUuids],
    );
    return { eventUuids, deliveryUuids };
  }

  async delivery(deliveryUuid: string): Promise<{ status: string; attempt_count: number; round_attempts: number; next_attempt_at: Date | null }> {
    const { rows } = await this.client.query(`select status, attempt_count, round_attempts, next_attempt_at from deliveries where delivery_uuid = $1`, [deliveryUuid]);
    return rows[0];
  }

  async attempts(deliveryUuid: string): Promise<{ attempted_at: Date; status_code: number; duration_ms: number; response_excerpt: string; error: string }[]> {
    const { rows } = await this.client.query(
      `select attempted_at, status_code, duration_ms, response_excerpt, error from delivery_attempts where delivery_uuid = $1 order by attempted_at`,
      [deliveryUuid],
    );
    return rows;
  }

  async endpointRow(endpointUuid: string): Promise<{ enabled: boolean; disabled_reason: string | null; failing_since: Date | null }> {
    const { rows } = await this.client.query(`select enabled, disabled_reason, failing_since from webhook_endpoints where endpoint_uuid = $1`, [endpointUuid]);
    return rows[0];
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

export function newSealingKey(): Buffer {
  return randomBytes(32);
}
