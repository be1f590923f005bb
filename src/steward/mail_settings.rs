//! Mail as the player wants it (issue 32): a per-player setting of which board
//! mails come (every turn, only when it is the player's move, or a daily
//! digest) and whether they carry the board picture (attached, linked, none);
//! and (issue 33) whether the steward's mails come encrypted to the player's
//! OpenPGP key — taken only when every key registered for the player's seats
//! can be encrypted to.
//! Set by HTTP (`GET`/`PUT /api/me/mail`), on the `/me` page and by the mail
//! command `mail …`; the digest is sent by the deadline sweep, once per player
//! per day (the `mail_digests` table makes it so across restarts and sweeps).

use chrono::{DateTime, Timelike, Utc};
use chrono_tz::Tz;
use minijinja::context;
use serde::Serialize;

use super::{Credential, Loaded, Refusal, Steward, StewardError, load, senders::address_key};
use crate::ids::SeatToken;
use crate::ids::sha256_hex;
use crate::letters::compose::{DigestDraft, MailKind, compose_digest};
use crate::protocol::openpgp::encrypt::encryption_component;
use crate::protocol::openpgp::key::PlayerPgpKey;
use crate::rules::Seat;
use crate::store::{Delivery, MailSettings, MailSettingsChange, Pictures, Tx};

/// At most this many games are listed in one digest (the most urgent first);
/// the mail says how many more there are.
pub const DIGEST_GAMES: usize = 50;

/// A player's mail setting as `GET`/`PUT /api/me/mail` and the mail command
/// answer it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"player": "alice@example.org", "delivery": "digest", "digest_hour": 7, "time_zone": "Europe/Berlin", "pictures": "linked", "encrypt": false, "openpgp_keys": [], "message": "one digest a day at 07:00 listing the games where it is your move (no board mails); board picture as a link (hour in Europe/Berlin)"}))]
pub struct MailSettingsAnswer {
    /// The registered address the setting belongs to (lower case).
    pub player: String,
    /// `every`, `my_turn` or `digest`.
    pub delivery: Delivery,
    /// The digest's hour (0..23), with `digest` only.
    #[schema(minimum = 0, maximum = 23)]
    pub digest_hour: Option<u8>,
    /// The time zone the hour is read in: a seat's, or `UTC`.
    pub time_zone: String,
    /// `attached`, `linked` or `none`.
    pub pictures: Pictures,
    /// Whether the steward's mails come encrypted to the player's OpenPGP key
    /// (issue 33).
    pub encrypt: bool,
    /// The fingerprints of the OpenPGP keys registered for the player's seats
    /// (what encrypted mails are encrypted to), newest game first.
    pub openpgp_keys: Vec<String>,
    /// The setting in words.
    pub message: String,
}

/// Whether a board mail after a turn goes to a seat whose player chose
/// `setting` (`you_owe`: the seat owes a move after the turn). The mail that
/// ends a game goes whatever the setting (the caller's check).
pub(super) fn wants_board_mail(setting: MailSettings, you_owe: bool) -> bool {
    match setting.delivery {
        Delivery::Every => true,
        Delivery::MyTurn => you_owe,
        Delivery::Digest => false,
    }
}

/// The link to the board picture a board mail gives instead of the picture,
/// for a player who chose `linked`.
pub(super) fn picture_link(steward: &Steward, game: &Loaded, seat: Seat, setting: MailSettings) -> Option<String> {
    (setting.pictures == Pictures::Linked)
        .then(|| format!("{}/api/games/{}/board.png?seat={}", steward.public_url, game.row.id, game.seat_name(seat)))
}

/// The mail settings of a game's seats, in seat order.
pub(super) fn of_seats(tx: &Tx<'_>, game: &Loaded) -> Result<Vec<MailSettings>, StewardError> {
    game.seats.iter().map(|s| Ok(tx.mail_settings(&address_key(&s.email))?)).collect()
}

/// The time zone a player's digest hour is read in: the first of their
/// running games' seats that gave one, else UTC.
fn zone_of(tx: &Tx<'_>, player: &str) -> Result<Option<Tz>, StewardError> {
    for id in tx.running_games_of(player)? {
        let zones = tx.time_zones(&id)?;
        let seats = tx.seats(&id)?;
        for s in seats.iter().filter(|s| address_key(&s.email) == player) {
            if let Some(z) = zones.get(s.seat.index()).cloned().flatten().and_then(|z| z.parse::<Tz>().ok()) {
                return Ok(Some(z));
            }
        }
    }
    Ok(None)
}

/// Reads a setting change from what a door got; refuses an hour out of range.
pub fn check_change(change: &MailSettingsChange) -> Result<(), Refusal> {
    match change.digest_hour {
        Some(h) if h > 23 => Err(Refusal::BadRequest(format!(
            "digest_hour {h} is not an hour of the day; send a whole number from 0 to 23, e.g. {{\"delivery\": \"digest\", \"digest_hour\": 7}}"
        ))),
        _ => Ok(()),
    }
}

