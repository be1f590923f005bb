//! Which mails the steward queues, and what goes into their templates.

use chrono::{DateTime, Utc};
use minijinja::{Value, context};

use super::{Head, Loaded, Steward, StewardError, internal};
use crate::letters::compose::{Draft, Extras, MailKind, queue, queue_with_suffix};
use crate::letters::record::RecordQuery;
use crate::render::svg::Marks;
use crate::rules::{MovePath, Outcome, Seat, SeatResult, SeatSet, TextResolution};
use crate::store::{BoardPicture, MailSettings, OutboxRow, PictureSource, Pictures};

/// The boards of one position as its mails show them, each seen from the
/// reader's side (that seat at the bottom): the text board, and the picture.
/// The variant describes the board once for all the mails.
///
/// No mail is formatted here, inside the command's transaction: each is queued
/// as its letter ([`queue`]), formatted by the outbox drainer. No board is
/// drawn here either, as text or as a picture: each is queued as its source
/// (variant, options, position, marks, side, size); the drainer draws the text
/// board as it formats the letter, and makes the SVG and PNG off the store
/// thread, once per picture however many mails carry it (see
/// [`crate::store::BoardPicture`]).
struct Boards<'a> {
    game: &'a Loaded,
    state: &'a str,
    marks: Marks,
    /// The pictures made so far, by viewing seat.
    done: [Option<BoardPicture>; crate::rules::SeatSet::MAX as usize],
}

impl<'a> Boards<'a> {
    /// The boards of `state`, marking the paths of `last_moves` and (in the
    /// picture) the seats in `to_move`.
    fn new(
        game: &'a Loaded,
        state: &'a str,
        last_moves: Vec<MovePath>,
        to_move: SeatSet,
    ) -> Result<Self, StewardError> {
        // A position the variant cannot draw is refused here, as before, not
        // only by the drainer later.
        game.rules.board(state).map_err(internal)?;
        let marks = Marks { last_moves, to_move: to_move.iter().collect() };
        Ok(Boards { game, state, marks, done: Default::default() })
    }

    /// The board picture seen from `seat`'s side; its source is also what the
    /// mail's text board is drawn from ([`Extras::text_board`]).
    fn picture_for(&mut self, seat: Seat) -> BoardPicture {
        let Boards { game, state, marks, .. } = self;
        self.done[seat.index() % self.done.len()]
            .get_or_insert_with(|| {
                BoardPicture::new(PictureSource {
                    variant: game.row.variant,
                    options: game.row.options.clone(),
                    state: (*state).to_owned(),
                    marks: marks.clone(),
                    seat,
                    size_px: MAIL_PICTURE_PX,
                })
            })
            .clone()
    }
}

/// How large a board mail's picture is drawn: 640 pixels, whatever the board.
/// The mail shows it 360 pixels wide (`templates/turn.html`), so that is still
/// 1.8 pixels per displayed one. Boards of more than 64 cells were drawn at 800
/// until issue 38: at 800 the picture of a 14×14 board alone (about 34 KB as a
/// palette PNG, 46 KB in base64) is more than the 40 KB a whole board mail may
/// weigh.
const MAIL_PICTURE_PX: u32 = 640;

/// The move forms the game reads, with examples from `seat`'s legal moves in
/// `state` (`write moves like Nf3, Sf3, …`): the variant's own words, so a
/// player never gets another game's notation.
pub(super) fn move_forms(game: &Loaded, state: &str, seat: Seat) -> Option<String> {
    game.rules.move_forms(state, seat).ok()
}

/// `north (Bob)`: the reader's partner in a game played in teams (issue 32).
fn partner_words(game: &Loaded, seat: Seat) -> Option<String> {
    let p = super::view::partner_of(game, seat)?;
    Some(format!("{} ({})", game.seat_name(p), game.seats.get(p.index())?.name))
}

fn to_move_names(game: &Loaded, state: &str) -> Result<Vec<String>, StewardError> {
    Ok(game.rules.seats_to_move(state).map_err(internal)?.iter().map(|s| game.seat_name(s)).collect())
}

