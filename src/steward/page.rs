//! What the web pages show (issue 17): a game as one viewer sees it (a seat
//! signed in, or a spectator), signing in with a board mail's private link or a
//! seat token, a player's games, and a game's record for export. Everything is
//! read in one transaction and told through the variant; nothing here knows a
//! game, and a pending move shows to its own seat only.

use std::collections::BTreeMap;

use serde::Serialize;

use super::board::{BoardPicture, board_picture};
use super::view::{GameView, game_view, visible_turns};
use super::{Credential, Loaded, Refusal, Steward, StewardError, authenticate, load};
use crate::ids::SeatToken;
use crate::letters::record::{self, RecordMove};
use crate::protocol::policy::{Auth, Secrecy};
use crate::rules::{GameRecord, RecordedTurn, Seat, SeatMove, SeatResult};
use crate::store::{Tx, time_text};

/// A legal move of the viewer, as the page's script offers it: its canonical
/// text (what the form sends), its notation and the names of the cells its
/// path passes (from, every cell passed or jumped, to), or, for a move whose
/// path is not on the board drawn now, the cells that offer it.
#[derive(Clone, Debug, Serialize)]
pub struct PlayableMove {
    /// The canonical text.
    pub text: String,
    /// The players' notation.
    pub notation: String,
    /// The path's cells by name, in order; empty when the path is not all on
    /// the board drawn now.
    pub path: Vec<String>,
    /// For a move without a path on the board: the cells where a player takes
    /// hold of it (see [`crate::rules::MovePath::grip`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub grip: Vec<String>,
}

/// How the viewer's seat sends its move from the page.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MoveForm {
    /// Click or type: the page's own form (token games without commit-reveal).
    Plain,
    /// A game that wants signed or committed moves: the exact command that
    /// makes the envelope, which the page takes pasted.
    Command {
        /// What to run.
        command: String,
        /// What the command is for, in words.
        why: String,
    },
}

/// The seat the page is seen by.
#[derive(Clone, Debug, Serialize)]
pub struct ViewerView {
    /// The seat's name.
    pub seat: String,
    /// The player's name.
    pub player: String,
    /// Whether the seat owes a move now (and has not sent it).
    pub owes_move: bool,
    /// The seat's own move for this turn, while the turn is open.
    pub pending_move: Option<String>,
    /// Whether the seat offers a draw.
    pub draw_offer: bool,
    /// Whether another seat offers a draw now.
    pub draw_offered: bool,
    /// How the seat moves from the page.
    pub form: MoveForm,
    /// The other seats the same player holds in this game (a player may
    /// switch between them).
    pub other_seats: Vec<String>,
    /// The seat's time zone (IANA), if it gave one.
    pub time_zone: Option<String>,
    /// The move number the seat owes now (`12...`; issue 32), if it owes one.
    pub move_number: Option<String>,
}

/// A move in the page's record.
#[derive(Clone, Debug, Serialize)]
pub struct RecordEntry {
    /// `12.` or `12...`, as the variant numbers the record.
    pub number: String,
    /// Whose move.
    pub seat: String,
    /// As played.
    pub notation: String,
    /// `played`, `first` or `struck`.
    pub status: &'static str,
    /// Why a struck move was struck.
    pub reason: Option<String>,
}

/// A resolved turn in the page's record.
#[derive(Clone, Debug, Serialize)]
pub struct RecordTurnView {
    /// The turn.
    pub turn: u32,
    /// Its moves, numbered.
    pub moves: Vec<RecordEntry>,
    /// Remarks (meetings on one square, a switch of mode).
    pub notes: Vec<String>,
    /// The cells the board marks after the turn (paused pieces), by name.
    pub marked_after: Vec<String>,
    /// When it was resolved.
    pub resolved_at: String,
}

