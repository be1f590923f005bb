//! Board PNGs for the web door, rendered a few at a time and kept in a small cache.
//! The outbox drainer draws the pictures of board mails with its own instance,
//! without a cache (the store keeps what it drew, as a `store::BoardPicture`).
//!
//! A PNG of the largest size takes tens of megabytes while it is drawn (the
//! pixmap, its unpremultiplied copy, the encoder's buffers), so the number of
//! renders at once is bounded by a semaphore: requests beyond it wait their turn
//! instead of each taking its own pixmap. Renders run on the blocking pool, and
//! the permit travels with the render, so a request that is dropped while its
//! picture is drawn still holds its permit until the drawing ends.
//!
//! The requests waiting for a permit are bounded too ([`MAX_WAITING`]): beyond
//! them a request is answered at once with [`PictureError::Busy`] instead of
//! holding its SVG in a queue that could grow without end.
//!
//! Finished pictures are kept by (SVG, size): the SVG is drawn from the position,
//! the marks and the side it is seen from, so a new position or another view is
//! another key, and an unchanged one is served without drawing. The cache is
//! bounded in bytes and drops the least recently used pictures first.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;

use super::lru::{Key, Lru, key_of};
use super::png::{Parts, RenderError, drawing_png};
use super::svg::Drawing;

/// How many PNGs are drawn at once by the web door.
pub const RENDERS_AT_ONCE: usize = 2;

/// How many requests may wait for a render at once; more are told to come back.
pub const MAX_WAITING: usize = 200;

/// How many bytes of finished PNGs the web door keeps.
pub const CACHE_BYTES: usize = 16 * 1024 * 1024;

/// Why no picture came.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    /// Too many requests are waiting for a render; try again shortly.
    #[error("{MAX_WAITING} pictures are waiting to be drawn")]
    Busy,
    /// The renderer refused or failed.
    #[error(transparent)]
    Render(#[from] RenderError),
}

/// Where the renders run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Priority {
    /// On tokio's blocking pool: someone waits for the picture (the web door).
    Asked,
    /// On the background threads ([`crate::background`]), at the lowest
    /// scheduling priority: a mail's picture gives way to the moves and
    /// answers being served.
    Background,
}

/// The bounded renderer and its cache; share it behind an `Arc`.
pub struct Pictures {
    priority: Priority,
    permits: Arc<Semaphore>,
    waiting: AtomicUsize,
    max_waiting: usize,
    /// Finished PNGs by (SVG, size).
    cache: Mutex<Lru<Arc<[u8]>>>,
    /// Whether anything is cached: without a cache no picture's SVG is written
    /// and hashed for its key (the outbox drainer keeps its pictures in files).
    caches: bool,
    /// Rasterised first layers and pieces, for the next picture.
    parts: Arc<Parts>,
}

impl std::fmt::Debug for Pictures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (count, bytes) = self.cached();
        f.debug_struct("Pictures")
            .field("free_permits", &self.permits.available_permits())
            .field("waiting", &self.waiting.load(Ordering::SeqCst))
            .field("cached", &count)
            .field("cached_bytes", &bytes)
            .finish()
    }
}

impl Default for Pictures {
    fn default() -> Pictures {
        Pictures::new(RENDERS_AT_ONCE, MAX_WAITING, CACHE_BYTES)
    }
}

