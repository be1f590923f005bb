//! The `Variant` trait, a game's rulebook, and its object-safe face `DynVariant`.

use std::fmt;

use super::*;

/// A game's rulebook: one type per variant, its options applied at construction.
///
/// Required methods carry the variant's rules; provided ones (`check_move`,
/// `resolve`, `perft`) are the same for every variant and are not overridden.
pub trait Variant {
    /// A position, with everything the rules need to continue (not the history).
    type State: Clone + Eq + fmt::Debug + fmt::Display;
    /// A move as fixed at entry; `Display` is the canonical form (chess: UCI).
    type Move: Clone + Eq + Ord + fmt::Debug + fmt::Display;

    /// Which variant this is.
    fn id(&self) -> VariantId;

    /// The seat names, in seat order; their number is the number of seats.
    fn seat_names(&self) -> &'static [&'static str];

    /// The start state.
    fn start(&self) -> Self::State;

    /// Reads a state string as the rules file defines it, refusing inconsistent ones.
    ///
    /// # Errors
    /// A [`StateError`] listing every problem.
    fn parse_state(&self, text: &str) -> Result<Self::State, StateError>;

    /// The seats that owe a move in `state`, ignoring whether the game has ended.
    fn seats_to_move(&self, state: &Self::State) -> SeatSet;

    /// The legal moves of `seat` in `state`, sorted by canonical text (byte order);
    /// empty for a seat that is not to move.
    fn legal_moves(&self, state: &Self::State, seat: Seat) -> Vec<Self::Move>;

    /// How many legal moves `seat` has; override when cheaper than listing them.
    fn count_legal_moves(&self, state: &Self::State, seat: Seat) -> usize {
        self.legal_moves(state, seat).len()
    }

    /// Reads a move that `seat` enters in `state`, in any notation the rules file
    /// accepts, and checks that it names exactly one legal move.
    ///
    /// # Errors
    /// [`MoveError`]: not a move, illegal (with the reason), or ambiguous.
    fn parse_move(&self, state: &Self::State, seat: Seat, text: &str) -> Result<Self::Move, MoveError>;

    /// The move in the players' notation (SAN for chess games), in `state`.
    fn notation(&self, state: &Self::State, seat: Seat, mv: Self::Move) -> String;

    /// The legal move of `seat` in `state` whose canonical text is exactly
    /// `text`, if there is one. The steward stores moves as canonical text and
    /// reads them back through here first, then as any move text: a variant
    /// whose players' notation could read a canonical text as another move
    /// (Dreierschach with V2.3 cell names) overrides this. By default `None`.
    fn parse_canonical(&self, _state: &Self::State, _seat: Seat, _text: &str) -> Option<Self::Move> {
        None
    }

    /// Works one legal move per seat to move into the state, without judging
    /// whether the game has ended (`outcome` of the result is `None`).
    ///
    /// # Errors
    /// A missing, extra or illegal move; nothing is changed.
    fn advance(
        &self,
        state: &Self::State,
        moves: &[(Seat, Self::Move)],
    ) -> Result<Resolution<Self::State, Self::Move>, RulesError>;

    /// The state after a turn, without the notation and notes of a [`Resolution`];
    /// what `perft` walks. Override only to make it cheaper than `advance`.
    ///
    /// # Errors
    /// As [`Variant::advance`].
    fn next_state(&self, state: &Self::State, moves: &[(Seat, Self::Move)]) -> Result<Self::State, RulesError> {
        self.advance(state, moves).map(|r| r.state)
    }

    /// Whether the game has ended in `state`, given the earlier states of the game
    /// (start first, `state` itself not included) for repetition.
    fn outcome(&self, history: &[Self::State], state: &Self::State) -> Option<Outcome>;

    /// How much of the history the rules can still use from `state` on:
    /// `Some(n)` promises that [`Variant::outcome`] of `state` and
    /// [`Variant::resolve`] of a turn from `state` give the same result when
    /// `history` holds only its last `n` states (all of them when it has fewer)
    /// as with the whole of it. `None` (the default): every earlier state may
    /// count. The steward reads no more than this from the store on each turn.
    fn repetition_window(&self, _state: &Self::State) -> Option<usize> {
        None
    }

    /// The board as cells and pieces, for the renderers.
    fn board(&self, state: &Self::State) -> BoardView;

    /// The path of a canonical move, for marking the last moves on a board
    /// picture: from, every cell passed or jumped, to, and the cells it captures;
    /// `None` when the text names no such move. `before` is the state the move
    /// was played in, when the caller has it: with it the variant can tell
    /// captures (and, in chess, en passant and castling). The default reads
    /// square-grid coordinate moves (`e2e4`, `e7e8q`, `d2-d4`, `k10-k12`,
    /// `e13-e14=Q`, see [`board::coordinate_move_cells`]) as one step that
    /// captures what stood on its target; a variant whose canonical moves look
    /// different overrides it.
    fn move_path(&self, before: Option<&Self::State>, canonical: &str) -> Option<MovePath> {
        MovePath::of_coordinates(canonical, before.map(|s| self.board(s)).as_ref())
    }

    /// Where a player takes hold of the canonical move `canonical` on the board
    /// drawn for `before` when the move's path does not lie on that board (a
    /// board carried to a place drawn only once it stands there): the cells
    /// that offer the move on the web page. Empty, the default, for moves whose
    /// path is on the board.
    fn move_grip(&self, _before: &Self::State, _canonical: &str) -> Vec<Cell> {
        Vec::new()
    }

    /// The outcome when `seat` resigns in `state`: in two-seat games the other
    /// seat wins. Variants with more seats override it (`None`: play goes on).
    fn resignation(&self, _state: &Self::State, seat: Seat) -> Option<Outcome> {
        match self.seat_names().len() {
            2 => Some(Outcome::win(Seat::new(1 - seat.0), EndReason::Resignation)),
            _ => None,
        }
    }

    /// What `seat` resigning does to the game: the state after it (a variant
    /// where play goes on without the seat changes it), remarks, and the outcome
    /// if the game ends. By default the state stays and [`Variant::resignation`]
    /// decides.
    fn retire(&self, state: &Self::State, seat: Seat) -> (Self::State, Vec<String>, Option<Outcome>) {
        (state.clone(), Vec::new(), self.resignation(state, seat))
    }

    /// The outcome when the seats in `late` run out of time together in `state`
    /// (their deadlines fell at the same instant). In two-seat games the other
    /// seat wins on time, and both late at once is a draw. Variants with more
    /// seats follow their rules file; by default a timeout counts as the first
    /// late seat's resignation, with the reason `time` (`None`: play goes on
    /// without that seat). Chess overrides it for the lone king (rules/chess.md §5).
    fn timeout(&self, state: &Self::State, late: SeatSet) -> Option<Outcome> {
        let first = late.iter().next()?;
        match self.seat_names().len() {
            2 if late.len() >= 2 => Some(Outcome::draw(EndReason::Time)),
            2 => Some(Outcome::win(Seat::new(1 - first.0), EndReason::Time)),
            _ => self.resignation(state, first).map(|o| Outcome { reason: EndReason::Time, ..o }),
        }
    }

    /// The seats still in the game in `state`: those whose agreement a draw
    /// needs. By default every seat; a variant where seats drop out and play
    /// goes on (a seat with no stones left, say) leaves them out.
    fn seats_in_game(&self, _state: &Self::State) -> SeatSet {
        SeatSet::first(self.seat_names().len() as u8)
    }

    /// The outcome when every seat in the game agrees to a draw in `state`: by
    /// default a draw (reason `agreement`); a variant that scores a draw among
    /// the seats still playing, or in points of its own, overrides it.
    fn agreed_draw(&self, _state: &Self::State) -> Outcome {
        Outcome::draw(EndReason::Agreement)
    }

    /// `state` with the turns due in it played out: for a hand-made state whose
    /// seat to move cannot move, the passes or enclosures the rules file applies
    /// before play goes on (rules/trialectic-dame.md §8). By default the state
    /// itself: play never leaves such a state.
    fn settled(&self, state: &Self::State) -> Self::State {
        state.clone()
    }

    /// The name of `seat`.
    ///
    /// # Panics
    /// If `seat` is not a seat of this variant (an internal invariant).
    fn seat_name(&self, seat: Seat) -> &'static str /* FINAL */ {
        self.seat_names()[seat.index()]
    }

    /// Checks a move on receipt: the seat owes a move and the text names a legal one.
    ///
    /// # Errors
    /// [`RulesError::NotToMove`] or [`RulesError::Move`].
    fn check_move(&self, state: &Self::State, seat: Seat, text: &str) -> Result<Self::Move, RulesError> /* FINAL */ {
        if !self.seats_to_move(state).contains(seat) {
            return Err(RulesError::NotToMove { seat, seat_name: self.seat_name(seat), is_game_over: false });
        }
        self.parse_move(state, seat, text).map_err(|error| RulesError::Move {
            seat,
            seat_name: self.seat_name(seat),
            error,
        })
    }

    /// Resolves a complete turn: every seat to move gives exactly one legal move.
    /// `history` holds the game's earlier states (start first, `state` not included).
    ///
    /// # Errors
    /// The game is already over, a move is missing, extra or illegal; nothing changes.
    fn resolve(
        &self,
        history: &[Self::State],
        state: &Self::State,
        moves: &[(Seat, Self::Move)],
    ) -> Result<Resolution<Self::State, Self::Move>, RulesError> /* FINAL */ {
        if let Some(outcome) = self.outcome(history, state) {
            return Err(RulesError::GameOver(outcome));
        }
        let mut resolution = self.advance(state, moves)?;
        let mut seen: Vec<Self::State> = Vec::with_capacity(history.len() + 1);
        seen.extend_from_slice(history);
        seen.push(state.clone());
        resolution.outcome = self.outcome(&seen, &resolution.state);
        Ok(resolution)
    }

    /// Counts the move sequences of `depth` turns from `state` (simultaneous turns
    /// count every combination of the seats' moves); game ends are not judged.
    fn perft(&self, state: &Self::State, depth: u32) -> u64 /* FINAL */ {
        if depth == 0 {
            return 1;
        }
        if depth == 1 {
            // The leaves are counted, not played (and nothing is allocated for them).
            return self.seats_to_move(state).iter().map(|s| self.count_legal_moves(state, s) as u64).product();
        }
        let seats: Vec<Seat> = self.seats_to_move(state).iter().collect();
        let options: Vec<Vec<Self::Move>> = seats.iter().map(|&s| self.legal_moves(state, s)).collect();
        let mut total = 0;
        let mut choice = vec![0usize; seats.len()];
        if options.iter().any(Vec::is_empty) {
            return 0;
        }
        // One list for every combination, refilled in place: no allocation per move.
        let mut moves: Vec<(Seat, Self::Move)> = Vec::with_capacity(seats.len());
        loop {
            moves.clear();
            moves.extend(seats.iter().zip(&choice).zip(&options).map(|((&s, &i), m)| (s, m[i].clone())));
            if let Ok(next) = self.next_state(state, &moves) {
                total += self.perft(&next, depth - 1);
            }
            // Odometer over the seats' move lists.
            let mut k = 0;
            loop {
                if k == choice.len() {
                    return total;
                }
                choice[k] += 1;
                if choice[k] < options[k].len() {
                    break;
                }
                choice[k] = 0;
                k += 1;
            }
        }
    }

    /// Whether `text` is move text in this game's notation — a form its rules file
    /// reads, legal or not — judged without a position. The mail door asks it of
    /// the words of a mail, so that it keeps no grammar of its own.
    fn is_move_text(&self, text: &str) -> bool;

    /// Whether move text offers a draw together with its move, as the game's
    /// notation may write it (Dreierschach's trailing `=`). The steward records
    /// the offer once the move is played. By default no text does.
    fn move_offers_draw(&self, _text: &str) -> bool {
        false
    }

    /// The forms of move text this game reads, with examples made from the legal
    /// moves of `seat` in `state` (of the start position when it has none), e.g.
    /// `write moves like Nf3, Sf3, Ng1-f3, g1f3 or 7163`: for help texts.
    fn move_forms(&self, state: &Self::State, seat: Seat) -> String;

    /// The number the game's record gives a move by `seat` that follows the move
    /// numbered `previous.0` by `previous.1` (`None`: the game's first move). By
    /// default a number covers one round of the seat order and goes up when a seat
    /// moves that does not come after the previous mover: the first seat's move in
    /// a two-seat game (`12. e4 e5`), every turn in a simultaneous one, the first
    /// seat still playing in a four-seat round. A variant whose record counts
    /// otherwise overrides this.
    fn record_number(&self, previous: Option<(u32, Seat)>, seat: Seat) -> u32 {
        match previous {
            None => 1,
            Some((n, before)) if seat.index() <= before.index() => n + 1,
            Some((n, _)) => n,
        }
    }

    /// The game as a PGN file, for variants that have a PGN form (chess games);
    /// `None` (the default) for the others, whose record the doors export as
    /// JSON only. The states in `record` are this variant's state strings.
    fn pgn(&self, _record: &GameRecord) -> Option<String> {
        None
    }

    /// The rules as players need them, in the project's own words: a text in
    /// a small Markdown subset (`#` headings, paragraphs, `- ` lists, `` `code` ``
    /// and `**bold**`), shown on the game's rules page. `None` (the default):
    /// the page says that no guide is written yet.
    fn guide(&self) -> Option<&'static str> {
        None
    }
}