/// A game as its page shows it to one viewer.
pub struct PageView {
    /// The game as the API shows it to the viewer (held back by the spectator
    /// delay for spectators).
    pub game: GameView,
    /// The seat signed in, if the viewer holds one.
    pub viewer: Option<ViewerView>,
    /// The board as the viewer sees it.
    pub board: BoardPicture,
    /// The resolved turns the viewer sees, numbered.
    pub record: Vec<RecordTurnView>,
    /// The viewer's legal moves when it owes one and moves from the page.
    pub legal: Vec<PlayableMove>,
    /// The cells marked now (paused pieces), by name.
    pub marked: Vec<String>,
    /// The steward's key fingerprint.
    pub fingerprint: String,
    /// Whether the variant writes PGN.
    pub has_pgn: bool,
    /// Since when the turn now owed is open (the last resolution, or the
    /// game's creation), RFC 3339.
    pub turn_since: String,
}

/// One of a player's games, for the player's page.
#[derive(Clone, Debug, Serialize)]
pub struct PlayerGame {
    /// The game's id.
    pub id: String,
    /// Its variant.
    pub variant: String,
    /// The seats the player holds in it.
    pub seats: Vec<String>,
    /// Everyone at the table: `white: Alice`.
    pub table: Vec<String>,
    /// The turn now owed.
    pub turn: u32,
    /// Whether one of the player's seats owes a move now.
    pub your_move: bool,
    /// The seats that owe a move now.
    pub to_move: Vec<String>,
    /// The earliest deadline of the player's seats (UTC), if clocks run.
    pub deadline: Option<String>,
    /// The result, once over.
    pub outcome: Option<String>,
    /// When it last changed.
    pub updated_at: String,
}

/// A game's record for export: the variant-independent JSON and, for variants
/// with a PGN form, the PGN.
pub struct RecordExport {
    /// The record as JSON (every variant).
    pub json: RecordJson,
    /// The PGN, if the variant writes one.
    pub pgn: Option<String>,
}

/// A game's record as JSON (`GET /api/games/{id}/record.json`), for every
/// variant, as far as the viewer may see it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct RecordJson {
    /// The game's id.
    pub game: String,
    /// The variant's name.
    pub variant: String,
    /// The game's options as it was created with them.
    #[schema(value_type = Object)]
    pub options: serde_json::Map<String, serde_json::Value>,
    /// The game's page.
    pub site: String,
    /// When the game was created (RFC 3339, UTC).
    pub created_at: String,
    /// The seats in the variant's order, with their players' names.
    pub seats: Vec<RecordSeat>,
    /// The state the game started from.
    pub start: String,
    /// Every resolved turn the viewer may see, in order.
    pub turns: Vec<RecordJsonTurn>,
    /// The state after the last turn shown.
    pub state: String,
    /// Whether the viewer sees the game held back by the spectator delay.
    pub delayed: bool,
    /// The end of the game; null while it runs.
    pub outcome: Option<super::view::OutcomeView>,
    /// The transcript's newest entry as the steward signed it.
    pub transcript_head: Option<super::Head>,
}

/// A seat and its player, in a record.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct RecordSeat {
    /// The seat's name in the variant.
    pub seat: String,
    /// The player's name.
    pub player: String,
}

/// A resolved turn in a record.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct RecordJsonTurn {
    /// The turn number, from 1.
    pub turn: u32,
    /// When it was resolved (RFC 3339, UTC).
    pub resolved_at: String,
    /// Each seat's move, in seat order.
    pub moves: Vec<RecordJsonMove>,
    /// Remarks for the players.
    pub notes: Vec<String>,
    /// The state the turn produced.
    pub state: String,
}

/// A seat's move in a resolved turn of a record.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct RecordJsonMove {
    /// The seat.
    pub seat: String,
    /// The move in the players' notation.
    #[serde(rename = "move")]
    pub notation: String,
    /// The move's canonical text.
    pub canonical: String,
    /// `played`, `first` (simultaneous moves: it came first) or `struck`.
    #[schema(value_type = String, pattern = "^(played|first|struck)$")]
    pub status: &'static str,
    /// Why it was struck; null otherwise.
    pub reason: Option<String>,
}

