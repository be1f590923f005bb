//! The clock's mails: timeouts, grace notices, reminder digests and leave
//! notices. Digests go to a player, not a seat: one mail however many games.

use chrono::{DateTime, Utc};
use minijinja::context;

use super::super::mails::to_seats;
use super::super::{Head, Loaded, Steward, StewardError};
use super::sweep::Due;
use crate::clock::leave::Balance;
use crate::ids::sha256_hex;
use crate::letters::compose::{DigestDraft, MailKind, compose_digest};
use crate::rules::{Outcome, Seat};
use crate::store::OutboxRow;

/// The first twelve hex digits of the SHA-256 of `text`: a stable, private part
/// of a Message-ID (a mail address does not appear in it).
fn key(text: &str) -> String {
    sha256_hex(text.as_bytes())[..12].to_owned()
}

/// The mails of a timeout, one per seat.
pub(super) fn timeout(
    steward: &Steward,
    game: &Loaded,
    text: &str,
    outcome: Option<Outcome>,
    suffix: &str,
    head: &Head,
    now: DateTime<Utc>,
) -> Result<Vec<OutboxRow>, StewardError> {
    to_seats(steward, game, MailKind::Timeout, suffix, None, text, |_| text.to_owned(), outcome, head, now)
}

/// The grace mails: a last reminder to the late seat, a notice to the others.
#[allow(clippy::too_many_arguments)]
pub(super) fn grace(
    steward: &Steward,
    game: &Loaded,
    late: Seat,
    stage: u32,
    subject: &str,
    to_late: &str,
    to_others: &str,
    head: &Head,
    now: DateTime<Utc>,
) -> Result<Vec<OutboxRow>, StewardError> {
    let suffix = format!("-{}-{stage}", late.index());
    to_seats(
        steward,
        game,
        MailKind::Grace,
        &suffix,
        None,
        subject,
        |s| if s == late { to_late.to_owned() } else { to_others.to_owned() },
        None,
        head,
        now,
    )
}

/// One reminder mail to a player, listing every game where a move is due.
pub(super) fn reminder_digest(steward: &Steward, items: &[Due], now: DateTime<Utc>) -> Result<OutboxRow, StewardError> {
    let first = &items[0];
    let ids: Vec<String> =
        items.iter().map(|i| format!("{}.{}.{}.{}.{}", i.game, i.seat_name, i.turn, i.stage, i.hours)).collect();
    let subject = if items.len() == 1 {
        format!("Game {}: your move is due {}", first.game, first.deadline)
    } else {
        format!("Moves due in {} games", items.len())
    };
    let lines: Vec<_> = items
        .iter()
        .map(|i| {
            context! {
                game => i.game.as_str(),
                variant => i.variant.clone(),
                seat => i.seat_name.clone(),
                turn => i.turn,
                move_number => i.move_number.clone(),
                what => if i.stage == 1 { "reveal" } else { "move" },
                deadline => i.deadline.clone(),
                left => i.left.clone(),
            }
        })
        .collect();
    Ok(compose_digest(DigestDraft {
        from: &steward.from,
        kind: MailKind::Reminder,
        key: format!("{}.{}", key(&first.email.to_lowercase()), key(&ids.join(","))),
        game: first.game.to_string(),
        to_name: &first.player,
        to_email: &first.email,
        subject,
        template: "reminder.txt",
        context: context! {
            player => first.player.clone(),
            items => lines,
            public_url => steward.public_url.as_str(),
            calendar => steward.calendar_url(&first.email, &items.iter().map(|i| i.game.to_string()).collect::<Vec<_>>()),
        },
        date: now,
    })?)
}

/// A game touched by a leave, as a leave mail lists it.
#[derive(Clone)]
pub(super) struct LeaveGame {
    pub(super) game: String,
    pub(super) variant: String,
    pub(super) players: String,
    /// What the game's leave rule does with this leave, when not all of it stops the clock.
    pub(super) note: Option<String>,
}

/// A leave mail to one player (the one on leave, or an opponent).
#[allow(clippy::too_many_arguments)]
pub(super) fn leave(
    steward: &Steward,
    leave_id: i64,
    to_name: &str,
    to_email: &str,
    subject: String,
    text: &str,
    games: &[LeaveGame],
    balance: &[Balance],
    now: DateTime<Utc>,
) -> Result<OutboxRow, StewardError> {
    let list: Vec<_> = games
        .iter()
        .map(|g| context! { game => g.game.clone(), variant => g.variant.clone(), players => g.players.clone(), note => g.note.clone() })
        .collect();
    Ok(compose_digest(DigestDraft {
        from: &steward.from,
        kind: MailKind::Leave,
        key: format!("{leave_id}.{}", key(&to_email.to_lowercase())),
        game: games.first().map(|g| g.game.clone()).unwrap_or_default(),
        to_name,
        to_email,
        subject,
        template: "leave.txt",
        context: context! {
            player => to_name,
            text => text,
            games => list,
            balance => balance.iter().map(|b| context! { year => b.year, used => b.used, left => b.left }).collect::<Vec<_>>(),
            public_url => steward.public_url.as_str(),
        },
        date: now,
    })?)
}
