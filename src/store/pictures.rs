//! Board pictures of queued mails (migration 7), kept once per picture.
//!
//! A board mail is queued without its PNG: its outbox row names the picture by
//! a content key (the SHA-256 over its [`PictureSource`]: variant, options,
//! position, marks, viewing side and size), and its message holds a
//! placeholder where the image's base64 goes (see `letters::compose`).
//! The `pictures` row keeps the source (a few hundred bytes); the outbox
//! drainer draws it off the store thread — SVG and PNG both — into a file of
//! its own ([`super::PictureFiles`]), which every resend of every mail carrying
//! that picture uses, so a resend is byte for byte the same. Once no unsent
//! mail refers to a picture, the drainer drops its row in the commit that
//! marks the last such mail sent, and then its file.
//!
//! A board mail queued as a letter keeps its picture's source itself (it is
//! the letter's text board's source), so it has no row here: no `pictures`
//! row is written on the move's path, and the drainer draws the picture from
//! the letter. Rows here are for mails queued with bytes, and by versions
//! before.

use std::collections::HashMap;
use std::sync::Arc;

use super::sql::{OptionalExtension, params};
use chrono::{DateTime, Utc};

use super::StoreError;
use super::sql::Res;
use super::tx::{Tx, time_text};
pub use crate::render::source::PictureSource;

/// A board picture a queued mail carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardPicture {
    /// The content key: hex SHA-256 over the source's text.
    pub key: String,
    /// What to draw it from: set on a mail being queued (the store keeps it
    /// until the picture is drawn); `None` on a row read back from the outbox.
    pub source: Option<Arc<PictureSource>>,
}

impl BoardPicture {
    /// The picture drawn from `source`, keyed by it.
    pub fn new(source: PictureSource) -> BoardPicture {
        BoardPicture { key: BoardPicture::key_of(&source.to_text()), source: Some(Arc::new(source)) }
    }

    /// The content key of the picture whose source's text
    /// ([`PictureSource::to_text`]) is `source_text`.
    pub fn key_of(source_text: &str) -> String {
        crate::ids::hex(ring::digest::digest(&ring::digest::SHA256, source_text.as_bytes()).as_ref())
    }
}

/// A stored picture as the drainer reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoredPicture {
    /// Its source: the PNG is its file ([`super::PictureFiles`]), or is drawn
    /// from this into it.
    Source(Arc<PictureSource>),
    /// Drawn into the database by a steward from before the picture files
    /// (or, when it could not be drawn, a stand-in): these exact bytes go into
    /// every mail that carries it.
    Drawn(Arc<[u8]>),
}

