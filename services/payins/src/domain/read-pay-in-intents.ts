import { DomainError } from "@payin/errors";
import { intentNotFound, PAY_IN_STATUSES, type PayInIntent, type PayInStatus } from "./pay-in-intent.js";
import { PayinsReason } from "./reasons.js";
import { isAsset, type Asset } from "@payin/money";
import { isUuid } from "@payin/ids";

export interface ListFilter {
  merchantUuid: string;
  limit: number;
  offset: number;
  status?: PayInStatus;
  asset?: Asset;
}

export interface PayInReader {
  get(merchantUuid: string, intentUuid: string): Promise<PayInIntent | null>;
  /** The intents among these uuids (well-formed, distinct), in any order. */
  getMany(intentUuids: readonly string[]): Promise<PayInIntent[]>;
  list(filter: ListFilter): Promise<{ intents: PayInIntent[]; total: number }>;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** Most lookups in one batch read. */
export const MAX_BATCH_LOOKUPS = 1000;

export interface IntentLookup {
  merchantUuid: string;
  intentUuid: string;
}

/** Reads one intent; another merchant's intent is as missing as a missing one. */
export async function getPayInIntent(reader: PayInReader, merchantUuid: string, intentUuid: string): Promise<PayInIntent> {
  const intent = await reader.get(merchantUuid, intentUuid);
  if (!intent) throw intentNotFound();
  return intent;
}

/**
 * Answers several lookups with one read: for each lookup, in order, its intent,
 * or null when that merchant has no such intent (another merchant's intent and
 * a uuid that is not canonical lower case are as missing as a missing one).
 */
export async function getPayInIntents(reader: PayInReader, lookups: readonly IntentLookup[]): Promise<(PayInIntent | null)[]> {
  if (lookups.length === 0 || lookups.length > MAX_BATCH_LOOKUPS) {
    throw new DomainError(PayinsReason.ValidationError, `a batch read takes 1 to ${MAX_BATCH_LOOKUPS} lookups`);
  }
  const wanted = [...new Set(lookups.filter((l) => isUuid(l.intentUuid) && isUuid(l.merchantUuid)).map((l) => l.intentUuid))];
  const found = new Map((wanted.length ? await reader.getMany(wanted) : []).map((i) => [i.intentUuid, i]));
  return lookups.map((l) => {
    const intent = found.get(l.intentUuid);
    return intent && intent.merchantUuid === l.merchantUuid ? intent : null;
  });
}

/** Checks list parameters and lists the merchant's intents, newest first. */
export async function listPayInIntents(
  reader: PayInReader,
  input: { merchantUuid: string; limit: number; offset: number; status?: string; asset?: string },
): Promise<{ intents: PayInIntent[]; total: number }> {
  const invalid = (message: string) => new DomainError(PayinsReason.ValidationError, message);
  if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > MAX_LIMIT) throw invalid(`limit must be 1 to ${MAX_LIMIT}`);
  if (!Number.isInteger(input.offset) || input.offset < 0) throw invalid("offset must be 0 or more");
  if (input.status !== undefined && !PAY_IN_STATUSES.includes(input.status as PayInStatus)) {
    throw invalid(`status must be one of: ${PAY_IN_STATUSES.join(", ")}`);
  }
  if (input.asset !== undefined && !isAsset(input.asset)) throw invalid("asset must be one of: usdt, usdc");
  return reader.list({
    merchantUuid: input.merchantUuid,
    limit: input.limit,
    offset: input.offset,
    status: input.status as PayInStatus | undefined,
    asset: input.asset as Asset | undefined,
  });
}
