-- 002: stage-filtered pages of deals in id order (StoreReader.listDeals) read an index, not
-- the table: a page costs the same at a hundred deals or a million.
CREATE INDEX deals_stage_id_order ON deals (stage, length(id), id);
CREATE INDEX deals_id_order ON deals (length(id), id);
