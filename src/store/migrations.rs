//! Schema versions: `schema.sql` is version 1; each later version is one entry of
//! [`MIGRATIONS`], applied in order inside one transaction with the version bump.

use std::path::Path;

use rusqlite::Connection;

use super::StoreError;

/// The whole schema of a new database (version 1).
const SCHEMA: &str = include_str!("../../schema.sql");

/// Migrations from version 1 on: entry `i` takes a database from version `i + 1`
/// to `i + 2`.
const MIGRATIONS: &[&str] = &[
    // 2: trust. Per-game authentication and secrecy; the transcript's hash chain
    // and the steward's signed heads; commitments; pending moves held sealed to
    // the steward's own key, with the envelope they came in.
    "ALTER TABLE games ADD COLUMN auth TEXT NOT NULL DEFAULT 'token';
     ALTER TABLE games ADD COLUMN secrecy TEXT NOT NULL DEFAULT 'hold';
     ALTER TABLE events ADD COLUMN prev_hash TEXT NOT NULL DEFAULT '';
     ALTER TABLE events ADD COLUMN hash TEXT NOT NULL DEFAULT '';
     ALTER TABLE events ADD COLUMN signature TEXT;
     ALTER TABLE moves ADD COLUMN held BLOB;
     ALTER TABLE moves ADD COLUMN envelope TEXT;
     ALTER TABLE moves ADD COLUMN nonce TEXT;
     CREATE TABLE commitments (
         game_id     TEXT NOT NULL REFERENCES games(id),
         turn        INTEGER NOT NULL,
         seat        INTEGER NOT NULL,
         commitment  TEXT NOT NULL,
         receipt     TEXT NOT NULL UNIQUE,
         received_at TEXT NOT NULL,
         envelope    TEXT,
         PRIMARY KEY (game_id, turn, seat)
     ) STRICT;",
    // 3: mail handled by the mail door, by Message-ID (or body hash), so a mail
    // delivered twice is acted on once.
    "CREATE TABLE mail_seen (
         key     TEXT PRIMARY KEY,
         seen_at TEXT NOT NULL,
         outcome TEXT NOT NULL
     ) STRICT;",
    // 4: clocks (src/store/clock.rs). A game's time control; each seat's clock
    // (moves counted, time charged, the bank for the move owed, since when it
    // runs); seats' time zones (display only); reminders and grace notices sent,
    // at most one per seat, turn, stage and point; players' leave, keyed by the
    // mail address in lower case.
    "CREATE TABLE game_clocks (
         game_id     TEXT PRIMARY KEY REFERENCES games(id),
         spec        TEXT NOT NULL               -- JSON, clock::ClockSpec::to_json
     ) STRICT;
     CREATE TABLE seat_clocks (
         game_id      TEXT NOT NULL REFERENCES games(id),
         seat         INTEGER NOT NULL,
         moves        INTEGER NOT NULL DEFAULT 0,-- moves counted (period control)
         used_ms      INTEGER NOT NULL DEFAULT 0,-- reflection time charged on finished moves
         bank_ms      INTEGER NOT NULL,          -- time for the move owed, as at its announcement
         announced_at TEXT,                      -- the clock runs since; NULL: it stands
         turn         INTEGER NOT NULL DEFAULT 0,-- the turn announced
         stage        INTEGER NOT NULL DEFAULT 0,-- 0 move or commitment, 1 reveal
         flagged_at   TEXT,                      -- timed out in a game that went on
         PRIMARY KEY (game_id, seat)
     ) STRICT;
     ALTER TABLE seats ADD COLUMN time_zone TEXT;
     CREATE INDEX seats_email ON seats (lower(email));
     CREATE TABLE reminders_sent (
         game_id  TEXT NOT NULL REFERENCES games(id),
         seat     INTEGER NOT NULL,
         turn     INTEGER NOT NULL,
         stage    INTEGER NOT NULL,
         hours    INTEGER NOT NULL,              -- the reminder point, hours before the deadline
         sent_at  TEXT NOT NULL,
         PRIMARY KEY (game_id, seat, turn, stage, hours)
     ) STRICT;
     CREATE TABLE grace_notices (
         game_id  TEXT NOT NULL REFERENCES games(id),
         seat     INTEGER NOT NULL,
         turn     INTEGER NOT NULL,
         stage    INTEGER NOT NULL,
         sent_at  TEXT NOT NULL,
         PRIMARY KEY (game_id, seat, turn, stage)
     ) STRICT;
     CREATE TABLE leaves (
         id          INTEGER PRIMARY KEY,
         player      TEXT NOT NULL,              -- mail address, lower case
         from_date   TEXT NOT NULL,              -- YYYY-MM-DD, included
         to_date     TEXT NOT NULL,              -- YYYY-MM-DD, included
         starts_at   TEXT NOT NULL,              -- the clocks stop (UTC)
         ends_at     TEXT NOT NULL,              -- and run again
         days        TEXT NOT NULL,              -- JSON array of the days it took from the allowance
         declared_at TEXT NOT NULL
     ) STRICT;
     CREATE INDEX leaves_player ON leaves (player);",
    // 5: mail senders (src/store/senders.rs). The other addresses a player
    // confirmed, keyed by the registered address in lower case: a mail from one
    // of them may act for every seat registered at that address. Requests for an
    // alias or a change of a seat's address, waiting for the reply to the
    // confirmation mail sent to the new address; the id is in that mail's reply
    // address, so it is never reused.
    "CREATE TABLE aliases (
         player       TEXT NOT NULL,              -- the registered address, lower case
         alias        TEXT NOT NULL,              -- another address of the player, lower case
         confirmed_at TEXT NOT NULL,
         PRIMARY KEY (player, alias)
     ) STRICT;
     CREATE TABLE address_requests (
         id           INTEGER PRIMARY KEY AUTOINCREMENT,
         kind         TEXT NOT NULL,              -- 'alias' or 'email'
         game_id      TEXT NOT NULL REFERENCES games(id),
         seat         INTEGER NOT NULL,           -- the seat it was asked for
         player       TEXT NOT NULL,              -- the seat's address then, lower case
         address      TEXT NOT NULL,              -- the new address, as given
         requested_at TEXT NOT NULL,
         confirmed_at TEXT                        -- NULL until the reply came
     ) STRICT;
     CREATE INDEX address_requests_seat ON address_requests (game_id, seat, requested_at);",
    // 6: nothing pending in clear at rest (issue 11 point 3). Raw inbound
    // messages and answers that may name a pending move are kept sealed to the
    // steward's own key (protocol::seal_record); 1 marks such a row. Rows from
    // before stay as they were (clear).
    "ALTER TABLE inbound ADD COLUMN sealed INTEGER NOT NULL DEFAULT 0;
     ALTER TABLE outbox ADD COLUMN sealed INTEGER NOT NULL DEFAULT 0;",
    // 7: board pictures off the store thread (issue 13 point 1; src/store/pictures.rs),
    // and indexes for the outbox lookups a mail's handling makes.
    // A board mail's row holds its message without the PNG and names its picture
    // by content key; the picture is kept once, however many mails carry it: its
    // source until the outbox drainer has drawn it, then the PNG every resend uses.
    "CREATE TABLE pictures (
         key        TEXT PRIMARY KEY,           -- hex SHA-256 over source
         source     TEXT,                       -- render::source::PictureSource as JSON; NULL once drawn
         png        BLOB,                       -- NULL until drawn
         failed     TEXT,                       -- why it could not be drawn (png is then a stand-in)
         created_at TEXT NOT NULL
     ) STRICT;
     ALTER TABLE outbox ADD COLUMN picture TEXT;  -- pictures.key, or NULL
     CREATE INDEX outbox_picture ON outbox (picture) WHERE picture IS NOT NULL AND sent_at IS NULL;
     -- What a mail's handling asks of the outbox (a game's latest board mail to a
     -- seat, the answers sent to an address lately) without reading it whole.
     CREATE INDEX outbox_game ON outbox (game_id, id);
     CREATE INDEX outbox_recipient ON outbox (recipient COLLATE NOCASE, created_at);",
    // 8: web pages for players (issue 17). A game's delay, in resolved turns,
    // before spectators (anyone without a seat's credential) see its moves.
    "ALTER TABLE games ADD COLUMN spectator_delay INTEGER NOT NULL DEFAULT 0;",
    // 9: board mails queued as what to say (issue 13 point 1): the row's letter
    // (letters::compose::Letter as JSON) and an empty message. (At first the
    // outbox drainer stored the bytes it formatted before the first handover;
    // since migration 10's version it formats the letter for every handover,
    // to the same bytes, and the letter stays until the mail is sent.)
    "ALTER TABLE outbox ADD COLUMN letter TEXT;",
    // 10: fewer b-trees per queued mail (issue 13): each was a page written at
    // a random place per mail. A game's mails are found through the Message-ID's
    // own index (every Message-ID of a game begins with its id and a dot), and
    // the count of answers sent to an address lately indexes the answers only.
    "DROP INDEX outbox_game;
     DROP INDEX outbox_recipient;
     CREATE INDEX outbox_answers ON outbox (recipient COLLATE NOCASE, created_at) WHERE message_id LIKE '%.answer-%';",
    // 11: bounded doors (issue 29). Leaves are read by the window a question
    // needs (the clocks: those not yet over; the allowance: the years asked
    // for), never a player's whole history. Every action that makes mail or
    // transcript entries is counted per whoever spends it (src/store/rates.rs);
    // the answers' quota is one of them, so the outbox no longer indexes answers.
    "DROP INDEX leaves_player;
     CREATE INDEX leaves_player_end ON leaves (player, ends_at);
     DROP INDEX outbox_answers;
     CREATE TABLE rate_events (
         key TEXT NOT NULL,                     -- whose quota, e.g. 'leave|alice@example.org'
         at  TEXT NOT NULL                      -- when it was spent (UTC)
     ) STRICT;
     CREATE INDEX rate_events_key ON rate_events (key, at);",
    // 12: the organiser's desk (issue 31). Tournaments and their players; the
    // games a tournament plans (a game id once the game exists: round by round,
    // later rounds wait); directors, each acting for one tournament only, their
    // tokens kept hashed; invitations to a seat of a game or a tournament.
    "CREATE TABLE tournaments (
         id         TEXT PRIMARY KEY,          -- TournamentId
         name       TEXT NOT NULL,
         variant    TEXT NOT NULL,
         spec       TEXT NOT NULL,             -- JSON: options, clock, leave, delay, trust, double, rounds
         status     TEXT NOT NULL,             -- 'inviting' | 'running' | 'finished'
         ends_at    TEXT,                      -- the end date (UTC): unfinished games are adjudicated then
         created_at TEXT NOT NULL
     ) STRICT;
     CREATE TABLE tournament_players (
         tournament   TEXT NOT NULL REFERENCES tournaments (id),
         player       INTEGER NOT NULL,        -- 0.. in the order given
         name         TEXT NOT NULL,
         email        TEXT NOT NULL,
         public_key   TEXT,
         withdrawn_at TEXT,
         PRIMARY KEY (tournament, player)
     ) STRICT;
     CREATE TABLE tournament_games (
         tournament TEXT NOT NULL REFERENCES tournaments (id),
         slot       INTEGER NOT NULL,          -- 0.. in pairing order
         round      INTEGER NOT NULL,          -- 1..
         players    TEXT NOT NULL,             -- JSON array: the player index in each seat
         game       TEXT UNIQUE REFERENCES games (id),
         cancelled  INTEGER NOT NULL DEFAULT 0, -- 1: left out of the standings (a withdrawal)
         PRIMARY KEY (tournament, slot)
     ) STRICT;
     CREATE INDEX tournament_games_game ON tournament_games (game);
     CREATE TABLE directors (
         token_hash TEXT PRIMARY KEY,
         tournament TEXT NOT NULL REFERENCES tournaments (id),
         name       TEXT NOT NULL,
         created_at TEXT NOT NULL
     ) STRICT;
     CREATE TABLE invitations (
         token_hash TEXT PRIMARY KEY,
         tournament TEXT REFERENCES tournaments (id),
         game_spec  TEXT,                      -- JSON of a game to create, for a game with invited seats
         player     INTEGER NOT NULL,          -- the tournament's player, or the game's seat index
         email      TEXT NOT NULL,
         answer     TEXT NOT NULL DEFAULT 'pending', -- 'pending' | 'accepted' | 'declined'
         answered_at TEXT,
         created_at TEXT NOT NULL
     ) STRICT;",
    // 13 (issue 31, slice D: invitations): a game to create once its invited
    // players accept (its spec as the organiser sent it, without the seats'
    // answers); each invitation names its invited game, the name and key the
    // invitee gave on accepting, and whether a replacement closed it.
    "CREATE TABLE invited_games (
         id         TEXT PRIMARY KEY,          -- 'I' + 6 Crockford characters
         spec       TEXT NOT NULL,             -- JSON: the NewGame, seats as invited
         status     TEXT NOT NULL,             -- 'inviting' | 'starting' | 'creating' | 'started'
         game       TEXT REFERENCES games (id),
         created_at TEXT NOT NULL
     ) STRICT;
     ALTER TABLE invitations ADD COLUMN invited_game TEXT REFERENCES invited_games (id);
     ALTER TABLE invitations ADD COLUMN name TEXT;
     ALTER TABLE invitations ADD COLUMN public_key TEXT;
     ALTER TABLE invitations ADD COLUMN closed_at TEXT;
     CREATE INDEX invitations_tournament ON invitations (tournament, player);
     CREATE INDEX invitations_invited_game ON invitations (invited_game, player);",
    // 14 (issue 32, slice C: conditional moves): a seat's conditional lines,
    // sealed at rest as a pending move is (never in clear), the turn whose
    // moves of the others their first conditions answer, and the sealed
    // paragraph its next board mail carries (which line fired, how many were
    // dropped).
    "CREATE TABLE conditional_lines (
         game_id    TEXT NOT NULL REFERENCES games (id),
         seat       INTEGER NOT NULL,
         from_turn  INTEGER NOT NULL,          -- the first turn whose moves the first conditions answer
         held       BLOB,                      -- the lines, sealed (JSON inside); NULL when none are kept
         notice     BLOB,                      -- for the next board mail, sealed; NULL when none
         updated_at TEXT NOT NULL,
         PRIMARY KEY (game_id, seat)
     ) STRICT;",
    // ---- 15 (issue 32, slice M: mail as the player wants it) ----
    // A player's mail setting, keyed by the registered address in lower case
    // (like `aliases`); no row: every board mail, picture attached. The digests
    // sent, one per player per day (the day at the player's digest hour, in
    // the player's time zone if a seat of theirs has one), so a restart or a
    // second sweep never sends a second one.
    "CREATE TABLE mail_settings (
         player      TEXT PRIMARY KEY,          -- registered address, lower case
         delivery    TEXT NOT NULL,             -- 'every' | 'my_turn' | 'digest'
         digest_hour INTEGER,                   -- 0..23, UTC or the seat's time zone
         pictures    TEXT NOT NULL,             -- 'attached' | 'linked' | 'none'
         updated_at  TEXT
     ) STRICT;
     CREATE TABLE mail_digests (
         player  TEXT NOT NULL,                 -- registered address, lower case
         day     TEXT NOT NULL,                 -- YYYY-MM-DD in the player's zone
         sent_at TEXT NOT NULL,
         PRIMARY KEY (player, day)
     ) STRICT;",
    // ---- end of 15 ----
    // ---- 16 (issue 33: OpenPGP) ----
    // A seat's OpenPGP public key (ASCII armour, checked on the way in), beside
    // or instead of its Ed25519 key; NULL: none.
    // Whether the game takes a seat's OpenPGP key from its first signed mail
    // (option openpgp_tofu; 0: off).
    "ALTER TABLE seats ADD COLUMN openpgp_key TEXT;
     ALTER TABLE games ADD COLUMN openpgp_tofu INTEGER NOT NULL DEFAULT 0;",
    // ---- end of 16 ----
    // ---- 17 (issue 33: mails encrypted to the player's OpenPGP key) ----
    // Whether the player chose to get the steward's mails encrypted to the
    // OpenPGP key registered for their seat (0: signed only, as everyone).
    "ALTER TABLE mail_settings ADD COLUMN encrypt INTEGER NOT NULL DEFAULT 0;",
    // ---- end of 17 ----
    // ---- 18 (issue 33: keys at invitation, the steward's key recorded) ----
    // The OpenPGP key an invitee gave on accepting, and a tournament player's
    // (given at creation, by invitation or replacement; every seat of theirs
    // in the tournament's games gets it). The fingerprints of the steward's
    // OpenPGP keys since this version: a data directory whose store names one
    // must still hold its key file (a missing one is never made anew).
    "ALTER TABLE invitations ADD COLUMN openpgp_key TEXT;
     ALTER TABLE tournament_players ADD COLUMN openpgp_key TEXT;
     CREATE TABLE steward_openpgp_keys (
         fingerprint TEXT PRIMARY KEY,          -- 40 upper-case hex digits
         recorded_at TEXT NOT NULL
     ) STRICT;",
    // ---- end of 18 ----
    // ---- 19 (issue 34: Xfcc) ----
    // A player's password for programs (Xfcc clients such as Scid vs. PC), keyed by the registered address in lower case: a slow
    // salted hash (`pbkdf2-sha256$<iterations>$<salt, hex>$<hash, hex>`,
    // src/steward/program_password.rs), never the password itself, and the
    // games it opens: those the sign-ins that set it were proven for.
    "CREATE TABLE program_passwords (
         player     TEXT PRIMARY KEY,           -- registered address, lower case
         hash       TEXT NOT NULL,
         generated  INTEGER NOT NULL DEFAULT 0, -- 1: the steward chose it (a per-player token)
         games      TEXT NOT NULL DEFAULT '[]', -- JSON: the game ids it opens (issue 29: those proven)
         updated_at TEXT NOT NULL
     ) STRICT;",
    // ---- end of 19 ----
    // ---- 20 (issue 35: several stewards on one database) ----
    // A mail of the outbox claimed by the steward sending it, until a time,
    // so that stewards draining the same outbox never both send it; and
    // leases for the duties one steward at a time runs (the deadline sweep,
    // the IMAP door), taken over when their holder stops renewing them. A
    // SQLite store has one steward, which claims and holds them alone.
    "ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
     ALTER TABLE outbox ADD COLUMN claimed_until TEXT;
     CREATE TABLE leases (
         name   TEXT PRIMARY KEY,               -- 'sweep', 'imap'
         holder TEXT NOT NULL,                  -- the steward holding it
         until  TEXT NOT NULL                   -- when it lapses unless renewed
     ) STRICT;",
    // ---- end of 20 ----
    // ---- 21 (issue 37: the sweep reads only the games it has work in) ----
    // When the deadline sweep must next look at a game with a clock: its
    // earliest reminder point, deadline or final deadline still ahead, as the
    // last sweep of it reckoned; the epoch when a clock changed since (look at
    // the next sweep); NULL when nothing is ahead (the game is over). Indexed,
    // so that a sweep reads the games due and not every running one. The
    // reminder points those times were reckoned with (other points in the
    // configuration make every running game due once), and the token of the
    // last clean stop of `serve` (the same token in the data directory's
    // `store-stopped` shows the database is as that stop left it): small
    // facts about the store itself, by name.
    "ALTER TABLE game_clocks ADD COLUMN sweep_at TEXT;
     UPDATE game_clocks SET sweep_at = '1970-01-01T00:00:00.000Z';
     CREATE INDEX game_clocks_sweep_at ON game_clocks (sweep_at);
     CREATE TABLE store_state (
         name  TEXT PRIMARY KEY,                -- 'sweep_reminders', 'clean_stop'
         value TEXT NOT NULL
     ) STRICT;",
    // ---- end of 21 ----
];

