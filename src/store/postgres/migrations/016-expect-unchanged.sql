-- 016: what an optimistic unit of work checks with its write (D-250). A unit of work may
-- read its records without locks (from the instance's cache of them, or outside any
-- transaction), then check, in the message that carries its write, that each row is still the
-- version it read (its xmin). A row that changed raises serialization_failure, which the store
-- answers by rolling back and running the unit again with locks (check-unchanged.ts).
CREATE FUNCTION expect_unchanged(unchanged boolean) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF unchanged IS NOT TRUE THEN
    RAISE EXCEPTION 'a record changed since the unit of work read it' USING ERRCODE = 'serialization_failure';
  END IF;
  RETURN true;
END;
$$;