/// The object-safe face of a [`Variant`], over state and move strings.
///
/// The steward, the doors, the renderers and the CLI use only this, so a new variant
/// needs no change outside its module. Every variant gets it from the blanket impl.
pub trait DynVariant: Send + Sync {
    /// Which variant this is.
    fn id(&self) -> VariantId;
    /// The seat names, in seat order.
    fn seat_names(&self) -> &'static [&'static str];
    /// The start state string.
    fn start(&self) -> String;
    /// Reads a state string and prints it canonically.
    ///
    /// # Errors
    /// Every problem with it.
    fn canonical_state(&self, state: &str) -> Result<String, StateError>;
    /// The seats that owe a move.
    ///
    /// # Errors
    /// An invalid state string.
    fn seats_to_move(&self, state: &str) -> Result<SeatSet, RulesError>;
    /// The legal moves of `seat`, canonical text, sorted.
    ///
    /// # Errors
    /// An invalid state string.
    fn legal_moves(&self, state: &str, seat: Seat) -> Result<Vec<String>, RulesError>;
    /// Checks a move on receipt.
    ///
    /// # Errors
    /// The seat is not to move, or the text names no single legal move.
    fn check_move(&self, state: &str, seat: Seat, text: &str) -> Result<CheckedMove, RulesError>;
    /// Resolves a complete turn; `history` is the earlier states (start first).
    /// Each move is read as canonical text first (see
    /// [`Variant::parse_canonical`]), then as any move text the game reads.
    ///
    /// # Errors
    /// See [`Variant::resolve`].
    fn resolve(&self, history: &[String], state: &str, moves: &[(Seat, String)]) -> Result<TextResolution, RulesError>;
    /// Whether the game has ended in `state`.
    ///
    /// # Errors
    /// An invalid state string.
    fn outcome(&self, history: &[String], state: &str) -> Result<Option<Outcome>, RulesError>;
    /// How many of the latest earlier states [`DynVariant::resolve`] and
    /// [`DynVariant::outcome`] need from `state` on; `None`: all of them (see
    /// [`Variant::repetition_window`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn repetition_window(&self, state: &str) -> Result<Option<usize>, RulesError>;
    /// The board, for the renderers.
    ///
    /// # Errors
    /// An invalid state string.
    fn board(&self, state: &str) -> Result<BoardView, RulesError>;
    /// The path of a canonical move played in `before`, when given (see
    /// [`Variant::move_path`]); an unreadable `before` counts as not given.
    fn move_path(&self, before: Option<&str>, canonical: &str) -> Option<MovePath>;
    /// Where a player takes hold of a move whose path is not on the board
    /// drawn for `before` (see [`Variant::move_grip`]); none for an unreadable
    /// `before`.
    fn move_grip(&self, before: &str, canonical: &str) -> Vec<Cell>;
    /// Counts move sequences (see [`Variant::perft`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn perft(&self, state: &str, depth: u32) -> Result<u64, RulesError>;
    /// The outcome when `seat` resigns (see [`Variant::resignation`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn resignation(&self, state: &str, seat: Seat) -> Result<Option<Outcome>, RulesError>;
    /// What `seat` resigning does (see [`Variant::retire`]): the state after it,
    /// remarks, and the outcome if the game ends.
    ///
    /// # Errors
    /// An invalid state string.
    fn retire(&self, state: &str, seat: Seat) -> Result<(String, Vec<String>, Option<Outcome>), RulesError>;
    /// The players' notation of a canonical move of `seat` in `state`.
    ///
    /// # Errors
    /// An invalid state string or a move that is not legal there.
    fn notation(&self, state: &str, seat: Seat, canonical: &str) -> Result<String, RulesError>;
    /// The outcome when the seats in `late` run out of time (see [`Variant::timeout`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn timeout(&self, state: &str, late: SeatSet) -> Result<Option<Outcome>, RulesError>;

    /// The seats whose agreement a draw needs (see [`Variant::seats_in_game`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn seats_in_game(&self, state: &str) -> Result<SeatSet, RulesError>;

    /// The outcome of a draw all those seats agreed to (see [`Variant::agreed_draw`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn agreed_draw(&self, state: &str) -> Result<Outcome, RulesError>;

    /// The state with the turns due in it played out (see [`Variant::settled`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn settled(&self, state: &str) -> Result<String, RulesError>;

    /// The seat with this name (case-insensitive) or number (1-based).
    ///
    /// # Errors
    /// [`RulesError::UnknownSeat`].
    fn seat(&self, name: &str) -> Result<Seat, RulesError> {
        let wanted = name.trim().to_ascii_lowercase();
        let names = self.seat_names();
        names
            .iter()
            .position(|n| *n == wanted)
            .or_else(|| wanted.parse::<usize>().ok().filter(|&i| (1..=names.len()).contains(&i)).map(|i| i - 1))
            .map(|i| Seat(i as u8))
            .ok_or_else(|| RulesError::UnknownSeat { name: name.to_owned(), seats: names.join(", ") })
    }

    /// Whether `text` is move text in this game's notation (see [`Variant::is_move_text`]).
    fn is_move_text(&self, text: &str) -> bool;

    /// Whether move text offers a draw with its move (see [`Variant::move_offers_draw`]).
    fn move_offers_draw(&self, text: &str) -> bool;

    /// The forms of move text the game reads, with examples from `seat`'s legal
    /// moves in `state` (see [`Variant::move_forms`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn move_forms(&self, state: &str, seat: Seat) -> Result<String, RulesError>;

    /// The number the game's record gives a move (see [`Variant::record_number`]).
    fn record_number(&self, previous: Option<(u32, Seat)>, seat: Seat) -> u32;

    /// The game as PGN, if the variant has a PGN form (see [`Variant::pgn`]).
    fn pgn(&self, record: &GameRecord) -> Option<String>;

    /// The rules for players (see [`Variant::guide`]).
    fn guide(&self) -> Option<&'static str>;
}

