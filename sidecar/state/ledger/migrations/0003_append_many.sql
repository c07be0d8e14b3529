-- A turn's actions of one table in one call, all or none: the refusal is decided before anything is inserted,
-- so nothing (not a notification) of a refused turn leaves the transaction.
CREATE FUNCTION verdict_append_many(
    p_table TEXT, p_first BIGINT, p_data BYTEA[], p_sizes INT[], p_requests TEXT[], p_roles TEXT[], p_replies BYTEA[]
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
       OR EXISTS (SELECT 1 FROM requests WHERE table_id = p_table AND request_id = ANY (p_requests)) THEN
        RETURN -1 - cur;
    END IF;
    FOR i IN 1 .. cardinality(p_sizes) LOOP
        n := p_sizes[i];
        first := p_first + at - 1;
        INSERT INTO events (table_id, seq, batch, data, created)
            SELECT p_table, first + k - 1, first, p_data[at + k - 1], extract(epoch FROM clock_timestamp())
            FROM generate_series(1, n) AS k;
        IF p_requests[i] IS NOT NULL THEN
            INSERT INTO requests (table_id, request_id, role, reply, seq)
                VALUES (p_table, p_requests[i], p_roles[i], p_replies[i], first);
        END IF;
        msg := p_table || ':' || (first + n - 1) || ':' || first || ':'
            || translate(array_to_string(ARRAY(SELECT encode(p_data[at + k - 1], 'base64')
                                               FROM generate_series(1, n) AS k ORDER BY k), ','), E'\n', '')
            || ':' || coalesce(p_requests[i], '');
        IF octet_length(msg) > 7900 THEN
            msg := p_table || ':' || (first + n - 1);
        END IF;
        PERFORM pg_notify('verdict', msg);
        at := at + n;
    END LOOP;
    UPDATE tables SET head = last WHERE id = p_table;
    RETURN last;
END $$;
