//! The drainer and the board pictures: drawn once, stored, resent the same.

use lettre::message::Mailbox;
use mail_parser::MimeHeaders;

use super::tests::keys;
use chrono::Utc;

use super::prepare::Page;
use super::*;
use crate::letters::compose::{Draft, Extras, MailKind, queue};
use crate::render::source::start_of;
use crate::rules::VariantId;
use crate::store::BoardPicture;
use crate::store::{OutboxRow, PictureFiles};

/// The picture of the chess start seen from `seat`, as the steward makes it.
/// The first page of the queue, claimed as the store's own drainers claim it.
async fn read_page(store: &Store) -> Page {
    let me = store.instance().to_owned();
    store.transaction(move |tx| Page::read(tx, 0, &me, false)).await.unwrap()
}

fn start_picture(seat: u8) -> BoardPicture {
    BoardPicture::new(start_of(VariantId::Chess, seat, 320))
}

/// A board mail of turn `turn` to `seat` carrying `picture`, queued as its
/// letter, with a text board of its own: the store keeps the picture's
/// source (as for mails queued by earlier versions).
fn board_mail(turn: u32, seat: usize, picture: &BoardPicture) -> OutboxRow {
    board_mail_with(turn, seat, picture, false)
}

/// [`board_mail`] whose letter keeps its picture's source as its text
/// board's, as the steward queues board mails now: no `pictures` row.
fn letter_board_mail(turn: u32, seat: usize, picture: &BoardPicture) -> OutboxRow {
    board_mail_with(turn, seat, picture, true)
}

fn board_mail_with(turn: u32, seat: usize, picture: &BoardPicture, letter_keeps_source: bool) -> OutboxRow {
    let from: Mailbox = "Fairsteward <moves@steward.example>".parse().unwrap();
    let game: crate::ids::GameId = "8KQ2ZJ".parse().unwrap();
    let (context, text_board) = if letter_keeps_source {
        (minijinja::context! { game => "8KQ2ZJ", turn => turn }, picture.source.clone())
    } else {
        (minijinja::context! { game => "8KQ2ZJ", turn => turn, board => "  1  R N B Q K B N R  1" }, None)
    };
    queue(Draft {
        from: &from,
        game: &game,
        turn,
        seat,
        kind: MailKind::Turn,
        to_name: "Alice",
        to_email: "alice@example.org",
        subject: format!("Game 8KQ2ZJ: turn {turn}"),
        template: "turn.txt",
        context,
        date: chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
        extras: Extras { html: Some("turn.html"), picture: Some(picture.clone()), text_board, ..Extras::default() },
    })
    .unwrap()
}

/// The PNG of the board image part of a delivered mail.
fn image_of(message: &[u8]) -> Vec<u8> {
    let mail = mail_parser::MessageParser::default().parse(message).unwrap();
    let image = mail.parts.iter().find(|p| p.content_id() == Some("board")).expect("the board image part");
    image.contents().to_vec()
}

/// Every `outbox.message` cell, as stored.
fn stored_messages(db: &std::path::Path) -> Vec<Vec<u8>> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn.prepare("SELECT message FROM outbox ORDER BY id").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

#[tokio::test]
async fn a_board_mail_is_queued_without_its_png_and_delivered_with_it_drawn_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("steward.db");
    let store = Store::open(&db).unwrap();
    let (white, black) = (start_picture(0), start_picture(1));
    // Two mails of the same position and view, one of the other view.
    let rows = [board_mail(1, 0, &white), board_mail(2, 0, &white), board_mail(1, 1, &black)];
    store.transaction(move |tx| rows.iter().try_for_each(|r| tx.queue_mail(r, Utc::now()))).await.unwrap();
    for message in stored_messages(&db) {
        assert!(!message.windows(4).any(|w| w == b"\x89PNG"), "no PNG in the row");
        assert!(!message.windows(11).any(|w| w == b"iVBORw0KGgo"), "no base64 PNG in the row");
        assert!(message.len() < 8 * 1024, "{} bytes", message.len());
    }
    assert_eq!(store.transaction(|tx| tx.count_pictures()).await.unwrap(), (2, 0), "one picture per view");

    let spool = dir.path().join("spool");
    assert_eq!(drain_once(&store, &Sink::Spool(spool.clone()), keys(dir.path())).await.unwrap(), 3);
    let read = |name: &str| std::fs::read(crate::mail::spool::file_for(&spool, name)).unwrap();
    let (a, b, c) = (
        read("8KQ2ZJ.1.0.turn@steward.example"),
        read("8KQ2ZJ.2.0.turn@steward.example"),
        read("8KQ2ZJ.1.1.turn@steward.example"),
    );
    let source = |p: &BoardPicture| p.source.clone().unwrap();
    let parts = crate::render::png::Parts::default();
    let drawn = |p: &BoardPicture| {
        crate::render::png::drawing_png(&source(p).drawing().unwrap(), source(p).size_px, &parts).unwrap()
    };
    assert_eq!(image_of(&a), drawn(&white), "the delivered mail carries its picture");
    assert_eq!(image_of(&b), drawn(&white));
    assert_eq!(image_of(&c), drawn(&black), "the other side's view");
    assert_ne!(drawn(&white), drawn(&black));
    assert_eq!(store.transaction(|tx| tx.count_pictures()).await.unwrap(), (0, 0), "no unsent mail needs them");
    let files = PictureFiles::of(&db);
    assert_eq!(std::fs::read_dir(files.dir()).unwrap().count(), 0, "nor their files");
}

