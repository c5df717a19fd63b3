-- D-58, D-237: the feed's wall follows what each principal sees of the events (seesEvent in
-- src/domain/access.ts): besides the events about itself, every set principal sees the
-- platform's own (a reset, a closer's enrolment), and a closer the postings (`gig.posted`) of
-- the gigs it sees now (gigs' own policy: the open ones and its own), which the subquery reads
-- under that policy.
DROP POLICY events_read ON events;
CREATE POLICY events_read ON events FOR SELECT
  USING (
    current_setting('pipeline.principal', true) IN ('platform', 'operator')
    OR seller_id = current_setting('pipeline.principal', true)
    OR closer_id = current_setting('pipeline.principal', true)
    OR (coalesce(current_setting('pipeline.principal', true), '') <> ''
      AND type IN ('demo.reset', 'closer.enrolled'))
    OR (current_setting('pipeline.principal', true) LIKE 'closer\_%' AND type = 'gig.posted'
      AND EXISTS (SELECT 1 FROM gigs g WHERE g.id = (events.data->'gig'->>'id'))));
