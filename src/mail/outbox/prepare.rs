//! Making a page of the queue ready before it goes out: its letters formatted,
//! its board pictures read from their files or drawn into them.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::time::Instant;

use super::*;
use crate::letters::compose::{ComposeError, Letter};
use crate::render::cache::PictureError;
use crate::store::{OutboxRow, PictureSource, Reader, StoreError, StoredPicture, Tx};

/// How long a page of mails stays claimed by the steward sending it (issue
/// 35): long enough to send a page to a slow server (each page claims anew);
/// a steward on another host that dies holding a claim delays those mails by
/// at most this much, when another steward sends them (one restarted on the
/// same host takes them at once: `Steward::release_dead_holders`).
pub(super) const CLAIM: chrono::TimeDelta = chrono::TimeDelta::minutes(2);

/// A picture a mail carries, as the drainer has it.
pub(super) struct FetchedPicture {
    pub(super) png: Arc<[u8]>,
    /// Drawn and written now: its name is durable once the directory is synced.
    pub(super) written: bool,
    /// Why it could not be drawn (`png` is then a stand-in).
    pub(super) failed: Option<String>,
}

/// A page of the queue: its mails and the stored pictures they carry.
pub(super) struct Page {
    pub(super) rows: Vec<OutboxRow>,
    pub(super) pictures: HashMap<String, StoredPicture>,
    /// Why a queued letter of the page could not be formatted, by row id.
    pub(super) unformatted: HashMap<i64, String>,
    /// The OpenPGP key (armoured) a mail goes encrypted to, by row id: its
    /// recipient chose encrypted mail (issue 33).
    pub(super) encrypt_to: HashMap<i64, Arc<str>>,
}

impl Page {
    /// The page of unsent mails after row `after`, with their pictures,
    /// claimed for `holder` (this steward; issue 35) for [`CLAIM`]; with
    /// `take_claimed`, also those another steward holds a claim on.
    pub(super) fn read(tx: &Tx<'_>, after: i64, holder: &str, take_claimed: bool) -> Result<Page, StoreError> {
        let now = chrono::Utc::now();
        let rows = tx.claim_unsent_mail_after(after, FLUSH_EVERY as u32, holder, (now, now + CLAIM), take_claimed)?;
        let keys: Vec<&str> = rows.iter().filter_map(|r| r.picture.as_ref().map(|p| p.key.as_str())).collect();
        let pictures = tx.pictures(&keys)?;
        let mut encrypt_to = HashMap::new();
        for row in &rows {
            if let Some(key) = tx.encryption_key_for(&row.recipient, &row.game_id)? {
                encrypt_to.insert(row.id, Arc::from(key));
            }
        }
        Ok(Page { rows, pictures, unformatted: HashMap::new(), encrypt_to })
    }

    pub(super) fn empty() -> Page {
        Page { rows: Vec::new(), pictures: HashMap::new(), unformatted: HashMap::new(), encrypt_to: HashMap::new() }
    }
}

impl Drainer {
    /// Makes the mails of `page` (but those held back) ready to hand over:
    /// formats their queued letters into `page` (in memory: a letter formats to
    /// the same bytes every time), and returns the PNG of every picture they
    /// carry, read from its file or drawn into it (the files synced) — all
    /// before any of these mails goes out, so a resend is byte for byte the
    /// same. A picture left out could not be drawn or written now: its mails
    /// wait; a letter that cannot be formatted is in `page.unformatted`.
    ///
    /// # Errors
    /// Store failures.
    pub(super) async fn prepare(&self, page: &mut Page) -> Result<HashMap<String, Arc<[u8]>>, StoreError> {
        let now = Instant::now();
        let held = |row: &OutboxRow| self.held.get(&row.id).is_some_and(|b| b.until > now);
        let letters: Vec<(i64, String)> =
            page.rows.iter().filter(|r| !held(r)).filter_map(|r| Some((r.id, r.letter.clone()?))).collect();
        // Formatted off the async threads, at the lowest priority; each letter
        // also gives its picture's source when it keeps it.
        let formatted: Vec<Formatted> = if letters.is_empty() {
            Vec::new()
        } else {
            let reader = self.reader.clone();
            let format = move || letters.into_iter().map(|(id, json)| format_letter(&reader, id, &json)).collect();
            crate::background::run(format).await.unwrap_or_else(|e| {
                // Its mails wait for the next pass.
                tracing::warn!(error = %e, "cannot format queued letters now");
                Vec::new()
            })
        };
        let from_letters: HashMap<String, Arc<PictureSource>> =
            formatted.iter().filter_map(|f| f.picture.clone()).collect();
        let mut ready = HashMap::new();
        let mut to_fetch = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for row in &page.rows {
            let Some(picture) = &row.picture else { continue };
            if held(row) || !seen.insert(picture.key.as_str()) {
                continue;
            }
            match (page.pictures.get(&picture.key), from_letters.get(&picture.key)) {
                (Some(StoredPicture::Drawn(png)), _) => {
                    ready.insert(picture.key.clone(), png.clone());
                }
                (Some(StoredPicture::Source(source)), _) | (None, Some(source)) => {
                    to_fetch.push((picture.key.clone(), source.clone()));
                }
                // Its letter could not be read now: the mail waits.
                (None, None) if row.letter.is_some() && !formatted.iter().any(|f| f.id == row.id) => {}
                (None, None) => {
                    tracing::warn!(picture = %picture.key, message_id = %row.message_id, "a queued mail's picture is not stored; it goes with a stand-in image");
                    ready.insert(picture.key.clone(), Arc::from(crate::render::png::STAND_IN));
                }
            }
        }
        if to_fetch.is_empty() && formatted.is_empty() {
            return Ok(ready);
        }
        // Drawn off the async threads, at the lowest priority, a few at a time
        // (the permits of `pictures`).
        let fetched =
            futures_util::future::join_all(to_fetch.into_iter().map(|(key, source)| self.picture(key, source))).await;
        let mut failed = Vec::new();
        let mut written = false;
        let mut fetched_ready = HashMap::new();
        for (key, picture) in fetched {
            let Some(picture) = picture else { continue };
            written |= picture.written;
            failed.extend(picture.failed.map(|why| (key.clone(), why)));
            fetched_ready.insert(key, picture.png);
        }
        if written {
            let files = self.files.clone();
            match crate::background::run(move || files.sync()).await {
                Ok(Ok(())) => ready.extend(fetched_ready),
                // Their mails wait for the next pass.
                Ok(Err(e)) => tracing::warn!(error = %e, "cannot sync the pictures' directory"),
                Err(e) => tracing::warn!(error = %e, "cannot sync the pictures' directory now"),
            }
        } else {
            ready.extend(fetched_ready);
        }
        let mut messages = HashMap::new();
        for Formatted { id, message, .. } in formatted {
            let Some(message) = message else { continue };
            match message {
                Ok(message) => {
                    messages.insert(id, message);
                }
                Err(e) => {
                    tracing::error!(row = id, error = %e, "a queued letter cannot be formatted");
                    page.unformatted.insert(id, format!("the queued letter cannot be formatted: {e}"));
                }
            }
        }
        if !failed.is_empty() {
            self.store
                .transaction(move |tx| {
                    for (key, why) in &failed {
                        tx.note_picture_failed(key, why)?;
                    }
                    Ok::<_, StoreError>(())
                })
                .await?;
        }
        // The bytes stay in memory: the letter stays queued until its mail is
        // marked sent, and a resend formats it again, to the same bytes.
        for row in &mut page.rows {
            if let Some(message) = messages.remove(&row.id) {
                row.message = message;
                row.letter = None;
            }
        }
        Ok(ready)
    }