impl Tx<'_> {
    /// Keeps `picture`'s source unless the picture is stored already (drawn or
    /// not): one row however many mails carry it.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn keep_picture(&self, picture: &BoardPicture, now: DateTime<Utc>) -> Result<(), StoreError> {
        let Some(source) = &picture.source else { return Ok(()) };
        self.0
            .prepare_cached(
                "INSERT INTO pictures (key, source, png, failed, created_at) VALUES (?1, ?2, NULL, NULL, ?3) ON CONFLICT DO NOTHING",
            )?
            .execute(params![picture.key, source.to_text(), time_text(now)])?;
        Ok(())
    }

    /// The stored pictures of these keys; a key with no row is left out.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn pictures(&self, keys: &[&str]) -> Result<HashMap<String, StoredPicture>, StoreError> {
        let mut stmt = self.0.prepare_cached("SELECT source, png FROM pictures WHERE key = ?1")?;
        let mut found = HashMap::new();
        for key in keys {
            if found.contains_key(*key) {
                continue;
            }
            let Some((source, png)) = stmt
                .query_row([key], |r| Ok((r.get::<_, Option<String>>(0)?, r.get::<_, Option<Vec<u8>>>(1)?)))
                .optional()?
            else {
                continue;
            };
            let stored = match (png, source) {
                (Some(png), _) => StoredPicture::Drawn(png.into()),
                (None, Some(text)) => StoredPicture::Source(Arc::new(
                    PictureSource::from_text(&text)
                        .map_err(|e| StoreError::Corrupt(format!("the picture {key}: {e}")))?,
                )),
                (None, None) => {
                    return Err(StoreError::Corrupt(format!("the picture {key} has neither a PNG nor a source")));
                }
            };
            found.insert((*key).to_owned(), stored);
        }
        Ok(found)
    }

    /// Records why picture `key` could not be drawn (its file holds a
    /// stand-in).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn note_picture_failed(&self, key: &str, why: &str) -> Result<(), StoreError> {
        self.0.prepare_cached("UPDATE pictures SET failed = ?2 WHERE key = ?1")?.execute(params![key, why])?;
        Ok(())
    }

    /// The keys of every picture a mail may still need: the stored ones, and
    /// those of the unsent mails whose letters keep their pictures' sources.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn picture_keys(&self) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT key FROM pictures
             UNION SELECT picture FROM outbox WHERE picture IS NOT NULL AND sent_at IS NULL",
        )?;
        let keys = stmt.query_map([], |r| r.get(0))?.collect::<Res<Vec<String>>>()?;
        Ok(keys)
    }

    /// Answers which of `keys` no unsent mail carries any more, dropping
    /// their stored rows (a picture kept by its mails' letters has none): their
    /// files go once this commits.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn drop_unneeded_pictures(&self, keys: &[&str]) -> Result<Vec<String>, StoreError> {
        let mut needed =
            self.0.prepare_cached("SELECT EXISTS (SELECT 1 FROM outbox WHERE picture = ?1 AND sent_at IS NULL)")?;
        let mut drop = self.0.prepare_cached("DELETE FROM pictures WHERE key = ?1")?;
        let mut dropped = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            // A picture the mails to several players share comes once.
            if keys[..i].contains(key) {
                continue;
            }
            if !needed.query_row([key], |r| r.get::<_, bool>(0))? {
                drop.execute([key])?;
                dropped.push((*key).to_owned());
            }
        }
        Ok(dropped)
    }

    /// How many pictures are stored, and how many of them are drawn.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn count_pictures(&self) -> Result<(i64, i64), StoreError> {
        self.0
            .prepare_cached("SELECT COUNT(*), COUNT(png) FROM pictures")?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::source::start_of;
    use crate::rules::VariantId;
    use crate::store::{OutboxRow, Store};

    fn mail(n: usize, picture: &BoardPicture) -> OutboxRow {
        OutboxRow::sample(n, Some(picture.clone()))
    }

    #[test]
    fn the_key_is_the_content_and_the_size() {
        let a = BoardPicture::new(start_of(VariantId::Chess, 0, 640));
        assert_eq!(a, BoardPicture::new(start_of(VariantId::Chess, 0, 640)));
        assert_ne!(a.key, BoardPicture::new(start_of(VariantId::Chess, 0, 800)).key);
        assert_ne!(a.key, BoardPicture::new(start_of(VariantId::Chess, 1, 640)).key);
        assert_eq!(a.key.len(), 64);
    }

    #[tokio::test]
    async fn a_picture_is_kept_once_and_dropped_when_no_unsent_mail_needs_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let picture = BoardPicture::new(start_of(VariantId::Chess, 0, 640));
        let p = picture.clone();
        store
            .transaction(move |tx| {
                tx.queue_mail(&mail(1, &p), Utc::now())?;
                tx.queue_mail(&mail(2, &p), Utc::now())
            })
            .await
            .unwrap();
        let key = picture.key.clone();
        let (counted, stored) = store
            .transaction(move |tx| Ok::<_, StoreError>((tx.count_pictures()?, tx.pictures(&[&key, "nothing"])?)))
            .await
            .unwrap();
        assert_eq!(counted, (1, 0), "two mails, one picture, not drawn yet");
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[&picture.key], StoredPicture::Source(picture.source.clone().unwrap()));

        let key = picture.key.clone();
        let (keys, after) = store
            .transaction(move |tx| {
                tx.note_picture_failed(&key, "no board")?;
                Ok::<_, StoreError>((tx.picture_keys()?, tx.pictures(&[&key])?))
            })
            .await
            .unwrap();
        assert_eq!(keys, std::slice::from_ref(&picture.key));
        assert_eq!(after[&picture.key], StoredPicture::Source(picture.source.clone().unwrap()), "the source stays");

        let key = picture.key.clone();
        let rows = store.transaction(|tx| tx.unsent_mail(10)).await.unwrap();
        assert!(rows.iter().all(|r| r.picture.as_ref().is_some_and(|p| p.key == key && p.source.is_none())));
        let (a, b) = (rows[0].id, rows[1].id);
        // Marks mail `id` sent and drops the picture if no unsent mail needs it.
        let sent = |id: i64| {
            let key = key.clone();
            store.transaction(move |tx| {
                tx.mark_sent(id, Utc::now())?;
                tx.drop_unneeded_pictures(&[&key])
            })
        };
        assert!(sent(a).await.unwrap().is_empty(), "the second mail still needs it");
        assert_eq!(sent(b).await.unwrap(), std::slice::from_ref(&picture.key));
        assert_eq!(store.transaction(|tx| tx.count_pictures()).await.unwrap(), (0, 0));
    }
}
