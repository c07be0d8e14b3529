-- The check ids each event holds, indexed (sidecar/state/ledger/check_index.py): an old check is one lookup,
-- not a search through the table's history. What the ledger held before is indexed as this migration runs
-- (sidecar/state/ledger/pg_migrations.py), in its transaction.
-- no event is appended while the events before the index are indexed (an older sidecar's append in flight is
-- waited for; after this commits, the function it calls is gone): none is left out of the index
LOCK TABLE events IN SHARE ROW EXCLUSIVE MODE;
CREATE TABLE check_events (
    table_id TEXT NOT NULL,
    check_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    PRIMARY KEY (table_id, check_id, seq)
);
DROP FUNCTION verdict_append_many(TEXT, BIGINT, BYTEA[], INT[], TEXT[], TEXT[], BYTEA[], TEXT[], DOUBLE PRECISION, INT);
CREATE FUNCTION verdict_append_many(
    p_table TEXT, p_first BIGINT, p_data BYTEA[], p_sizes INT[], p_requests TEXT[], p_roles TEXT[], p_replies BYTEA[],
    p_requesters TEXT[], p_age DOUBLE PRECISION, p_count INT, p_checks TEXT[], p_check_seqs BIGINT[]
) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    cur BIGINT;
    last BIGINT := p_first + cardinality(p_data) - 1;
    at INT := 1;
    first BIGINT;
    n INT;
    msg TEXT;
BEGIN
    SELECT head INTO cur FROM tables WHERE id = p_table FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        SELECT head INTO cur FROM tables WHERE id = p_table;
        IF NOT FOUND THEN
            RETURN NULL;
        END IF;
        RETURN -1 - cur;
    END IF;
    IF cur <> p_first - 1
       OR EXISTS (SELECT 1 FROM requests r WHERE r.table_id = p_table AND r.request_id = ANY (p_requests)
                  AND verdict_in_window(p_table, r.requester, r.seq, r.created, p_age, p_count)) THEN
        RETURN -1 - cur;
    END IF;
    FOR i IN 1 .. cardinality(p_sizes) LOOP
        n := p_sizes[i];
        first := p_first + at - 1;
        INSERT INTO events (table_id, seq, batch, data, created)
            SELECT p_table, first + k - 1, first, p_data[at + k - 1], extract(epoch FROM clock_timestamp())
            FROM generate_series(1, n) AS k;
        IF p_requests[i] IS NOT NULL THEN
            INSERT INTO requests (table_id, request_id, role, reply, seq, requester, created)
                VALUES (p_table, p_requests[i], p_roles[i], p_replies[i], first, p_requesters[i],
                        extract(epoch FROM clock_timestamp()))
                ON CONFLICT (table_id, request_id) DO UPDATE SET role = excluded.role, reply = excluded.reply,
                    seq = excluded.seq, requester = excluded.requester, created = excluded.created;
        END IF;
        msg := p_table || ':' || (first + n - 1) || ':' || first || ':'
            || translate(array_to_string(ARRAY(SELECT encode(p_data[at + k - 1], 'base64')
                                               FROM generate_series(1, n) AS k ORDER BY k), ','), E'\n', '')
            || ':' || coalesce(p_requests[i], '');
        IF octet_length(msg) > 7900 THEN
            msg := p_table || ':' || (first + n - 1);
        END IF;
        PERFORM pg_notify('verdict_' || md5(convert_to(p_table, 'UTF8')), msg);
        at := at + n;
    END LOOP;
    INSERT INTO check_events (table_id, check_id, seq)
        SELECT p_table, c, s FROM unnest(p_checks, p_check_seqs) AS x (c, s) ON CONFLICT DO NOTHING;
    UPDATE tables SET head = last WHERE id = p_table;
    RETURN last;
END $$;
