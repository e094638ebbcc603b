-- The event log: the truth of every game and campaign. Rows in `events` are
-- appended, never changed; state is the replay of a session's events.

CREATE TABLE IF NOT EXISTS sessions (
    session_id  TEXT PRIMARY KEY,
    kind        TEXT NOT NULL DEFAULT 'game' CHECK (kind IN ('game', 'campaign')),
    game        TEXT NOT NULL,
    setup       TEXT NOT NULL,        -- JSON: players, options, whatever the start needs
    parent_id   TEXT REFERENCES sessions (session_id),   -- the campaign a game belongs to
    title       TEXT NOT NULL DEFAULT '',
    created     REAL NOT NULL,
    crc         INTEGER               -- CRC-32 of the row (companion.eventlog): a flipped byte is found at start
);

CREATE TABLE IF NOT EXISTS events (
    event_id    TEXT PRIMARY KEY,     -- chosen by the sender, so a retried append is a no-op
    session_id  TEXT NOT NULL REFERENCES sessions (session_id),
    seq         INTEGER NOT NULL,     -- 1, 2, 3 ... within the session, without gaps
    time        REAL NOT NULL,        -- seconds since the epoch
    source      TEXT NOT NULL CHECK (source IN ('camera', 'button', 'dashboard', 'cli', 'system')),
    kind        TEXT NOT NULL,        -- move, undo, redo, correct, alert, resolve, note, ...
    text        TEXT NOT NULL,        -- the move in its text form, or a sentence
    payload     TEXT NOT NULL DEFAULT '{}',   -- JSON
    crc         INTEGER,              -- CRC-32 of the row; NULL in rows written before schema version 2
    UNIQUE (session_id, seq)
);

CREATE INDEX IF NOT EXISTS sessions_by_parent ON sessions (parent_id);

CREATE TRIGGER IF NOT EXISTS events_are_never_changed BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only: events are never changed');
END;

CREATE TRIGGER IF NOT EXISTS events_are_never_deleted BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only: events are never deleted');
END;

-- Preferences of this table (which session is in play), not game facts.
CREATE TABLE IF NOT EXISTS settings (
    key         TEXT PRIMARY KEY,
    value       TEXT NOT NULL
);
