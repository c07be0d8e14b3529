-- Per-user player keys are derived from this secret (sidecar/state/keys.py); a table made before it gets one
-- on first use, and a rotation of the keys replaces it.
ALTER TABLE tables ADD COLUMN user_secret TEXT;