/// A board mail whose letter keeps its picture's source: nothing is kept
/// in `pictures` as it is queued; the drainer draws the picture from the
/// letter, once per view, keeps its file while an unsent mail needs it (a
/// start's clean-up included), and removes it once none does.
#[tokio::test]
async fn a_letter_keeps_its_picture_source_and_the_drainer_draws_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("steward.db");
    let store = Store::open(&db).unwrap();
    let (white, black) = (start_picture(0), start_picture(1));
    let rows = [letter_board_mail(1, 0, &white), letter_board_mail(2, 0, &white), letter_board_mail(1, 1, &black)];
    assert!(rows.iter().all(|r| r.picture.as_ref().is_some_and(|p| p.source.is_none())), "kept by the letter");
    store.transaction(move |tx| rows.iter().try_for_each(|r| tx.queue_mail(r, Utc::now()))).await.unwrap();
    assert_eq!(store.transaction(|tx| tx.count_pictures()).await.unwrap(), (0, 0), "no row on the move's path");

    // A page made ready: the pictures drawn into their files from the letters.
    let drainer = Drainer::new(store.clone(), Sink::Spool(dir.path().join("spool")), keys(dir.path()));
    let mut page = read_page(&store).await;
    let pngs = drainer.prepare(&mut page).await.unwrap();
    assert_eq!(pngs.len(), 2, "one picture per view");
    let files = PictureFiles::of(&db);
    assert_eq!(drainer.remove_unneeded_pictures().await.unwrap(), 0, "unsent mails need both files");
    assert!(files.read(&white.key).unwrap().is_some() && files.read(&black.key).unwrap().is_some());

    let spool = dir.path().join("spool");
    assert_eq!(drain_once(&store, &Sink::Spool(spool.clone()), keys(dir.path())).await.unwrap(), 3);
    let read = |name: &str| std::fs::read(crate::mail::spool::file_for(&spool, name)).unwrap();
    let source = |p: &BoardPicture| p.source.clone().unwrap();
    let parts = crate::render::png::Parts::default();
    let drawn = |p: &BoardPicture| {
        crate::render::png::drawing_png(&source(p).drawing().unwrap(), source(p).size_px, &parts).unwrap()
    };
    assert_eq!(image_of(&read("8KQ2ZJ.1.0.turn@steward.example")), drawn(&white));
    assert_eq!(image_of(&read("8KQ2ZJ.2.0.turn@steward.example")), drawn(&white));
    assert_eq!(image_of(&read("8KQ2ZJ.1.1.turn@steward.example")), drawn(&black), "the other side's view");
    assert_eq!(std::fs::read_dir(files.dir()).unwrap().count(), 0, "no unsent mail needs the files");
}