/// The viewer's seat of `credential` in `g` (none for spectators).
fn viewer_seat(tx: &Tx<'_>, g: &Loaded, credential: Option<&Credential>) -> Result<Option<Seat>, StewardError> {
    credential.map(|c| authenticate(tx, g, Some(c))).transpose()
}

/// The exact `fairsteward player` command for a game that takes no plain move
/// from the page, or `None` for one that does.
fn command_for(steward: &Steward, g: &Loaded, seat: Seat, phase: &str) -> Option<(String, String)> {
    let (id, name, turn, url) = (&g.row.id, g.seat_name(seat), g.row.turn, &steward.public_url);
    let key = if g.row.auth == Auth::Signature { " --key YOUR-KEY-FILE" } else { "" };
    match (g.row.secrecy, phase) {
        (Secrecy::CommitReveal, "reveal") => Some((
            format!("fairsteward player reveal --from turn{turn}.json{key}"),
            "This game uses commit-reveal, and every seat has committed: reveal the move you committed to. Paste the envelope the command prints below (or reply to the board mail with it).".to_owned(),
        )),
        (Secrecy::CommitReveal, _) => Some((
            format!("fairsteward player commit --game {id} --seat {name} --turn {turn} --move MOVE --save turn{turn}.json{key}"),
            "This game uses commit-reveal: first commit to your move without showing it; once every seat has committed, reveal it. Paste the envelope the command prints below (or reply to the board mail with it).".to_owned(),
        )),
        (Secrecy::Hold, _) if g.row.auth == Auth::Signature => Some((
            format!("fairsteward player sign --key YOUR-KEY-FILE --game {id} --seat {name} --turn {turn} --move MOVE | fairsteward player submit --url {url}"),
            "This game requires signed moves (auth = signature): sign your move with your key. The command sends it; or paste the envelope it prints below.".to_owned(),
        )),
        _ => None,
    }
}

/// The turns of `g` that `viewer` sees, numbered as the variant's record.
fn record_view(tx: &Tx<'_>, g: &Loaded, viewer: Option<Seat>) -> Result<Vec<RecordTurnView>, StewardError> {
    let turns = tx.turns(&g.row.id)?;
    let visible = visible_turns(g, turns.len(), viewer);
    let moves = tx.moves_of_game(&g.row.id)?;
    let recorded: Vec<RecordMove> = moves
        .into_iter()
        .filter(|m| (m.turn as usize) <= visible)
        .filter_map(|m| {
            let result = settled(&m)?;
            Some(RecordMove {
                turn: m.turn,
                seat: m.seat,
                seat_name: g.seat_name(m.seat),
                notation: m.notation,
                result,
            })
        })
        .collect();
    let numbered = record::numbered(recorded);
    // Grouped by turn once: a long game's record costs its length, not its square.
    let mut by_turn: BTreeMap<u32, Vec<_>> = BTreeMap::new();
    for n in &numbered {
        by_turn.entry(n.mv.turn).or_default().push(n);
    }
    Ok(turns
        .into_iter()
        .take(visible)
        .map(|t| {
            let entries = by_turn
                .remove(&t.turn)
                .unwrap_or_default()
                .into_iter()
                .map(|n| RecordEntry {
                    number: n.label(),
                    seat: n.mv.seat_name.clone(),
                    notation: n.mv.notation.clone(),
                    status: n.mv.result.as_str(),
                    reason: match &n.mv.result {
                        SeatResult::Struck(why) if !why.is_empty() => Some(why.clone()),
                        _ => None,
                    },
                })
                .collect();
            let marked_after = g.rules.board(&t.state_after).map(|b| marked_names(&b)).unwrap_or_default();
            RecordTurnView {
                turn: t.turn,
                moves: entries,
                notes: t.notes,
                marked_after,
                resolved_at: time_text(t.resolved_at),
            }
        })
        .collect())
}

