-- Each table notifies on a channel of its own (verdict_ and the MD5 of its id): a sidecar listens only to the
-- tables it has connections at, and no other sidecar's commit wakes it.
CREATE OR REPLACE FUNCTION verdict_append_many(
    p_table TEXT, p_first BIGINT, p_data BYTEA[], p_sizes INT[], p_requests TEXT[], p_roles TEXT[], p_replies BYTEA[],
    p_requesters TEXT[], p_age DOUBLE PRECISION, p_count INT
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
    UPDATE tables SET head = last WHERE id = p_table;
    RETURN last;
END $$;
