-- Fairsteward's store, schema version 1.
--
-- Applied when a database is new (PRAGMA user_version = 0). Later changes are
-- numbered migrations in src/store/migrations.rs; never edit this file in a way
-- that an existing database would not get by its migrations.
--
-- Times are UTC, RFC 3339 with a 'Z' (sortable as text). Seats are numbered from 0
-- in the variant's seat order; names such as "white" live in the rules, not here.

CREATE TABLE games (
    id          TEXT PRIMARY KEY,          -- six characters, e.g. 8KQ2ZJ
    variant     TEXT NOT NULL,             -- rules::VariantId name
    options     TEXT NOT NULL,             -- JSON object, option name -> value
    state       TEXT NOT NULL,             -- the variant's state string now
    turn        INTEGER NOT NULL,          -- the turn now owed, from 1
    result      TEXT,                      -- NULL while running; '1-0', '0-1', '1/2-1/2'
    winner      INTEGER,                   -- seat of the winner; NULL for a draw
    end_reason  TEXT,                      -- 'checkmate', 'resignation', ...
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
) STRICT;

CREATE TABLE seats (
    game_id     TEXT NOT NULL REFERENCES games(id),
    seat        INTEGER NOT NULL,
    name        TEXT NOT NULL,             -- the player's name
    email       TEXT NOT NULL,
    public_key  TEXT,                      -- Ed25519, base64, optional
    token_hash  TEXT NOT NULL UNIQUE,      -- SHA-256 of the seat's secret token, hex
    draw_offer  INTEGER NOT NULL DEFAULT 0,-- 1 while this seat offers (or accepts) a draw
    PRIMARY KEY (game_id, seat)
) STRICT;

-- Resolved turns, in order.
CREATE TABLE turns (
    game_id      TEXT NOT NULL REFERENCES games(id),
    turn         INTEGER NOT NULL,
    state_before TEXT NOT NULL,
    state_after  TEXT NOT NULL,
    notes        TEXT NOT NULL,            -- JSON array of remarks for the players
    resolved_at  TEXT NOT NULL,
    PRIMARY KEY (game_id, turn)
) STRICT;

-- Every accepted move: pending until its turn resolves, then its fate.
CREATE TABLE moves (
    game_id     TEXT NOT NULL REFERENCES games(id),
    turn        INTEGER NOT NULL,
    seat        INTEGER NOT NULL,
    receipt     TEXT NOT NULL UNIQUE,      -- the receipt id given to the sender
    entered     TEXT NOT NULL,             -- the move text as sent
    canonical   TEXT NOT NULL,             -- canonical form (UCI for chess games)
    notation    TEXT NOT NULL,             -- SAN, as the rules read it on receipt
    received_at TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending', -- pending | played | first | struck
    reason      TEXT,                      -- why a move was struck
    completes   INTEGER NOT NULL DEFAULT 0,-- 1 for the move that completed its turn
    PRIMARY KEY (game_id, turn, seat)
) STRICT;

-- The transcript: every accepted event of a game, in order, with server time.
CREATE TABLE events (
    game_id TEXT NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL,              -- from 1
    at      TEXT NOT NULL,
    kind    TEXT NOT NULL,                 -- created | moved | resolved | resigned | draw_offered | drawn
    body    TEXT NOT NULL,                 -- JSON; never a pending move
    PRIMARY KEY (game_id, seq)
) STRICT;

-- Raw inbound messages, kept for disputes (the first 64 KiB of each).
CREATE TABLE inbound (
    id          INTEGER PRIMARY KEY,
    received_at TEXT NOT NULL,
    door        TEXT NOT NULL,             -- http | mail
    game_id     TEXT,
    size        INTEGER NOT NULL,          -- the full size in bytes
    body        BLOB NOT NULL,
    outcome     TEXT NOT NULL              -- accepted | refused: <code>
) STRICT;

-- Mails queued in the transaction that caused them; sent (or spooled) afterwards.
CREATE TABLE outbox (
    id          INTEGER PRIMARY KEY,
    message_id  TEXT NOT NULL UNIQUE,      -- stable: a resend is recognisable
    game_id     TEXT NOT NULL,
    recipient   TEXT NOT NULL,
    subject     TEXT NOT NULL,
    message     BLOB NOT NULL,             -- the formatted RFC 5322 message
    created_at  TEXT NOT NULL,
    sent_at     TEXT,                      -- NULL until delivered or spooled
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT
) STRICT;

CREATE INDEX outbox_unsent ON outbox (id) WHERE sent_at IS NULL;