    /// The PNG of picture `key`: its file, or drawn from `source` and written
    /// to its file (a stand-in, when it cannot be drawn). `None` when it cannot
    /// be had now (the renderer is busy, a file cannot be read or written):
    /// its mails wait for the next pass.
    pub(super) async fn picture(&self, key: String, source: Arc<PictureSource>) -> (String, Option<FetchedPicture>) {
        let files = self.files.clone();
        let k = key.clone();
        match crate::background::run(move || files.read(&k)).await {
            Ok(Ok(Some(png))) => {
                return (key, Some(FetchedPicture { png: png.into(), written: false, failed: None }));
            }
            Ok(Ok(None)) => {}
            Ok(Err(e)) => {
                tracing::warn!(picture = %key, error = %e, "cannot read a drawn picture; its mails wait");
                return (key, None);
            }
            Err(_) => return (key, None),
        }
        let size_px = source.size_px;
        let drawn = match crate::background::run(move || source.drawing()).await {
            Ok(Ok(drawing)) => self.pictures.png(drawing, size_px).await.map_err(|e| match e {
                PictureError::Busy => None,
                PictureError::Render(e) => Some(e.to_string()),
            }),
            Ok(Err(e)) => Err(Some(e.to_string())),
            Err(_) => Err(None),
        };
        let (png, failed) = match drawn {
            Ok(png) => (png, None),
            Err(None) => return (key, None),
            Err(Some(e)) => {
                tracing::warn!(picture = %key, error = %e, "cannot draw a board picture; its mails go with the text board and a stand-in image");
                (Arc::from(crate::render::png::STAND_IN), Some(e))
            }
        };
        let (files, k, bytes) = (self.files.clone(), key.clone(), png.clone());
        match crate::background::run(move || files.write(&k, &bytes)).await {
            Ok(Ok(())) => (key, Some(FetchedPicture { png, written: true, failed })),
            Ok(Err(e)) => {
                tracing::warn!(picture = %key, error = %e, "cannot write a drawn picture; its mails wait");
                (key, None)
            }
            Err(_) => (key, None),
        }
    }
}

/// A queued letter as the drainer formatted it.
pub(super) struct Formatted {
    /// Its outbox row.
    pub(super) id: i64,
    /// Its bytes, or why it cannot be formatted; `None` when its record cannot
    /// be read now (the letter waits for the next pass).
    pub(super) message: Option<Result<Vec<u8>, ComposeError>>,
    /// Its picture's key and source, when the letter keeps them.
    pub(super) picture: Option<(String, Arc<PictureSource>)>,
}

/// The queued letter `json` of row `id` formatted, its record read with
/// `reader` if it has one.
pub(super) fn format_letter(reader: &Reader, id: i64, json: &str) -> Formatted {
    let letter = match Letter::from_json(json) {
        Ok(letter) => letter,
        Err(e) => return Formatted { id, message: Some(Err(e)), picture: None },
    };
    let picture = letter.picture_source().map(|(key, source)| (key.to_owned(), Arc::new(source)));
    let settled = match letter.record_query().map(|q| q.game_id().map(|game| (game, q.through))) {
        None => Ok(None),
        Some(Err(e)) => Err(ComposeError::Context(format!("the record's game: {e}"))),
        Some(Ok((game, through))) => match reader.settled_moves(&game, through) {
            Ok(moves) => Ok(Some(moves)),
            Err(e) => {
                tracing::warn!(row = id, error = %e, "cannot read a board mail's record now; it waits");
                return Formatted { id, message: None, picture };
            }
        },
    };
    Formatted { id, message: Some(settled.and_then(|s| letter.format_with(s))), picture }
}