/// What became of a stored move, once its turn is resolved; `None` while it
/// is pending (not part of the record until its turn resolves).
fn settled(m: &crate::store::MoveRow) -> Option<SeatResult> {
    match m.status.as_str() {
        "played" => Some(SeatResult::Played),
        "first" => Some(SeatResult::First),
        "struck" => Some(SeatResult::Struck(m.reason.clone().unwrap_or_default())),
        _ => None,
    }
}

/// The names of the cells a board marks (paused pieces).
fn marked_names(view: &crate::rules::BoardView) -> Vec<String> {
    view.marked.iter().filter_map(|c| view.shape.cell(*c)).map(|c| c.name.clone()).collect()
}

/// The legal moves of `seat` in `state`, with notation and path by cell name.
fn playable(g: &Loaded, state: &str, seat: Seat, board: &crate::rules::BoardView) -> Vec<PlayableMove> {
    let Ok(moves) = g.rules.legal_moves(state, seat) else { return Vec::new() };
    moves
        .into_iter()
        .map(|text| {
            // Names only when every cell is drawn: a path off the board is
            // taken hold of by its grip instead.
            let names = |cells: &[crate::rules::Cell]| -> Option<Vec<String>> {
                cells.iter().map(|c| board.shape.cell(*c).map(|c| c.name.clone())).collect()
            };
            let drawn = g.rules.move_path(Some(state), &text);
            let path = drawn.as_ref().and_then(|p| names(&p.cells)).unwrap_or_default();
            let grip = match drawn {
                Some(p) if path.is_empty() => names(&p.grip).unwrap_or_default(),
                _ => Vec::new(),
            };
            let notation = g.rules.notation(state, seat, &text).unwrap_or_else(|_| text.clone());
            PlayableMove { text, notation, path, grip }
        })
        .collect()
}

impl Steward {
    /// The game page's view of `game` for the seat `credential` proves, or for a
    /// spectator (none).
    ///
    /// # Errors
    /// Unknown game; a credential that is given but wrong.
    pub async fn page(&self, game: String, credential: Option<Credential>) -> Result<PageView, StewardError> {
        let this = self.clone();
        self.store
            .transaction(move |tx| {
                let g = load(tx, &game)?;
                let seat = viewer_seat(tx, &g, credential.as_ref())?;
                let view = game_view(&this, tx, &g, seat)?;
                let board = board_picture(tx, &g, seat.unwrap_or(Seat::new(0)), seat)?;
                let record = record_view(tx, &g, seat)?;
                let mut legal = Vec::new();
                let viewer = match seat {
                    None => None,
                    Some(s) => {
                        let me = &view.seats[s.index()];
                        let command = command_for(&this, &g, s, &view.phase);
                        if me.owes_move && command.is_none() {
                            legal = playable(&g, &g.row.state, s, &board.view);
                        }
                        let address = &g.seats[s.index()].email;
                        let zones = tx.time_zones(&g.row.id)?;
                        Some(ViewerView {
                            seat: me.seat.clone(),
                            player: me.player.clone(),
                            owes_move: me.owes_move,
                            pending_move: me.pending_move.clone(),
                            draw_offer: me.draw_offer,
                            draw_offered: view.seats.iter().any(|o| o.seat != me.seat && o.draw_offer),
                            form: match command {
                                Some((command, why)) => MoveForm::Command { command, why },
                                None => MoveForm::Plain,
                            },
                            other_seats: g
                                .seats
                                .iter()
                                .filter(|o| o.seat != s && o.email.eq_ignore_ascii_case(address))
                                .map(|o| g.seat_name(o.seat))
                                .collect(),
                            time_zone: zones.get(s.index()).cloned().flatten(),
                            move_number: me.move_number.clone(),
                        })
                    }
                };
                let turn_since = tx.turns(&g.row.id)?.last().map_or(g.row.created_at, |t| t.resolved_at);
                Ok(PageView {
                    turn_since: time_text(turn_since),
                    marked: marked_names(&board.view),
                    game: view,
                    viewer,
                    board,
                    record,
                    legal,
                    fingerprint: this.keys.fingerprint(),
                    has_pgn: crate::rules::record::writes_pgn(g.rules.as_ref()),
                })
            })
            .await
    }