#[tokio::test]
async fn a_resend_after_a_crash_is_byte_for_byte_the_same_from_the_stored_picture() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("steward.db")).unwrap();
    let picture = start_picture(0);
    let row = board_mail(1, 0, &picture);
    store.transaction(move |tx| tx.queue_mail(&row, Utc::now())).await.unwrap();
    let spool = dir.path().join("spool");
    let sink = Sink::Spool(spool.clone());

    // The first drainer draws and stores the picture and hands the mail over,
    // then "crashes" before the commit that marks it sent.
    let first = Drainer::new(store.clone(), sink.clone(), keys(dir.path()));
    let mut page = read_page(&store).await;
    assert!(page.rows[0].letter.is_some() && page.rows[0].message.is_empty(), "queued as its letter");
    let pngs = first.prepare(&mut page).await.unwrap();
    let row = &page.rows[0];
    assert!(row.letter.is_none() && !row.message.is_empty(), "formatted for the handover");
    let stored = read_page(&store).await;
    assert!(stored.rows[0].letter.is_some(), "the letter stays queued until the mail is sent");
    assert!(stored.rows[0].message.is_empty(), "the bytes are not stored: a resend formats them again");
    first.sink.deliver(row, &first.keys, Some(pngs[&picture.key].clone()), None).await.unwrap();
    drop(first);
    let file = crate::mail::spool::file_for(&spool, &row.message_id);
    let delivered = std::fs::read(&file).unwrap();
    let files = PictureFiles::of(store.path());
    let png = files.read(&picture.key).unwrap().expect("the drawn picture's file");
    assert_eq!(image_of(&delivered), png, "the picture delivered is the one stored");
    assert_eq!(store.transaction(|tx| tx.count_pictures()).await.unwrap(), (1, 0), "no PNG in the database");

    // A new drainer (a restart) sends it again: the same bytes, the same Message-ID.
    std::fs::remove_file(&file).unwrap();
    let mut again = Drainer::new(store.clone(), sink.clone(), keys(dir.path()));
    assert_eq!(again.pass().await.unwrap().delivered, 1);
    assert_eq!(std::fs::read(&file).unwrap(), delivered, "the resend is byte for byte the same");
    assert_eq!(store.transaction(|tx| tx.count_pictures()).await.unwrap(), (0, 0));
    assert_eq!(files.read(&picture.key).unwrap(), None, "its file went with it");

    // A picture whose file is gone (a database restored without them) is
    // drawn again from its source: the same bytes.
    let row = board_mail(2, 0, &picture);
    store.transaction(move |tx| tx.queue_mail(&row, Utc::now())).await.unwrap();
    let mut page = read_page(&store).await;
    again.prepare(&mut page).await.unwrap();
    std::fs::remove_file(files.dir().join(format!("{}.png", picture.key))).unwrap();
    assert_eq!(again.pass().await.unwrap().delivered, 1);
    let redrawn = std::fs::read(crate::mail::spool::file_for(&spool, "8KQ2ZJ.2.0.turn@steward.example")).unwrap();
    assert_eq!(image_of(&redrawn), png);
}

#[tokio::test]
async fn a_start_removes_the_picture_files_no_queued_mail_needs() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("steward.db")).unwrap();
    let (needed, orphan) = (start_picture(0), start_picture(1));
    let row = board_mail(1, 0, &needed);
    store.transaction(move |tx| tx.queue_mail(&row, Utc::now())).await.unwrap();
    let files = PictureFiles::of(store.path());
    files.write(&needed.key, b"needed").unwrap();
    files.write(&orphan.key, b"left by a crash").unwrap();
    let drainer = Drainer::new(store.clone(), Sink::Spool(dir.path().join("spool")), keys(dir.path()));
    assert_eq!(drainer.remove_unneeded_pictures().await.unwrap(), 1);
    assert_eq!(files.read(&needed.key).unwrap().as_deref(), Some(&b"needed"[..]));
    assert_eq!(files.read(&orphan.key).unwrap(), None);
}

