import { DomainError } from "@payin/errors";

/**
 * The reason and message of the DomainError `promise` rejects with; throws when
 * it resolves or rejects with anything else. Pure: no database or platform.
 */
export async function refusal(promise: Promise<unknown>): Promise<{ reason: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return { reason: error.reason, message: error.message };
    throw error;
  }
  throw new Error("expected a refusal");
}
