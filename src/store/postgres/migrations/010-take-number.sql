-- 010: a number taken in one statement. Taking one locks its table first (ROW EXCLUSIVE, the
-- order the demo reset's TRUNCATE … RESTART IDENTITY locks in, migration 008), then calls
-- nextval: two statements before, one now, which is one statement less in every creating unit
-- of work. Static SQL, so PL/pgSQL keeps its plans.
CREATE FUNCTION take_number(kind text) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  CASE kind
    WHEN 'deal' THEN
      LOCK TABLE deals IN ROW EXCLUSIVE MODE;
      RETURN nextval('deal_numbers');
    WHEN 'gig' THEN
      LOCK TABLE gigs IN ROW EXCLUSIVE MODE;
      RETURN nextval('gig_numbers');
    WHEN 'closer' THEN
      LOCK TABLE closers IN ROW EXCLUSIVE MODE;
      RETURN nextval('closer_numbers');
    WHEN 'webhook' THEN
      LOCK TABLE webhooks IN ROW EXCLUSIVE MODE;
      RETURN nextval('webhook_numbers');
  END CASE;
END
$$;