/// The schema version this program writes.
pub(super) const LATEST: u32 = 1 + MIGRATIONS.len() as u32;

pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let version: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version > LATEST {
        return Err(StoreError::TooNew { path: path.to_owned(), found: version, known: LATEST });
    }
    if version == LATEST {
        return Ok(());
    }
    let tx = conn.transaction()?;
    if version == 0 {
        tx.execute_batch(SCHEMA)?;
    }
    for sql in &MIGRATIONS[version.saturating_sub(1) as usize..] {
        tx.execute_batch(sql)?;
    }
    if (1..2).contains(&version) {
        // Version 1 kept no hash chain: link the entries it has.
        super::events::rechain_all(&tx)?;
    }
    tx.pragma_update(None, "user_version", LATEST)?;
    tx.commit()?;
    tracing::info!(path = %path.display(), from = version, to = LATEST, "database schema brought up to date");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database at schema `version`, as the program of that version left it.
    fn database_at(version: u32) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        for sql in &MIGRATIONS[..version as usize - 1] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", version).unwrap();
        conn
    }

    /// Every table's columns (name, type, not null, default, key), and every
    /// index and trigger as written.
    fn shape(conn: &Connection) -> Vec<String> {
        let mut shape: Vec<String> = conn
            .prepare("SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master WHERE type != 'table' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for table in tables(conn) {
            let mut columns =
                conn.prepare("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1)").unwrap();
            let columns = columns.query_map([&table], |r| {
                Ok(format!(
                    "{table}.{} {} notnull={} default={:?} pk={}",
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, i64>(4)?
                ))
            });
            shape.extend(columns.unwrap().map(Result::unwrap));
        }
        shape
    }

    fn tables(conn: &Connection) -> Vec<String> {
        conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    /// One row in every table, every column that needs a value given one of
    /// its type: a migration that cannot run over rows (a column added NOT
    /// NULL without a default, a table rebuilt that loses its rows, an
    /// `UPDATE` that trips on old data) fails on them, as it would on a
    /// club's store.
    fn fill(conn: &Connection) -> Vec<(String, i64)> {
        conn.pragma_update(None, "foreign_keys", false).unwrap();
        let mut counts = Vec::new();
        for table in tables(conn) {
            let columns: Vec<(String, String)> = conn
                .prepare("SELECT name, upper(type) FROM pragma_table_info(?1)")
                .unwrap()
                .query_map([&table], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            let names: Vec<String> = columns.iter().map(|(n, _)| format!("\"{n}\"")).collect();
            let values: Vec<String> = columns
                .iter()
                .map(|(name, kind)| match kind.as_str() {
                    k if k.contains("INT") => "1".to_owned(),
                    k if k.contains("BLOB") => "x'00'".to_owned(),
                    k if k.contains("REAL") => "1.0".to_owned(),
                    // Times and JSON as the program writes them; other text names its column.
                    _ if name.ends_with("_at") || name == "at" || name == "until" => {
                        "'2026-01-01T00:00:00.000Z'".to_owned()
                    }
                    _ => format!("'{table}-{name}'"),
                })
                .collect();
            conn.execute(&format!("INSERT INTO \"{table}\" ({}) VALUES ({})", names.join(", "), values.join(", ")), [])
                .unwrap_or_else(|e| panic!("a row in {table}: {e}"));
            counts.push((table, 1));
        }
        counts
    }

    #[test]
    fn every_earlier_version_migrates_to_the_schema_of_a_new_database() {
        let mut fresh = Connection::open_in_memory().unwrap();
        migrate(&mut fresh, Path::new("new.db")).unwrap();
        let expected = shape(&fresh);
        for version in 1..LATEST {
            let mut conn = database_at(version);
            let rows = fill(&conn);
            migrate(&mut conn, Path::new(&format!("v{version}.db")))
                .unwrap_or_else(|e| panic!("from version {version}: {e}"));
            let found: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
            assert_eq!(found, LATEST, "from version {version}");
            assert_eq!(shape(&conn), expected, "from version {version}: the schema differs from a new database's");
            for (table, count) in rows {
                let kept: i64 = conn.query_row(&format!("SELECT count(*) FROM \"{table}\""), [], |r| r.get(0)).unwrap();
                assert_eq!(kept, count, "from version {version}: the rows of {table}");
            }
            let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
            assert_eq!(check, "ok", "from version {version}");
        }
    }

    #[test]
    fn a_database_of_a_newer_program_is_refused() {
        let mut conn = database_at(LATEST);
        conn.pragma_update(None, "user_version", LATEST + 1).unwrap();
        let err = migrate(&mut conn, Path::new("newer.db")).unwrap_err();
        assert!(
            matches!(err, StoreError::TooNew { found, known, .. } if found == LATEST + 1 && known == LATEST),
            "{err}"
        );
    }
}
