-- The tables, their events and the requests answered; verdict_append appends one action, all or none.
CREATE TABLE tables (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    gm_hash TEXT NOT NULL,
    player_hash TEXT NOT NULL,
    observer_hash TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    head BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE events (
    table_id TEXT NOT NULL REFERENCES tables (id),
    seq BIGINT NOT NULL,
    batch BIGINT NOT NULL,
    data BYTEA NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE requests (
    table_id TEXT NOT NULL REFERENCES tables (id),
    request_id TEXT NOT NULL,
    role TEXT NOT NULL,
    reply BYTEA NOT NULL,
    seq BIGINT NOT NULL,
    PRIMARY KEY (table_id, request_id)
);
CREATE INDEX requests_by_seq ON requests (table_id, seq);
CREATE FUNCTION verdict_append(
    p_table TEXT, p_first BIGINT, p_data BYTEA[], p_request TEXT, p_role TEXT, p_reply BYTEA
) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    cur BIGINT;
    last BIGINT := p_first + cardinality(p_data) - 1;
    msg TEXT;
BEGIN
    -- The row lock orders every append to this table, from every sidecar. An append never waits for
    -- it: a table locked by another sidecar's turn or batch is refused at once (the caller takes a
    -- turn), so a batch of appends to many tables is never held up by one busy table.
    SELECT head INTO cur FROM tables WHERE id = p_table FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        SELECT head INTO cur FROM tables WHERE id = p_table;
        IF NOT FOUND THEN
            RETURN NULL;  -- no such table (an answer, not an error: the other appends of a batch go on)
        END IF;
        RETURN -1 - cur;
    END IF;
    IF p_request IS NOT NULL
       AND EXISTS (SELECT 1 FROM requests WHERE table_id = p_table AND request_id = p_request) THEN
        RETURN -1 - cur;  -- this request id is taken: the caller answers from the stored reply
    END IF;
    IF cur <> p_first - 1 THEN
        RETURN -1 - cur;  -- another sidecar appended first: the caller catches up and prepares again
    END IF;
    INSERT INTO events (table_id, seq, batch, data, created)
        SELECT p_table, p_first + n - 1, p_first, d, extract(epoch FROM clock_timestamp())
        FROM unnest(p_data) WITH ORDINALITY AS u (d, n);
    IF p_request IS NOT NULL THEN
        INSERT INTO requests (table_id, request_id, role, reply, seq)
            VALUES (p_table, p_request, p_role, p_reply, p_first);
    END IF;
    UPDATE tables SET head = last WHERE id = p_table;
    -- Delivered when the transaction commits, in commit order. The events ride along when they fit
    -- (listeners then need no read); else only the head, and listeners read what they miss.
    msg := p_table || ':' || last || ':' || p_first || ':'
        || translate(array_to_string(ARRAY(SELECT encode(d, 'base64') FROM unnest(p_data) AS u (d)), ','), E'\n', '')
        || ':' || coalesce(p_request, '');
    IF octet_length(msg) > 7900 THEN
        msg := p_table || ':' || last;
    END IF;
    PERFORM pg_notify('verdict', msg);
    RETURN last;
END $$;
