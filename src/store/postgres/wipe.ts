// What a demo reset sends (SqlUnitOfWork.wipe): one script, in the lock order the sequencer keeps.
import { notifyClock } from './sql-clock.ts';

export const WIPE =
  // The feed row first, as the event sequencer takes it (then the outbox and the feed): a
  // reset that truncated first would hold the tables the sequencer waits for while waiting
  // for the row the sequencer holds, and one of the two would die of a deadlock.
  // The sequencer's run takes that row: what was committed before the reset gets its seq
  // first (the background run waits 100 ms after a commit), so the reset's own events come
  // after every seq an earlier event took, as when every commit was moved within milliseconds.
  // wipe_tables() truncates every table of records with RESTART IDENTITY, which restarts the id
  // sequences too (they are owned by the id columns), in this transaction (migration 008); it runs
  // as the tables' owner, since restarting a sequence takes its owner and the service's role may
  // only serve (D-77, migration 020). Sellers and keys stay, and their numbers go on
  // (owned by no table, migration 011); closers' keys go with the closers (D-51). People are kept
  // the same way (migration 022): users, tokens, throttles and the mail outbox stay, but closers'
  // users and their tokens go with the closers.
  `SELECT sequence_events(2147483647);
   SELECT wipe_tables();
   DELETE FROM api_keys WHERE principal LIKE 'closer\\_%';
   WITH gone AS (DELETE FROM users WHERE principal LIKE 'closer\\_%' RETURNING id)
     DELETE FROM one_time_tokens WHERE user_id IN (SELECT id FROM gone);
   UPDATE settings SET clock_offset_ms = 0; UPDATE event_feed SET deals = 0, closers = 0;
   SELECT ${notifyClock('0', true)}`;
