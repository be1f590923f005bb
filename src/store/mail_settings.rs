//! A player's mail setting (migration 14, issue 32): which board mails they get
//! and whether those carry the board picture; and the daily digests sent.
//! Keyed by the registered address in lower case, like `aliases`: the setting
//! belongs to the player, over all their games. Migration 17 (issue 33) adds
//! whether the player gets the steward's mails encrypted to their OpenPGP key.

use super::sql::{OptionalExtension, Res, params};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::StoreError;
use super::tx::{Tx, corrupt, time_text};

/// Which board mails a player gets. Reminders, deadline and grace notices,
/// the game's end, notices and answers come whatever the setting.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// A board mail after every turn (the default).
    #[default]
    Every,
    /// A board mail only when the player owes a move after the turn (and the
    /// mail that ends the game).
    MyTurn,
    /// No board mails; one mail a day at the chosen hour listing every game
    /// where the player owes a move.
    Digest,
}

impl Delivery {
    /// The stored and shown name: `every`, `my_turn`, `digest`.
    pub fn name(self) -> &'static str {
        match self {
            Delivery::Every => "every",
            Delivery::MyTurn => "my_turn",
            Delivery::Digest => "digest",
        }
    }

    /// The setting of this name, as [`Delivery::name`] gives it.
    pub fn parse(text: &str) -> Option<Delivery> {
        match text {
            "every" => Some(Delivery::Every),
            "my_turn" => Some(Delivery::MyTurn),
            "digest" => Some(Delivery::Digest),
            _ => None,
        }
    }
}

/// Whether a board mail carries the board picture.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Pictures {
    /// The PNG inline in the HTML part (the default).
    #[default]
    Attached,
    /// No image part: a link to the board picture on the web, in text and HTML.
    Linked,
    /// The text board only.
    None,
}

impl Pictures {
    /// The stored and shown name: `attached`, `linked`, `none`.
    pub fn name(self) -> &'static str {
        match self {
            Pictures::Attached => "attached",
            Pictures::Linked => "linked",
            Pictures::None => "none",
        }
    }

    /// The setting of this name, as [`Pictures::name`] gives it.
    pub fn parse(text: &str) -> Option<Pictures> {
        match text {
            "attached" => Some(Pictures::Attached),
            "linked" => Some(Pictures::Linked),
            "none" => Some(Pictures::None),
            _ => None,
        }
    }
}

/// The digest hour when a player chose `digest` without one: 7 in the morning.
pub const DEFAULT_DIGEST_HOUR: u8 = 7;

/// A player's mail setting. `MailSettings::default()` is what a player without
/// a row gets: every board mail, picture attached.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailSettings {
    /// Which board mails.
    pub delivery: Delivery,
    /// The digest's hour, 0..23: UTC, or the time zone of a seat of the player
    /// that has one. `None` outside `digest`.
    pub digest_hour: Option<u8>,
    /// Pictures attached, linked or none.
    pub pictures: Pictures,
    /// Whether the steward's mails to the player are encrypted to the OpenPGP
    /// key registered for their seat (issue 33); off: signed only.
    #[serde(default)]
    pub encrypt: bool,
}

impl MailSettings {
    /// The setting with `change` applied: what it names changes, the rest
    /// stays; a digest without an hour gets [`DEFAULT_DIGEST_HOUR`], and the
    /// hour is dropped outside `digest`.
    pub fn with(self, change: &MailSettingsChange) -> MailSettings {
        let delivery = change.delivery.unwrap_or(self.delivery);
        let hour = change.digest_hour.or(self.digest_hour);
        MailSettings {
            delivery,
            digest_hour: (delivery == Delivery::Digest).then(|| hour.unwrap_or(DEFAULT_DIGEST_HOUR)),
            pictures: change.pictures.unwrap_or(self.pictures),
            encrypt: change.encrypt.unwrap_or(self.encrypt),
        }
    }

    /// One line for answers and pages: `every board mail, pictures attached`.
    pub fn describe(&self) -> String {
        let delivery = match self.delivery {
            Delivery::Every => "a board mail after every turn".to_owned(),
            Delivery::MyTurn => "a board mail only when it is your move (and when a game ends)".to_owned(),
            Delivery::Digest => format!(
                "one digest a day at {:02}:00 listing the games where it is your move (no board mails)",
                self.digest_hour.unwrap_or(DEFAULT_DIGEST_HOUR)
            ),
        };
        let pictures = match self.pictures {
            Pictures::Attached => "board picture attached",
            Pictures::Linked => "board picture as a link",
            Pictures::None => "text board only, no picture",
        };
        let encrypted = if self.encrypt { "; encrypted to your OpenPGP key" } else { "" };
        format!("{delivery}; {pictures}{encrypted}")
    }
}

/// What a request changes in a setting: each `None` stays as it was; all
/// `None` asks for the setting as it is.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailSettingsChange {
    /// The new delivery.
    pub delivery: Option<Delivery>,
    /// The new digest hour, 0..23.
    pub digest_hour: Option<u8>,
    /// The new pictures.
    pub pictures: Option<Pictures>,
    /// Encrypted (`true`) or signed only (`false`) (issue 33).
    #[serde(default)]
    pub encrypt: Option<bool>,
}

impl MailSettingsChange {
    /// Whether it changes nothing (a question).
    pub fn is_empty(&self) -> bool {
        self.delivery.is_none() && self.digest_hour.is_none() && self.pictures.is_none() && self.encrypt.is_none()
    }
}

