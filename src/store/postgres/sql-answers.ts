// An answer stored under an idempotency key (D-37), read back from its row. Written buffered with
// the unit's other puts (buffered-writes.ts answersUpsert); read here, before a keyed write runs.
import type { StoredAnswer } from '../store.ts';
import type { Send } from './sql-database.ts';

interface AnswerRow {
  fingerprint: string;
  owner: string | null;
  status: number;
  body: string;
  location: string | null;
  etag: string | null;
  stored_at: string | number;
}

export async function readAnswer(send: Send, key: string): Promise<StoredAnswer | undefined> {
  const [row] = await send<AnswerRow>(
    'SELECT fingerprint, owner, status, body, location, etag, stored_at FROM idempotency_keys WHERE key = $1',
    [key],
  );
  if (!row) return undefined;
  const answer: StoredAnswer = {
    fingerprint: row.fingerprint,
    status: row.status,
    body: row.body,
    storedAt: Number(row.stored_at),
  };
  if (row.owner !== null) answer.owner = row.owner;
  if (row.location !== null) answer.location = row.location;
  if (row.etag !== null) answer.etag = row.etag;
  return answer;
}