/// Reads a move as the steward stores it, canonical text (see
/// [`Variant::parse_canonical`]), or else as any move text the game reads.
fn read_move<V: Variant + ?Sized>(v: &V, state: &V::State, seat: Seat, text: &str) -> Result<V::Move, RulesError> {
    let canonical = if v.seats_to_move(state).contains(seat) { v.parse_canonical(state, seat, text) } else { None };
    match canonical {
        Some(mv) => Ok(mv),
        None => Variant::check_move(v, state, seat, text),
    }
}

fn parse_history<V: Variant + ?Sized>(v: &V, history: &[String]) -> Result<Vec<V::State>, RulesError> {
    history.iter().map(|s| v.parse_state(s).map_err(RulesError::from)).collect()
}

impl<V> DynVariant for V
where
    V: Variant + Send + Sync,
{
    fn id(&self) -> VariantId {
        Variant::id(self)
    }

    fn seat_names(&self) -> &'static [&'static str] {
        Variant::seat_names(self)
    }

    fn start(&self) -> String {
        Variant::start(self).to_string()
    }

    fn canonical_state(&self, state: &str) -> Result<String, StateError> {
        Ok(self.parse_state(state)?.to_string())
    }

    fn seats_to_move(&self, state: &str) -> Result<SeatSet, RulesError> {
        Ok(Variant::seats_to_move(self, &self.parse_state(state)?))
    }

    fn legal_moves(&self, state: &str, seat: Seat) -> Result<Vec<String>, RulesError> {
        let state = self.parse_state(state)?;
        Ok(Variant::legal_moves(self, &state, seat).iter().map(ToString::to_string).collect())
    }

    fn check_move(&self, state: &str, seat: Seat, text: &str) -> Result<CheckedMove, RulesError> {
        let state = self.parse_state(state)?;
        let mv = Variant::check_move(self, &state, seat, text)?;
        Ok(CheckedMove { canonical: mv.to_string(), notation: self.notation(&state, seat, mv) })
    }

    fn resolve(&self, history: &[String], state: &str, moves: &[(Seat, String)]) -> Result<TextResolution, RulesError> {
        let history = parse_history(self, history)?;
        let state = self.parse_state(state)?;
        let moves = moves
            .iter()
            .map(|(seat, text)| Ok((*seat, read_move(self, &state, *seat, text)?)))
            .collect::<Result<Vec<_>, RulesError>>()?;
        let r = Variant::resolve(self, &history, &state, &moves)?;
        Ok(TextResolution {
            state: r.state.to_string(),
            moves: r
                .moves
                .into_iter()
                .map(|m| SeatMove { seat: m.seat, mv: m.mv.to_string(), notation: m.notation, result: m.result })
                .collect(),
            notes: r.notes,
            outcome: r.outcome,
        })
    }

    fn outcome(&self, history: &[String], state: &str) -> Result<Option<Outcome>, RulesError> {
        let history = parse_history(self, history)?;
        Ok(Variant::outcome(self, &history, &self.parse_state(state)?))
    }

    fn repetition_window(&self, state: &str) -> Result<Option<usize>, RulesError> {
        Ok(Variant::repetition_window(self, &self.parse_state(state)?))
    }

    fn board(&self, state: &str) -> Result<BoardView, RulesError> {
        Ok(Variant::board(self, &self.parse_state(state)?))
    }

    fn move_path(&self, before: Option<&str>, canonical: &str) -> Option<MovePath> {
        let before = before.and_then(|s| self.parse_state(s).ok());
        Variant::move_path(self, before.as_ref(), canonical)
    }

    fn move_grip(&self, before: &str, canonical: &str) -> Vec<Cell> {
        self.parse_state(before).map(|s| Variant::move_grip(self, &s, canonical)).unwrap_or_default()
    }

    fn perft(&self, state: &str, depth: u32) -> Result<u64, RulesError> {
        Ok(Variant::perft(self, &self.parse_state(state)?, depth))
    }

    fn resignation(&self, state: &str, seat: Seat) -> Result<Option<Outcome>, RulesError> {
        Ok(Variant::resignation(self, &self.parse_state(state)?, seat))
    }

    fn retire(&self, state: &str, seat: Seat) -> Result<(String, Vec<String>, Option<Outcome>), RulesError> {
        let (after, notes, outcome) = Variant::retire(self, &self.parse_state(state)?, seat);
        Ok((after.to_string(), notes, outcome))
    }

    fn timeout(&self, state: &str, late: SeatSet) -> Result<Option<Outcome>, RulesError> {
        Ok(Variant::timeout(self, &self.parse_state(state)?, late))
    }

    fn notation(&self, state: &str, seat: Seat, canonical: &str) -> Result<String, RulesError> {
        let state = self.parse_state(state)?;
        let read =
            self.parse_canonical(&state, seat, canonical).map_or_else(|| self.parse_move(&state, seat, canonical), Ok);
        let mv = read.map_err(|error| RulesError::Move { seat, seat_name: Variant::seat_name(self, seat), error })?;
        Ok(Variant::notation(self, &state, seat, mv))
    }

    fn seats_in_game(&self, state: &str) -> Result<SeatSet, RulesError> {
        Ok(Variant::seats_in_game(self, &self.parse_state(state)?))
    }

    fn agreed_draw(&self, state: &str) -> Result<Outcome, RulesError> {
        Ok(Variant::agreed_draw(self, &self.parse_state(state)?))
    }

    fn settled(&self, state: &str) -> Result<String, RulesError> {
        Ok(Variant::settled(self, &self.parse_state(state)?).to_string())
    }

    fn is_move_text(&self, text: &str) -> bool {
        Variant::is_move_text(self, text)
    }

    fn move_offers_draw(&self, text: &str) -> bool {
        Variant::move_offers_draw(self, text)
    }

    fn move_forms(&self, state: &str, seat: Seat) -> Result<String, RulesError> {
        Ok(Variant::move_forms(self, &self.parse_state(state)?, seat))
    }

    fn record_number(&self, previous: Option<(u32, Seat)>, seat: Seat) -> u32 {
        Variant::record_number(self, previous, seat)
    }

    fn pgn(&self, record: &GameRecord) -> Option<String> {
        Variant::pgn(self, record)
    }

    fn guide(&self) -> Option<&'static str> {
        Variant::guide(self)
    }
}