    /// Checks a board mail's private link: `key` must be the sign-in key of
    /// `seat` (its name) in `game` for the seat's registered address, which is
    /// returned (lower case): the web session's player.
    ///
    /// # Errors
    /// Unknown game or seat; a key that does not match ([`Refusal::BadToken`]).
    pub async fn sign_in(&self, game: String, seat: String, key: String) -> Result<String, StewardError> {
        let keys = self.keys_arc();
        let today = self.now().date_naive();
        self.store
            .transaction(move |tx| {
                let g = load(tx, &game)?;
                let s = g.rules.seat(&seat).map_err(|_| Refusal::BadToken)?;
                let address = &g.seats.get(s.index()).ok_or(Refusal::BadToken)?.email;
                let ok = crate::protocol::capability::sign_in_matches(
                    &keys,
                    g.row.id.as_str(),
                    &g.seat_name(s),
                    address,
                    &key,
                    today,
                );
                if ok { Ok(address.to_ascii_lowercase()) } else { Err(Refusal::BadToken.into()) }
            })
            .await
    }

    /// Signs in with a seat's token (of any game): the token's game and the
    /// seat's registered address (lower case). The session it opens holds
    /// that game only.
    ///
    /// # Errors
    /// A token that is no seat's ([`Refusal::BadToken`]).
    pub async fn sign_in_with_token(&self, token: String) -> Result<(String, String), StewardError> {
        let token = token.trim().to_owned();
        if token.is_empty() {
            return Err(Refusal::BadToken.into());
        }
        self.store
            .transaction(move |tx| {
                let (game, _, email) =
                    tx.seat_by_token(&SeatToken::from_presented(&token).hash())?.ok_or(Refusal::BadToken)?;
                Ok((game.to_string(), email.to_ascii_lowercase()))
            })
            .await
    }

    /// Whether `player` (a mail address) holds a seat in any game: a web
    /// session stays valid only while it does.
    ///
    /// # Errors
    /// Store failures.
    pub async fn is_player(&self, player: String) -> Result<bool, StewardError> {
        self.store.transaction(move |tx| Ok(!tx.games_of(&player)?.is_empty())).await
    }

    /// Every game in which `player` (a mail address) holds a seat, newest first,
    /// with whose move it is and the player's next deadline.
    ///
    /// # Errors
    /// Store failures.
    pub async fn player_games(&self, player: String) -> Result<Vec<PlayerGame>, StewardError> {
        let this = self.clone();
        self.store
            .transaction(move |tx| {
                let mut out = Vec::new();
                for id in tx.games_of(&player)? {
                    let g = load(tx, id.as_str())?;
                    let mine: Vec<Seat> =
                        g.seats.iter().filter(|s| s.email.eq_ignore_ascii_case(&player)).map(|s| s.seat).collect();
                    let view = game_view(&this, tx, &g, mine.first().copied())?;
                    let own = |name: &String| mine.iter().any(|&s| g.seat_name(s) == *name);
                    let deadline = view
                        .seats
                        .iter()
                        .filter(|s| own(&s.seat))
                        .filter_map(|s| s.clock.as_ref().and_then(|c| c.deadline.clone()))
                        .min();
                    out.push(PlayerGame {
                        your_move: view.to_move.iter().any(own),
                        seats: mine.iter().map(|&s| g.seat_name(s)).collect(),
                        table: view.seats.iter().map(|s| format!("{}: {}", s.seat, s.player)).collect(),
                        id: view.id,
                        variant: view.variant,
                        turn: view.turn,
                        to_move: view.to_move,
                        deadline,
                        outcome: view.outcome.map(|o| format!("{} ({})", o.result, o.reason)),
                        updated_at: view.updated_at,
                    });
                }
                Ok(out)
            })
            .await
    }