impl Tx<'_> {
    /// The mail setting of `player` (registered address, lower case); the
    /// default when none was set.
    ///
    /// # Errors
    /// SQLite errors; a stored value that does not read back.
    pub fn mail_settings(&self, player: &str) -> Result<MailSettings, StoreError> {
        let row = self
            .0
            .query_row(
                "SELECT delivery, digest_hour, pictures, encrypt FROM mail_settings WHERE player = ?1",
                [player],
                |r| {
                    let d: String = r.get(0)?;
                    let h: Option<i64> = r.get(1)?;
                    let p: String = r.get(2)?;
                    Ok(MailSettings {
                        delivery: Delivery::parse(&d).ok_or_else(|| corrupt(format!("delivery {d:?}")))?,
                        digest_hour: h.and_then(|h| u8::try_from(h).ok()).filter(|h| *h < 24),
                        pictures: Pictures::parse(&p).ok_or_else(|| corrupt(format!("pictures {p:?}")))?,
                        encrypt: r.get::<_, i64>(3)? != 0,
                    })
                },
            )
            .optional()?;
        Ok(row.unwrap_or_default())
    }

    /// Stores the mail setting of `player` (registered address, lower case).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_mail_settings(&self, player: &str, s: &MailSettings, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO mail_settings (player, delivery, digest_hour, pictures, updated_at, encrypt)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (player) DO UPDATE SET delivery = ?2, digest_hour = ?3, pictures = ?4, updated_at = ?5, encrypt = ?6",
            )?
            .execute(params![
                player,
                s.delivery.name(),
                s.digest_hour.map(i64::from),
                s.pictures.name(),
                time_text(now),
                i64::from(s.encrypt)
            ])?;
        Ok(())
    }

    /// The OpenPGP keys (armoured) registered for the seats of `player`
    /// (registered address, lower case), with their game and seat index, the
    /// newest game first.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn openpgp_keys_of(&self, player: &str) -> Result<Vec<(String, usize, String)>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT s.game_id, s.seat, s.openpgp_key FROM seats s JOIN games g ON g.id = s.game_id
             WHERE lower(trim(s.email)) = ?1 AND s.openpgp_key IS NOT NULL
             ORDER BY g.created_at DESC, s.game_id, s.seat",
        )?;
        let rows = stmt
            .query_map([player], |r| {
                Ok((r.get::<_, String>(0)?, usize::try_from(r.get::<_, i64>(1)?).unwrap_or(0), r.get(2)?))
            })?
            .collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }

    /// The OpenPGP key (armoured) a mail about `game` to `recipient` is to be
    /// encrypted to: `None` unless the recipient's player chose encrypted mail
    /// (issue 33); then the key of their seat in `game`, else of their newest
    /// game's seat that has one (a mail about no game of theirs, a digest).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn encryption_key_for(&self, recipient: &str, game: &str) -> Result<Option<String>, StoreError> {
        let player = recipient.trim().trim_start_matches('<').trim_end_matches('>').trim().to_lowercase();
        if !self.mail_settings(&player)?.encrypt {
            return Ok(None);
        }
        let keys = self.openpgp_keys_of(&player)?;
        let here = keys.iter().position(|(g, _, _)| g == game).unwrap_or(0);
        Ok(keys.into_iter().nth(here).map(|(_, _, k)| k))
    }

    /// The players who chose the daily digest, with their hour.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn digest_players(&self) -> Result<Vec<(String, u8)>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT player, digest_hour FROM mail_settings WHERE delivery = 'digest' ORDER BY player",
        )?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<i64>>(1)?)))?
            .collect::<Res<Vec<_>>>()?;
        Ok(rows
            .into_iter()
            .map(|(p, h)| (p, h.and_then(|h| u8::try_from(h).ok()).filter(|h| *h < 24).unwrap_or(DEFAULT_DIGEST_HOUR)))
            .collect())
    }

    /// Records the digest of `player` for `day` (`YYYY-MM-DD`); returns false
    /// (and records nothing) when that day's digest was recorded before.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn record_digest(&self, player: &str, day: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let n = self
            .0
            .prepare_cached(
                "INSERT INTO mail_digests (player, day, sent_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
            )?
            .execute(params![player, day, time_text(now)])?;
        Ok(n == 1)
    }

    /// Whether the digest of `player` for `day` went out.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn digest_recorded(&self, player: &str, day: &str) -> Result<bool, StoreError> {
        Ok(self
            .0
            .query_row("SELECT 1 FROM mail_digests WHERE player = ?1 AND day = ?2", params![player, day], |_| Ok(()))
            .optional()?
            .is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_keeps_what_it_does_not_name() {
        let s = MailSettings::default();
        let d = s.with(&MailSettingsChange { delivery: Some(Delivery::Digest), ..Default::default() });
        assert_eq!(d.digest_hour, Some(DEFAULT_DIGEST_HOUR));
        assert_eq!(d.pictures, Pictures::Attached);
        let d =
            d.with(&MailSettingsChange { digest_hour: Some(19), pictures: Some(Pictures::None), ..Default::default() });
        assert_eq!((d.delivery, d.digest_hour, d.pictures), (Delivery::Digest, Some(19), Pictures::None));
        let e = d.with(&MailSettingsChange { delivery: Some(Delivery::MyTurn), ..Default::default() });
        assert_eq!((e.delivery, e.digest_hour), (Delivery::MyTurn, None), "no hour outside digest");
    }
}