/// One game of a digest.
struct DigestItem {
    name: String,
    game: String,
    variant: String,
    seat: String,
    opponents: String,
    last: String,
    deadline: Option<String>,
    left_seconds: i64,
    reply: String,
}

impl Steward {
    /// The registered address a credential proves (a seat token, or a web session).
    pub(super) fn player_of(tx: &Tx<'_>, credential: &Credential) -> Result<String, StewardError> {
        match credential {
            Credential::Token(t) => {
                let (_, _, email) = tx.seat_by_token(&SeatToken::from_presented(t).hash())?.ok_or(Refusal::BadToken)?;
                Ok(address_key(&email))
            }
            Credential::Session { address, .. } => Ok(address_key(address)),
            _ => Err(Refusal::BadToken.into()),
        }
    }

    /// The answer for `player`'s setting.
    fn mail_answer(tx: &Tx<'_>, player: &str) -> Result<MailSettingsAnswer, StewardError> {
        let s = tx.mail_settings(player)?;
        let zone = zone_of(tx, player)?.map_or_else(|| "UTC".to_owned(), |z| z.name().to_owned());
        let mut message = s.describe();
        if s.delivery == Delivery::Digest {
            message.push_str(&format!(" (hour in {zone})"));
        }
        let mut openpgp_keys: Vec<String> = Vec::new();
        for (_, _, armored) in tx.openpgp_keys_of(player)? {
            if let Ok(k) = PlayerPgpKey::parse(&armored)
                && !openpgp_keys.iter().any(|f| f == k.fingerprint())
            {
                openpgp_keys.push(k.fingerprint().to_owned());
            }
        }
        if s.encrypt && openpgp_keys.is_empty() {
            message
                .push_str(" (but no OpenPGP key is registered any more: mails go signed only until you register one)");
        }
        Ok(MailSettingsAnswer {
            player: player.to_owned(),
            delivery: s.delivery,
            digest_hour: s.digest_hour,
            time_zone: zone,
            pictures: s.pictures,
            encrypt: s.encrypt,
            openpgp_keys,
            message,
        })
    }

    /// The mail setting of the player a credential proves; with a `change`
    /// that names something, changes it first.
    ///
    /// # Errors
    /// A bad token or session; an hour out of range; store failures.
    pub async fn mail_settings(
        &self,
        credential: Credential,
        change: MailSettingsChange,
    ) -> Result<MailSettingsAnswer, StewardError> {
        check_change(&change)?;
        let now = self.now();
        self.store
            .transaction(move |tx| {
                let player = Self::player_of(tx, &credential)?;
                Self::change_mail_in(tx, &player, &change, now)
            })
            .await
    }

    /// Applies `change` (if it names anything) to `player`'s setting, in the
    /// caller's transaction; the mail door calls it for the command `mail …`.
    pub(super) fn change_mail_in(
        tx: &Tx<'_>,
        player: &str,
        change: &MailSettingsChange,
        now: DateTime<Utc>,
    ) -> Result<MailSettingsAnswer, StewardError> {
        check_change(change)?;
        if change.encrypt == Some(true) {
            Self::check_encryptable(tx, player, now)?;
        }
        if !change.is_empty() {
            let s = tx.mail_settings(player)?.with(change);
            tx.set_mail_settings(player, &s, now)?;
        }
        Self::mail_answer(tx, player)
    }

    /// Refuses encrypted mail for `player` unless an OpenPGP key is registered
    /// for a seat of theirs and every such key can be encrypted to at `now`.
    fn check_encryptable(tx: &Tx<'_>, player: &str, now: DateTime<Utc>) -> Result<(), StewardError> {
        let keys = tx.openpgp_keys_of(player)?;
        if keys.is_empty() {
            // Where to register one: the seat of the player's newest game.
            let (game, seat) = match tx.games_of(player)?.first() {
                Some(id) => {
                    let g = load(tx, id.as_str())?;
                    let seat = g.seats.iter().find(|s| address_key(&s.email) == player).map(|s| g.seat_name(s.seat));
                    (id.to_string(), seat.unwrap_or_else(|| "SEAT".to_owned()))
                }
                None => ("GAME".to_owned(), "SEAT".to_owned()),
            };
            return Err(Refusal::BadRequest(format!(
                "no OpenPGP key is registered for you ({player}), so your mails cannot be encrypted; register your public key first — on your game page (the OpenPGP key form), or `PUT /api/games/{game}/seats/{seat}/openpgp-key` with the output of `gpg --armor --export {player}` as the body — then ask again (`mail encrypted`, or `{{\"encrypt\": true}}`)"
            ))
            .into());
        }
        for (game, _, armored) in keys {
            let problem = match PlayerPgpKey::parse(&armored) {
                Ok(k) => encryption_component(k.key(), now.timestamp()).err().map(|e| e.to_string()),
                Err(e) => Some(e.to_string()),
            };
            if let Some(problem) = problem {
                return Err(Refusal::BadRequest(format!(
                    "your mails cannot be encrypted: the key registered in game {game}: {problem}"
                ))
                .into());
            }
        }
        Ok(())
    }