    /// The record of `game` for export, as far as the viewer (the seat of
    /// `credential`, or a spectator) may see it: JSON for every variant, PGN for
    /// those that write it.
    ///
    /// # Errors
    /// Unknown game; a credential that is given but wrong.
    pub async fn record(&self, game: String, credential: Option<Credential>) -> Result<RecordExport, StewardError> {
        let this = self.clone();
        self.store
            .transaction(move |tx| {
                let g = load(tx, &game)?;
                let seat = viewer_seat(tx, &g, credential.as_ref())?;
                let turns = tx.turns(&g.row.id)?;
                let visible = visible_turns(&g, turns.len(), seat);
                let mut moves: BTreeMap<u32, Vec<_>> = BTreeMap::new();
                for m in tx.moves_of_game(&g.row.id)? {
                    moves.entry(m.turn).or_default().push(m);
                }
                let start = turns.first().map_or_else(|| g.row.state.clone(), |t| t.state_before.clone());
                let recorded: Vec<RecordedTurn> = turns
                    .iter()
                    .take(visible)
                    .map(|t| RecordedTurn {
                        turn: t.turn,
                        before: t.state_before.clone(),
                        after: t.state_after.clone(),
                        moves: moves
                            .remove(&t.turn)
                            .unwrap_or_default()
                            .into_iter()
                            .filter_map(|m| {
                                let result = settled(&m)?;
                                Some(SeatMove { seat: m.seat, mv: m.canonical, notation: m.notation, result })
                            })
                            .collect(),
                        notes: t.notes.clone(),
                    })
                    .collect();
                let outcome = g.row.outcome;
                let record = GameRecord {
                    game: g.row.id.to_string(),
                    site: format!("{}/games/{}", this.public_url, g.row.id),
                    date: g.row.created_at.format("%Y.%m.%d").to_string(),
                    players: g.seats.iter().map(|s| s.name.clone()).collect(),
                    start: start.clone(),
                    turns: recorded,
                    outcome,
                };
                let pgn = g.rules.pgn(&record);
                let view = game_view(&this, tx, &g, seat)?;
                let json = RecordJson {
                    game: record.game.clone(),
                    variant: g.row.variant.name().to_owned(),
                    options: view.options,
                    site: record.site.clone(),
                    created_at: time_text(g.row.created_at),
                    seats: view
                        .seats
                        .iter()
                        .map(|s| RecordSeat { seat: s.seat.clone(), player: s.player.clone() })
                        .collect(),
                    start,
                    turns: record
                        .turns
                        .iter()
                        .zip(&turns)
                        .map(|(t, row)| RecordJsonTurn {
                            turn: t.turn,
                            resolved_at: time_text(row.resolved_at),
                            moves: t
                                .moves
                                .iter()
                                .map(|m| RecordJsonMove {
                                    seat: g.seat_name(m.seat),
                                    notation: m.notation.clone(),
                                    canonical: m.mv.clone(),
                                    status: m.result.as_str(),
                                    reason: match &m.result {
                                        SeatResult::Struck(why) => Some(why.clone()),
                                        _ => None,
                                    },
                                })
                                .collect(),
                            notes: t.notes.clone(),
                            state: t.after.clone(),
                        })
                        .collect(),
                    state: view.state,
                    delayed: view.delayed,
                    outcome: view.outcome,
                    transcript_head: view.transcript_head,
                };
                Ok(RecordExport { json, pgn })
            })
            .await
    }
}
