//! The steward's own mails as the mail door reads them: marked automatic, so
//! one that comes back is never acted on (issue 29). The mails are composed by
//! [`crate::letters::compose`]; the test lives here, above both.

use chrono::DateTime;
use lettre::message::Mailbox;

use crate::ids::GameId;
use crate::letters::compose::tests::board_draft;
use crate::letters::compose::{DigestDraft, Draft, Extras, Letter, MailKind, compose, compose_digest, queue};

/// Issue 29: every mail the steward sends is marked automatic (RFC 3834)
/// and asks Exchange not to answer it; a game's mails name their game in
/// a `List-Id` (RFC 2919) and offer no unsubscribing.
#[test]
fn every_mail_is_marked_automatic_and_a_games_mails_carry_its_list_id() {
    let from: Mailbox = "Fairsteward <moves@Steward.example>".parse().unwrap();
    let game: GameId = "8KQ2ZJ".parse().unwrap();
    let header = |message: &[u8], name: &str| -> Vec<String> {
        let parsed = mail_parser::MessageParser::default().parse(message).unwrap();
        parsed.headers_raw().filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim().to_owned()).collect()
    };
    let answer = Draft {
        kind: MailKind::Answer,
        template: "notice.txt",
        context: minijinja::context! { game => "8KQ2ZJ", text => "hello" },
        ..board_draft(&from, &game, Extras::default())
    };
    let composed = compose(answer).unwrap().message;
    let queued = Letter::from_json(&queue(board_draft(&from, &game, Extras::default())).unwrap().letter.unwrap())
        .unwrap()
        .format()
        .unwrap();
    for message in [&composed, &queued] {
        assert_eq!(header(message, "Auto-Submitted"), ["auto-generated"]);
        assert_eq!(header(message, "X-Auto-Response-Suppress"), ["All"]);
        assert_eq!(header(message, "List-Id"), ["Game 8KQ2ZJ <8kq2zj.games.steward.example>"]);
        assert!(header(message, "List-Unsubscribe").is_empty());
    }
    let digest = compose_digest(DigestDraft {
        from: &from,
        kind: MailKind::Reminder,
        key: "alice@example.org.2026-12-05".into(),
        game: "8KQ2ZJ".into(),
        to_name: "Alice",
        to_email: "alice@example.org",
        subject: "Moves due".into(),
        template: "reminder.txt",
        context: minijinja::context! { items => Vec::<u8>::new(), games => Vec::<u8>::new() },
        date: DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
    })
    .unwrap()
    .message;
    assert_eq!(header(&digest, "Auto-Submitted"), ["auto-generated"]);
    assert_eq!(header(&digest, "X-Auto-Response-Suppress"), ["All"]);
    assert!(header(&digest, "List-Id").is_empty(), "a digest may cover several games");
    // The steward's own mails, should one come back, are never acted on.
    for message in [&composed, &queued, &digest] {
        let read = super::read_mail(message).unwrap();
        assert!(read.automatic.is_some(), "{read:?}");
    }
}