/// The web links a mail to `seat` carries: the game page, the rules for
/// players and, in board mails (`sign_in`: the time the mail is made), the
/// seat's private link that signs its player in on the web (issue 17) for
/// [`SIGN_IN_DAYS`](crate::protocol::capability::SIGN_IN_DAYS): the sign-in key
/// travels in the fragment, which browsers never send to a server, and the
/// page's script trades it for a session cookie.
pub(super) fn links(steward: &Steward, game: &Loaded, seat: Seat, sign_in: Option<DateTime<Utc>>) -> Value {
    let page = format!("{}/games/{}", steward.public_url, game.row.id);
    let name = game.seat_name(seat);
    let sign_in = sign_in.map(|now| {
        let until = (now + chrono::Duration::days(crate::protocol::capability::SIGN_IN_DAYS)).date_naive();
        let key = crate::protocol::capability::sign_in_key(
            &steward.keys,
            game.row.id.as_str(),
            &name,
            &game.seats[seat.index()].email,
            until,
        );
        format!("{page}#sign-in={name}.{key}")
    });
    context! { rules => format!("{page}/rules"), page => page, sign_in => sign_in }
}

/// What every short mail to one seat (an answer, a notice) gives its template:
/// the game, its variant, the seat, the player, the text and the steward's URL.
pub(super) fn seat_context(steward: &Steward, game: &Loaded, seat: Seat, text: String) -> Value {
    context! {
        game => game.row.id.as_str(),
        variant => game.row.variant.name(),
        seat_name => game.seat_name(seat),
        player => game.seats[seat.index()].name.clone(),
        text => text,
        public_url => steward.public_url.as_str(),
        links => links(steward, game, seat, None),
    }
}

/// What every mail says about trust: the steward's key and the signed head.
pub(super) fn trust(steward: &Steward, game: &Loaded, head: &Head) -> Value {
    context! {
        fingerprint => steward.keys.fingerprint(),
        head_seq => head.seq,
        head_hash => head.hash.clone(),
        head_signature => head.signature.clone(),
        auth => game.row.auth.name(),
        secrecy => game.row.secrecy.name(),
        commit_reveal => game.row.secrecy == crate::protocol::policy::Secrecy::CommitReveal,
        signed => game.row.auth == crate::protocol::policy::Auth::Signature,
        // issue 33: the seats' registered OpenPGP keys, by fingerprint.
        openpgp_keys => game
            .seats
            .iter()
            .filter_map(|s| {
                let key = crate::protocol::openpgp::key::PlayerPgpKey::parse(s.openpgp_key.as_deref()?).ok()?;
                Some(context! { seat => game.seat_name(s.seat), fingerprint => key.fingerprint() })
            })
            .collect::<Vec<_>>(),
    }
}

/// The mails that open a game, one per seat.
pub(super) fn started(
    steward: &Steward,
    game: &Loaded,
    head: &Head,
    now: DateTime<Utc>,
    clocks: &[String],
    mail: &[MailSettings],
) -> Result<Vec<OutboxRow>, StewardError> {
    let (from, public_url) = (&steward.from, steward.public_url.as_str());
    let to_move = game.rules.seats_to_move(&game.row.state).map_err(internal)?;
    let seats: Vec<_> =
        game.seats.iter().map(|s| context! { seat => game.seat_name(s.seat), name => s.name.clone() }).collect();
    // A long value (a board given as data) is named by its size, not quoted.
    let options: Vec<String> = game
        .row
        .options
        .iter()
        .map(|(k, v)| if v.len() > 60 { format!("{k}=({} bytes)", v.len()) } else { format!("{k}={v}") })
        .collect();
    let mut boards = Boards::new(game, &game.row.state, Vec::new(), to_move)?;
    // What every reader's letter says alike, made once for all of them.
    let (trust, clocks) = (trust(steward, game, head), Value::from(clocks.to_vec()));
    game.seats
        .iter()
        .map(|s| {
            let you_owe = to_move.contains(s.seat);
            let subject = if you_owe {
                format!("Game {} ({}) begins: your move", game.row.id, game.row.variant)
            } else {
                format!("Game {} ({}) begins", game.row.id, game.row.variant)
            };
            let picture = boards.picture_for(s.seat);
            // The player's picture setting (issue 32); the start mail always goes.
            let setting = mail.get(s.seat.index()).copied().unwrap_or_default();
            Ok(queue(Draft {
                from,
                game: &game.row.id,
                turn: 0,
                seat: s.seat.index(),
                kind: MailKind::Started,
                to_name: &s.name,
                to_email: &s.email,
                subject,
                template: "started.txt",
                context: context! {
                    game => game.row.id.as_str(),
                    variant => game.row.variant.name(),
                    seat_name => game.seat_name(s.seat),
                    seats => seats.clone(),
                    options => options.join(", "),
                    you_owe => you_owe,
                    move_number => super::numbers::owed(None, &to_move.iter().collect::<Vec<_>>(), s.seat),
                    forms => if you_owe { move_forms(game, &game.row.state, s.seat) } else { None },
                    to_move => to_move_names(game, &game.row.state)?.join(" and "),
                    clocks => clocks.clone(),
                    public_url => public_url,
                    links => links(steward, game, s.seat, Some(now)),
                    trust => trust.clone(),
                    picture_link => super::mail_settings::picture_link(steward, game, s.seat, setting),
                },
                date: now,
                extras: Extras {
                    html: Some("started.html"),
                    text_board: picture.source.clone(),
                    picture: (setting.pictures == Pictures::Attached).then_some(picture),
                    reply_to: steward.reply_address(game, s.seat, game.row.turn),
                    ..Extras::default()
                },
            })?)
        })
        .collect()
}

