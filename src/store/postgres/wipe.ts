// What a demo reset sends (SqlUnitOfWork.wipe): one script, in the lock order the sequencer keeps.
import { notifyClock } from './sql-clock.ts';
import { WEBHOOK_TABLES } from './sql-webhooks.ts';

export const WIPE =
  // The feed row first, as the event sequencer takes it (then the outbox and the feed): a
  // reset that truncated first would hold the tables the sequencer waits for while waiting
  // for the row the sequencer holds, and one of the two would die of a deadlock.
  // RESTART IDENTITY restarts the id sequences too (they are owned by the id columns), in
  // this transaction (migration 008). Sellers and keys stay, and their numbers go on
  // (owned by no table, migration 011); closers' keys go with the closers (D-51).
  `SELECT last_seq FROM event_feed FOR UPDATE;
   TRUNCATE deals, gigs, closers, payouts, idempotency_keys, event_outbox, events, ${WEBHOOK_TABLES},
     refused_proposals, proposal_counts RESTART IDENTITY;
   DELETE FROM api_keys WHERE principal LIKE 'closer\\_%';
   UPDATE settings SET clock_offset_ms = 0; UPDATE event_feed SET deals = 0, closers = 0;
   SELECT ${notifyClock('0', true)}`;
