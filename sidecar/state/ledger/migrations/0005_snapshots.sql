-- A snapshot of each table's state (derived data: deleted at will, rebuilt from the events).
CREATE TABLE snapshots (
    table_id TEXT PRIMARY KEY REFERENCES tables (id),
    seq BIGINT NOT NULL,
    version TEXT NOT NULL,
    data BYTEA NOT NULL,
    created DOUBLE PRECISION NOT NULL
);