/// What the board mails after a turn tell each reader besides the board.
#[derive(Clone, Copy)]
pub(super) struct Readers<'a> {
    /// The clocks' lines, one per seat.
    pub clocks: &'a [String],
    /// The conditional lines that fired or were dropped, and whose reply is played next.
    pub conditional: &'a super::conditional::ConditionalMail,
    /// Each seat's mail setting.
    pub mail: &'a [MailSettings],
    /// Where the record ends, for the move numbers.
    pub end: crate::letters::record::RecordEnd,
}

/// The board mails after a resolved turn, one per seat: each lists the moves
/// since its reader's own last move, numbered as the game's record, and the
/// whole record below the board — both read as the mail is formatted, off the
/// store thread ([`RecordQuery`]). Called after the turn's moves are settled.
pub(super) fn turn(
    steward: &Steward,
    game: &Loaded,
    r: &TextResolution,
    head: &Head,
    now: DateTime<Utc>,
    readers: &Readers<'_>,
) -> Result<Vec<OutboxRow>, StewardError> {
    let Readers { clocks, conditional, mail, end } = *readers;
    let (from, public_url) = (&steward.from, steward.public_url.as_str());
    let turn = game.row.turn;
    let outcome = r.outcome.map(|o| game.outcome_text(o));
    let to_move =
        if outcome.is_some() { SeatSet::EMPTY } else { game.rules.seats_to_move(&r.state).map_err(internal)? };
    // The moves played, as the board picture of the game page marks them.
    let played = r.moves.iter().filter(|m| matches!(m.result, SeatResult::Played | SeatResult::First));
    // `game` still holds the state the turn was played in.
    let paths: Vec<MovePath> = played.filter_map(|m| game.rules.move_path(Some(&game.row.state), &m.mv)).collect();
    let mut boards = Boards::new(game, &r.state, paths, to_move)?;
    // What every reader's letter says alike, made once for all of them.
    let (trust, clocks, notes) =
        (trust(steward, game, head), Value::from(clocks.to_vec()), Value::from(r.notes.clone()));
    game.seats
        .iter()
        .filter(|s| {
            // A seat whose conditional reply is played right after this turn
            // is not asked for it (issue 32).
            if conditional.firing.contains(s.seat) {
                return false;
            }
            // The player's mail setting (issue 32): the mail that ends the game always goes.
            let setting = mail.get(s.seat.index()).copied().unwrap_or_default();
            outcome.is_some() || super::mail_settings::wants_board_mail(setting, to_move.contains(s.seat))
        })
        .map(|s| {
            let you_owe = to_move.contains(s.seat);
            let setting = mail.get(s.seat.index()).copied().unwrap_or_default();
            // The move number as the game's record counts it, the same in the
            // subject and the body's header (issue 32).
            let owing: Vec<Seat> = to_move.iter().collect();
            let headline = super::numbers::headline(game, &owing, end, s.seat);
            let move_number = super::numbers::owed(end, &owing, s.seat);
            let subject = match (&outcome, &headline) {
                (Some(o), _) => format!("Game {} is over: {o}", game.row.id),
                (None, Some(h)) => format!("Game {}, {h}", game.row.id),
                (None, None) => format!("Game {}: turn {turn} played", game.row.id),
            };
            let picture = boards.picture_for(s.seat);
            Ok(queue(Draft {
                from,
                game: &game.row.id,
                turn,
                seat: s.seat.index(),
                kind: MailKind::Turn,
                to_name: &s.name,
                to_email: &s.email,
                subject,
                template: "turn.txt",
                context: context! {
                    game => game.row.id.as_str(),
                    variant => game.row.variant.name(),
                    turn => turn,
                    next_turn => turn + 1,
                    headline => headline,
                    move_number => move_number,
                    partner => partner_words(game, s.seat),
                    seat_name => game.seat_name(s.seat),
                    player => s.name.clone(),
                    notes => notes.clone(),
                    outcome => outcome.clone(),
                    you_owe => you_owe,
                    to_move => to_move.iter().map(|t| game.seat_name(t)).collect::<Vec<_>>().join(" and "),
                    state => r.state.clone(),
                    clocks => clocks.clone(),
                    conditional => conditional.notices.get(&s.seat).cloned(),
                    public_url => public_url,
                    links => links(steward, game, s.seat, Some(now)),
                    trust => trust.clone(),
                    picture_link => super::mail_settings::picture_link(steward, game, s.seat, setting),
                    mail_setting => setting.describe(),
                },
                date: now,
                extras: Extras {
                    html: Some("turn.html"),
                    text_board: picture.source.clone(),
                    picture: (setting.pictures == Pictures::Attached).then_some(picture),
                    record: Some(RecordQuery::new(&game.row.id, game.row.variant, &game.row.options, turn, s.seat)),
                    // Worked out from the board's position when formatted.
                    forms: you_owe,
                    reply_to: steward.reply_address(game, s.seat, turn + 1),
                    ..Extras::default()
                },
            })?)
        })
        .collect()
}