/// Checks that `moves` holds exactly one move for each seat in `to_move` and none
/// other, and returns them in seat order. Shared by the variants' `advance`.
pub(crate) fn moves_by_seat<V: Variant + ?Sized>(
    variant: &V,
    to_move: SeatSet,
    moves: &[(Seat, V::Move)],
) -> Result<Vec<(Seat, V::Move)>, RulesError> {
    let mut given = SeatSet::EMPTY;
    for &(seat, _) in moves {
        if seat.index() >= variant.seat_names().len() {
            return Err(RulesError::UnknownSeat {
                name: format!("{}", seat.index() + 1),
                seats: variant.seat_names().join(", "),
            });
        }
        if !to_move.contains(seat) {
            return Err(RulesError::NotToMove { seat, seat_name: variant.seat_name(seat), is_game_over: false });
        }
        if given.contains(seat) {
            return Err(RulesError::DuplicateMove { seat, seat_name: variant.seat_name(seat) });
        }
        given = given.with(seat);
    }
    if let Some(seat) = to_move.iter().find(|&s| !given.contains(s)) {
        return Err(RulesError::MissingMove { seat, seat_name: variant.seat_name(seat) });
    }
    let mut sorted = moves.to_vec();
    sorted.sort_by_key(|(s, _)| *s);
    Ok(sorted)
}