/// Counts a request among the waiting while it lives.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Pictures {
    /// At most `renders_at_once` renders at a time (at least one), at most
    /// `max_waiting` requests waiting for one, and at most `cache_bytes` of
    /// finished pictures kept.
    pub fn new(renders_at_once: usize, max_waiting: usize, cache_bytes: usize) -> Pictures {
        Pictures {
            priority: Priority::Asked,
            permits: Arc::new(Semaphore::new(renders_at_once.max(1))),
            waiting: AtomicUsize::new(0),
            max_waiting,
            cache: Mutex::new(Lru::new(cache_bytes)),
            caches: cache_bytes > 0,
            parts: Arc::new(Parts::default()),
        }
    }

    /// The same renderer drawing in the background ([`crate::background`], nice
    /// +19), so that pictures for mails, which nobody waits for, give way to the
    /// moves being answered.
    pub fn in_background(self) -> Pictures {
        Pictures { priority: Priority::Background, ..self }
    }

    /// `drawing` as a PNG whose longer side is `size_px` pixels (see
    /// [`drawing_png`]), from the cache or drawn when a permit is free.
    ///
    /// # Errors
    /// [`PictureError::Busy`] when too many wait already; what [`drawing_png`]
    /// refuses, or a render that did not finish.
    pub async fn png(&self, drawing: Drawing, size_px: u32) -> Result<Arc<[u8]>, PictureError> {
        let key = self.caches.then(|| key_of(drawing.svg().as_bytes(), size_px));
        if let Some(png) = key.as_ref().and_then(|k| self.lookup(k)) {
            return Ok(png);
        }
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(PictureError::Busy);
        }
        let waiting = Waiting(&self.waiting);
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| RenderError::Encode("the renderer is closed".into()))?;
        drop(waiting);
        // Whoever held the permit before may have drawn this very picture.
        if let Some(png) = key.as_ref().and_then(|k| self.lookup(k)) {
            return Ok(png);
        }
        let parts = self.parts.clone();
        let draw = move || {
            let _permit = permit;
            drawing_png(&drawing, size_px, &parts)
        };
        let png = match self.priority {
            Priority::Asked => tokio::task::spawn_blocking(draw)
                .await
                .map_err(|e| RenderError::Encode(format!("the render did not finish: {e}")))??,
            Priority::Background => crate::background::run(draw)
                .await
                .map_err(|e| RenderError::Encode(format!("the render did not finish: {e}")))??,
        };
        let png: Arc<[u8]> = png.into();
        if let Some(key) = key {
            let bytes = png.len();
            self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(key, png.clone(), bytes);
        }
        Ok(png)
    }

    /// How many pictures and bytes the cache holds.
    pub fn cached(&self) -> (usize, usize) {
        let lru = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        (lru.len(), lru.bytes())
    }

    fn lookup(&self, key: &Key) -> Option<Arc<[u8]>> {
        self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::svg::{Marks, board_drawing};
    use crate::rules::{Options, VariantId};

    fn start_svg(black: bool) -> Drawing {
        let chess = VariantId::Chess.rulebook(&Options::new()).unwrap();
        board_drawing(
            &chess.board(&chess.start()).unwrap(),
            &Marks::default(),
            crate::rules::Seat::new(u8::from(black)),
        )
    }

    #[tokio::test]
    async fn a_picture_is_drawn_once_and_another_view_is_another_picture() {
        let pictures = Pictures::default();
        let a = pictures.png(start_svg(false), 200).await.unwrap();
        let again = pictures.png(start_svg(false), 200).await.unwrap();
        assert!(Arc::ptr_eq(&a, &again), "the second request is served from the cache");
        assert_eq!(pictures.cached().0, 1);
        let flipped = pictures.png(start_svg(true), 200).await.unwrap();
        assert!(!Arc::ptr_eq(&a, &flipped));
        let bigger = pictures.png(start_svg(false), 300).await.unwrap();
        assert!(bigger.len() > a.len());
        assert_eq!(pictures.cached().0, 3);
    }

    #[tokio::test]
    async fn the_cache_keeps_to_its_budget_dropping_the_oldest() {
        let one = Pictures::new(1, 1, usize::MAX).png(start_svg(false), 256).await.unwrap().len();
        // Room for about four such pictures.
        let pictures = Pictures::new(1, 1, one * 4 + one / 2);
        for size in 250..262 {
            pictures.png(start_svg(false), size).await.unwrap();
            let (_, bytes) = pictures.cached();
            assert!(bytes <= one * 4 + one / 2, "{bytes} bytes kept");
        }
        let (count, _) = pictures.cached();
        assert!((2..=5).contains(&count), "{count} pictures kept");
        // The newest is still there, the oldest is not.
        let cache = pictures.cache.lock().unwrap();
        assert!(cache.keys().last().is_some_and(|k| k.1 == 261));
        assert!(cache.keys().all(|k| k.1 != 250));
    }

    #[tokio::test]
    async fn a_refused_size_is_an_error_and_nothing_is_kept() {
        let pictures = Pictures::default();
        assert!(matches!(pictures.png(start_svg(false), 0).await, Err(PictureError::Render(RenderError::Size(0)))));
        assert_eq!(pictures.cached(), (0, 0));
    }

    #[tokio::test]
    async fn beyond_the_waiting_requests_a_request_is_told_busy_at_once() {
        let pictures = Arc::new(Pictures::new(1, 1, CACHE_BYTES));
        // Every render permit is taken, as by a long render.
        let held = pictures.permits.clone().acquire_owned().await.unwrap();
        let first = tokio::spawn({
            let pictures = pictures.clone();
            async move { pictures.png(start_svg(false), 120).await }
        });
        while pictures.waiting.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        assert!(matches!(pictures.png(start_svg(true), 120).await, Err(PictureError::Busy)));
        drop(held);
        assert!(first.await.unwrap().is_ok(), "the waiting request is drawn once a permit is free");
        assert_eq!(pictures.waiting.load(Ordering::SeqCst), 0);
        assert!(pictures.png(start_svg(true), 120).await.is_ok(), "and others are taken again");
    }
}