/// What a notice is about.
pub(super) enum Notice {
    /// A seat offered a draw (not sent to that seat).
    DrawOffer(Seat),
    /// A seat declined.
    DrawDeclined,
    /// The game ended outside a turn.
    Ended,
    /// A seat resigned and play goes on without it.
    Retired(Seat),
    /// A seat committed (commit-reveal games; sent to every seat).
    Committed(Seat),
    /// Every seat has committed: reveal now.
    RevealNow,
}

/// A short notice to the seats.
pub(super) fn notice(
    steward: &Steward,
    game: &Loaded,
    what: Notice,
    text: &str,
    outcome: Option<Outcome>,
    head: &Head,
    now: DateTime<Utc>,
) -> Result<Vec<OutboxRow>, StewardError> {
    let (kind, suffix, skip) = match what {
        // A seat may offer, decline and offer again in one turn: the transcript
        // place keeps each notice's Message-ID its own.
        Notice::DrawOffer(s) => (MailKind::DrawOffer, format!("-{}-{}", s.index(), head.seq), Some(s)),
        Notice::DrawDeclined => (MailKind::DrawOffer, format!("-declined-{}", head.seq), None),
        Notice::Ended => (MailKind::Ended, String::new(), None),
        Notice::Retired(s) => (MailKind::Ended, format!("-retired-{}", s.index()), None),
        Notice::Committed(s) => (MailKind::Committed, format!("-{}", s.index()), None),
        Notice::RevealNow => (MailKind::Reveal, String::new(), None),
    };
    to_seats(steward, game, kind, &suffix, skip, text, |_| text.to_owned(), outcome, head, now)
}

/// A notice on notice.txt to every seat of `game` but `skip`: the subject says
/// `subject` (or the outcome, once there is one), the body `text(seat)`.
#[allow(clippy::too_many_arguments)]
pub(super) fn to_seats(
    steward: &Steward,
    game: &Loaded,
    kind: MailKind,
    suffix: &str,
    skip: Option<Seat>,
    subject: &str,
    text: impl Fn(Seat) -> String,
    outcome: Option<Outcome>,
    head: &Head,
    now: DateTime<Utc>,
) -> Result<Vec<OutboxRow>, StewardError> {
    let outcome = outcome.map(|o| game.outcome_text(o));
    // The same for every reader: made once.
    let trust = trust(steward, game, head);
    game.seats
        .iter()
        .filter(|s| Some(s.seat) != skip)
        .map(|s| {
            let subject = match &outcome {
                Some(o) => format!("Game {} is over: {o}", game.row.id),
                None => format!("Game {}: {subject}", game.row.id),
            };
            Ok(queue_with_suffix(
                Draft {
                    from: &steward.from,
                    game: &game.row.id,
                    turn: game.row.turn,
                    seat: s.seat.index(),
                    kind,
                    to_name: &s.name,
                    to_email: &s.email,
                    subject,
                    template: "notice.txt",
                    context: context! {
                        game => game.row.id.as_str(),
                        variant => game.row.variant.name(),
                        seat_name => game.seat_name(s.seat),
                        player => s.name.clone(),
                        text => text(s.seat),
                        outcome => outcome.clone(),
                        public_url => steward.public_url.as_str(),
                        links => links(steward, game, s.seat, None),
                        trust => trust.clone(),
                    },
                    date: now,
                    extras: Extras {
                        reply_to: steward.reply_address(game, s.seat, game.row.turn),
                        ..Extras::default()
                    },
                },
                suffix,
            )?)
        })
        .collect()
}