#[tokio::test]
async fn a_picture_that_cannot_be_drawn_is_decided_once_and_the_mail_still_goes() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("steward.db")).unwrap();
    // Not a position of its variant: no board can be made of it.
    let broken = BoardPicture::new(crate::render::source::PictureSource {
        state: "not a position".into(),
        ..start_of(VariantId::Chess, 0, 320)
    });
    let rows = [board_mail(1, 0, &broken), board_mail(2, 0, &broken)];
    store.transaction(move |tx| rows.iter().try_for_each(|r| tx.queue_mail(r, Utc::now()))).await.unwrap();
    let spool = dir.path().join("spool");
    let drainer = Drainer::new(store.clone(), Sink::Spool(spool.clone()), keys(dir.path()));
    let mut page = read_page(&store).await;
    let pngs = drainer.prepare(&mut page).await.unwrap();
    assert_eq!(&*pngs[&broken.key], crate::render::png::STAND_IN);
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    let (source, failed): (Option<String>, Option<String>) = conn
        .query_row("SELECT source, failed FROM pictures WHERE key = ?1", [&broken.key], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert!(source.is_some() && failed.is_some(), "the failure is stored: {failed:?}");
    let file = PictureFiles::of(store.path()).read(&broken.key).unwrap();
    assert_eq!(file.as_deref(), Some(crate::render::png::STAND_IN), "every resend carries the same stand-in");
    assert_eq!(drain_once(&store, &Sink::Spool(spool.clone()), keys(dir.path())).await.unwrap(), 2);
    let mail = std::fs::read(crate::mail::spool::file_for(&spool, "8KQ2ZJ.1.0.turn@steward.example")).unwrap();
    assert_eq!(image_of(&mail), crate::render::png::STAND_IN);
    let parsed = mail_parser::MessageParser::default().parse(&mail).unwrap();
    assert!(parsed.body_text(0).unwrap().contains("R N B Q K B N R"), "the text board goes");
}

#[tokio::test]
async fn a_letter_that_cannot_be_formatted_is_held_back_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("steward.db")).unwrap();
    let damaged =
        OutboxRow { message: Vec::new(), letter: Some("{\"not\": \"a letter\"}".into()), ..OutboxRow::sample(1, None) };
    let fine = board_mail(2, 0, &start_picture(0));
    store.transaction(move |tx| [damaged, fine].iter().try_for_each(|r| tx.queue_mail(r, Utc::now()))).await.unwrap();
    let spool = dir.path().join("spool");
    let mut drainer = Drainer::new(store.clone(), Sink::Spool(spool.clone()), keys(dir.path()));
    assert_eq!(drainer.pass().await.unwrap(), Pass { delivered: 1, refused: 1, stopped: false });
    let left = store.transaction(|tx| tx.unsent_mail(10)).await.unwrap();
    assert_eq!(left.len(), 1, "the damaged one stays queued");
    assert_eq!(left[0].letter.as_deref(), Some("{\"not\": \"a letter\"}"), "as it was");
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    let error: String =
        conn.query_row("SELECT last_error FROM outbox WHERE id = ?1", [left[0].id], |r| r.get(0)).unwrap();
    assert!(error.contains("cannot be formatted"), "{error}");
    assert!(crate::mail::spool::file_for(&spool, "8KQ2ZJ.2.0.turn@steward.example").exists());
}

/// Two drainers at once (`fairsteward sweep` beside the daemon): one read
/// a letter's row, the other formatted and sent it meanwhile, which drops
/// the letter. The late one formats the letter it read to the same bytes:
/// at worst the same mail again, never an empty or a different one (an
/// earlier version dropped stored bytes and overwrote the spooled mail
/// with an empty file).
#[tokio::test]
async fn a_letter_another_drainer_sent_meanwhile_is_not_sent_again_empty() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("steward.db")).unwrap();
    let mail = board_mail(3, 1, &start_picture(1));
    store.transaction(move |tx| tx.queue_mail(&mail, Utc::now())).await.unwrap();
    let spool = dir.path().join("spool");
    let late = Drainer::new(store.clone(), Sink::Spool(spool.clone()), keys(dir.path()));
    let mut stale = read_page(&store).await;
    assert!(stale.rows[0].letter.is_some(), "read while still a letter");
    let mut first = Drainer::new(store.clone(), Sink::Spool(spool.clone()), keys(dir.path()));
    assert_eq!(first.pass().await.unwrap().delivered, 1);
    let file = crate::mail::spool::file_for(&spool, "8KQ2ZJ.3.1.turn@steward.example");
    let sent = std::fs::read(&file).unwrap();
    assert!(sent.len() > 1000, "the mail, picture and all");
    let pngs = late.prepare(&mut stale).await.unwrap();
    let row = &stale.rows[0];
    late.sink.deliver(row, &late.keys, row.picture.as_ref().map(|p| pngs[&p.key].clone()), None).await.unwrap();
    let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
    let (kept, letter): (Vec<u8>, Option<String>) =
        conn.query_row("SELECT message, letter FROM outbox", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert!(kept.is_empty() && letter.is_none(), "a sent mail's bytes and letter stay dropped");
    assert_eq!(std::fs::read(&file).unwrap(), sent, "the spooled mail as it was, byte for byte");
}