    /// Sends the daily digests that are due at `now`: for each player who
    /// chose `digest`, once the hour came in the player's time zone and no
    /// digest went out that day there, one mail listing every running game
    /// where the player owes a move, the most urgent deadline first. Nothing
    /// is sent (nor recorded) on a day with no move owed at that hour: a move
    /// owed later that day is in a digest later that day. Returns the mails queued.
    ///
    /// # Errors
    /// Store failures.
    pub(super) fn send_digests(&self, tx: &Tx<'_>, now: DateTime<Utc>) -> Result<usize, StewardError> {
        let mut sent = 0;
        for (player, hour) in tx.digest_players()? {
            let zone = zone_of(tx, &player)?;
            let (local_hour, day) = match zone {
                Some(z) => {
                    let t = now.with_timezone(&z);
                    (t.hour(), t.date_naive())
                }
                None => (now.hour(), now.date_naive()),
            };
            let day = day.to_string();
            if local_hour < u32::from(hour) || tx.digest_recorded(&player, &day)? {
                continue;
            }
            let items = self.digest_items(tx, &player)?;
            if items.is_empty() {
                continue;
            }
            tx.record_digest(&player, &day, now)?;
            let mail = self.digest_mail(&player, &day, hour, zone, &items, now)?;
            tx.queue_mail(&mail, now)?;
            sent += 1;
        }
        Ok(sent)
    }

    /// The running games of `player` where a seat of theirs owes a move now,
    /// the most urgent first (games without a deadline last, oldest first).
    fn digest_items(&self, tx: &Tx<'_>, player: &str) -> Result<Vec<DigestItem>, StewardError> {
        let mut items = Vec::new();
        for id in tx.running_games_of(player)? {
            let g = load(tx, id.as_str())?;
            for s in g.seats.iter().filter(|s| address_key(&s.email) == player) {
                let view = super::view::game_view(self, tx, &g, Some(s.seat))?;
                let name = g.seat_name(s.seat);
                let Some(me) = view.seats.iter().find(|v| v.seat == name) else { continue };
                if !me.owes_move {
                    continue;
                }
                let opponents: Vec<String> = view
                    .seats
                    .iter()
                    .filter(|v| v.seat != name)
                    .map(|v| format!("{} ({})", v.player, v.seat))
                    .collect();
                let last = view
                    .history
                    .last()
                    .map(|t| {
                        t.moves.iter().map(|m| format!("{} {}", m.seat, m.notation)).collect::<Vec<_>>().join(", ")
                    })
                    .unwrap_or_else(|| "none yet".to_owned());
                let clock = me.clock.as_ref();
                let reply = self
                    .reply_address(&g, s.seat, g.row.turn)
                    .map_or_else(|| format!("{}/games/{}", self.public_url, g.row.id), |m| m.email.to_string());
                items.push(DigestItem {
                    name: s.name.clone(),
                    game: g.row.id.to_string(),
                    variant: g.row.variant.name().to_owned(),
                    seat: name,
                    opponents: opponents.join(", "),
                    last,
                    deadline: clock.and_then(|c| c.deadline_local.clone().or_else(|| c.deadline.clone())),
                    left_seconds: clock.map_or(i64::MAX, |c| c.left_seconds),
                    reply,
                });
            }
        }
        // Stable: games without a deadline keep their oldest-first order.
        items.sort_by_key(|i| i.left_seconds);
        Ok(items)
    }

    /// The digest mail of `player` for `day`.
    fn digest_mail(
        &self,
        player: &str,
        day: &str,
        hour: u8,
        zone: Option<Tz>,
        items: &[DigestItem],
        now: DateTime<Utc>,
    ) -> Result<crate::store::OutboxRow, StewardError> {
        let more = items.len().saturating_sub(DIGEST_GAMES);
        let shown = &items[..items.len().min(DIGEST_GAMES)];
        let subject = if items.len() == 1 {
            format!("Game {}: your move (daily digest)", items[0].game)
        } else {
            format!("Your move in {} games (daily digest)", items.len())
        };
        let list: Vec<_> = shown
            .iter()
            .map(|i| {
                context! {
                    game => i.game.clone(),
                    variant => i.variant.clone(),
                    seat => i.seat.clone(),
                    opponents => i.opponents.clone(),
                    last => i.last.clone(),
                    deadline => i.deadline.clone(),
                    reply => i.reply.clone(),
                }
            })
            .collect();
        let key = &sha256_hex(player.as_bytes())[..12];
        Ok(compose_digest(DigestDraft {
            from: &self.from,
            kind: MailKind::Reminder,
            key: format!("digest.{key}.{day}"),
            game: shown[0].game.clone(),
            to_name: &shown[0].name,
            to_email: player,
            subject,
            template: "digest.txt",
            context: context! {
                items => list,
                more => more,
                hour => format!("{hour:02}:00"),
                zone => zone.map_or("UTC", |z| z.name()),
                public_url => self.public_url.as_str(),
            },
            date: now,
        })?)
    }
}
