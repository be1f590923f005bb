//! The `Variant` trait, a game's rulebook, and its object-safe face `DynVariant`.
//!
//! Both traits and the blanket impl between them come from one declaration
//! (`variant_traits!` below), so each method is written once: a method whose
//! signature holds no state or move is the same in both; one whose first
//! argument is the state takes the state string in `DynVariant` and answers
//! `Result<_, RulesError>`; the few whose states or moves change type write
//! their text form beside them, after their doc lines and `=>`. The compiler
//! refuses a method that fits none of these until its text form is written.

use std::fmt;

use super::{
    AgreedDraw, BoardView, CheckedMove, EndReason, GameRecord, GameResult, MoveError, MovePath, MoveText, Outcome,
    Resolution, RulesError, Score, Seat, SeatMove, SeatSet, StateError, TextResolution, VariantId,
};

/// Declares [`Variant`] (typed), [`DynVariant`] (over strings) and the blanket
/// impl of the second for the first, from one list of methods. The items in
/// `pub trait Variant { … }` are the typed trait's own; every method after
/// `pub trait DynVariant;` is in both (see the module docs for the three forms).
macro_rules! variant_traits {
    (
        $(#[$vm:meta])* pub trait Variant { $($own:tt)* }
        $(#[$dm:meta])* pub trait DynVariant;
        $($methods:tt)*
    ) => {
        variant_traits!(@munch [$(#[$vm])*] [$($own)*] [$(#[$dm])*] [] [] [] $($methods)*);
    };

    // Done: write both traits and the blanket impl.
    (@munch [$($vm:tt)*] [$($own:tt)*] [$($dm:tt)*] [$($v:tt)*] [$($d:tt)*] [$($i:tt)*]) => {
        $($vm)*
        pub trait Variant {
            $($own)*
            $($v)*
        }

        $($dm)*
        pub trait DynVariant: Send + Sync {
            $($d)*
        }

        impl<V: Variant + Send + Sync> DynVariant for V {
            $($i)*
        }
    };

    // A method with its text form written out after `=>` (required, then provided).
    (@munch $vm:tt $own:tt $dm:tt [$($v:tt)*] [$($d:tt)*] [$($i:tt)*]
        $(#[$m:meta])* fn $n:ident(&$s:tt $(, $a:ident: $t:ty)*) -> $r:ty;
        $(#[$m2:meta])* => fn $n2:ident(&$s2:tt $(, $a2:ident: $t2:ty)*) -> $r2:ty $b2:block
        $($rest:tt)*
    ) => {
        variant_traits!(@munch $vm $own $dm
            [$($v)* $(#[$m])* fn $n(&$s $(, $a: $t)*) -> $r;]
            [$($d)* $(#[$m])* $(#[$m2])* fn $n2(&$s2 $(, $a2: $t2)*) -> $r2;]
            [$($i)* fn $n2(&$s2 $(, $a2: $t2)*) -> $r2 $b2]
            $($rest)*);
    };
    (@munch $vm:tt $own:tt $dm:tt [$($v:tt)*] [$($d:tt)*] [$($i:tt)*]
        $(#[$m:meta])* fn $n:ident(&$s:tt $(, $a:ident: $t:ty)*) -> $r:ty $b:block
        $(#[$m2:meta])* => fn $n2:ident(&$s2:tt $(, $a2:ident: $t2:ty)*) -> $r2:ty $b2:block
        $($rest:tt)*
    ) => {
        variant_traits!(@munch $vm $own $dm
            [$($v)* $(#[$m])* fn $n(&$s $(, $a: $t)*) -> $r $b]
            [$($d)* $(#[$m])* $(#[$m2])* fn $n2(&$s2 $(, $a2: $t2)*) -> $r2;]
            [$($i)* fn $n2(&$s2 $(, $a2: $t2)*) -> $r2 $b2]
            $($rest)*);
    };

    // A method of the state: `DynVariant` reads the state string first.
    (@munch $vm:tt $own:tt $dm:tt [$($v:tt)*] [$($d:tt)*] [$($i:tt)*]
        $(#[$m:meta])* fn $n:ident(&$s:tt, $st:ident: &Self::State $(, $a:ident: $t:ty)*) -> $r:ty;
        $($rest:tt)*
    ) => {
        variant_traits!(@munch $vm $own $dm
            [$($v)* $(#[$m])* fn $n(&$s, $st: &Self::State $(, $a: $t)*) -> $r;]
            [$($d)* $(#[$m])* #[doc = "\n\n(Text form: an unreadable state is a [`RulesError::State`].)"]
                fn $n(&$s, $st: &str $(, $a: $t)*) -> Result<$r, RulesError>;]
            [$($i)* fn $n(&$s, $st: &str $(, $a: $t)*) -> Result<$r, RulesError> {
                Ok(Variant::$n($s, &$s.parse_state($st)? $(, $a)*))
            }]
            $($rest)*);
    };
    (@munch $vm:tt $own:tt $dm:tt [$($v:tt)*] [$($d:tt)*] [$($i:tt)*]
        $(#[$m:meta])* fn $n:ident(&$s:tt, $st:ident: &Self::State $(, $a:ident: $t:ty)*) -> $r:ty $b:block
        $($rest:tt)*
    ) => {
        variant_traits!(@munch $vm $own $dm
            [$($v)* $(#[$m])* fn $n(&$s, $st: &Self::State $(, $a: $t)*) -> $r $b]
            [$($d)* $(#[$m])* #[doc = "\n\n(Text form: an unreadable state is a [`RulesError::State`].)"]
                fn $n(&$s, $st: &str $(, $a: $t)*) -> Result<$r, RulesError>;]
            [$($i)* fn $n(&$s, $st: &str $(, $a: $t)*) -> Result<$r, RulesError> {
                Ok(Variant::$n($s, &$s.parse_state($st)? $(, $a)*))
            }]
            $($rest)*);
    };

    // A method with no state or move in its signature: the same in both.
    (@munch $vm:tt $own:tt $dm:tt [$($v:tt)*] [$($d:tt)*] [$($i:tt)*]
        $(#[$m:meta])* fn $n:ident(&$s:tt $(, $a:ident: $t:ty)*) -> $r:ty;
        $($rest:tt)*
    ) => {
        variant_traits!(@munch $vm $own $dm
            [$($v)* $(#[$m])* fn $n(&$s $(, $a: $t)*) -> $r;]
            [$($d)* $(#[$m])* fn $n(&$s $(, $a: $t)*) -> $r;]
            [$($i)* fn $n(&$s $(, $a: $t)*) -> $r { Variant::$n($s $(, $a)*) }]
            $($rest)*);
    };
    (@munch $vm:tt $own:tt $dm:tt [$($v:tt)*] [$($d:tt)*] [$($i:tt)*]
        $(#[$m:meta])* fn $n:ident(&$s:tt $(, $a:ident: $t:ty)*) -> $r:ty $b:block
        $($rest:tt)*
    ) => {
        variant_traits!(@munch $vm $own $dm
            [$($v)* $(#[$m])* fn $n(&$s $(, $a: $t)*) -> $r $b]
            [$($d)* $(#[$m])* fn $n(&$s $(, $a: $t)*) -> $r;]
            [$($i)* fn $n(&$s $(, $a: $t)*) -> $r { Variant::$n($s $(, $a)*) }]
            $($rest)*);
    };
}

variant_traits! {
    /// A game's rulebook: one type per variant, its options applied at construction.
    ///
    /// Required methods carry the variant's rules; the provided ones marked
    /// `FINAL` (`seat_name`, `check_move`, `resolve`, `perft`, `seat`,
    /// `canonical_state`) are the same for every variant and are not overridden.
    pub trait Variant {
        /// A position, with everything the rules need to continue (not the history).
        type State: Clone + Eq + fmt::Debug + fmt::Display;
        /// A move as fixed at entry; `Display` is the canonical form (chess: UCI).
        type Move: Clone + Eq + Ord + fmt::Debug + fmt::Display;

        /// Reads a state string as the rules file defines it, refusing inconsistent ones.
        ///
        /// # Errors
        /// A [`StateError`] listing every problem.
        fn parse_state(&self, text: &str) -> Result<Self::State, StateError>;

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

        /// The name of `seat`.
        ///
        /// # Panics
        /// If `seat` is not a seat of this variant (an internal invariant).
        fn seat_name(&self, seat: Seat) -> &'static str /* FINAL */ {
            self.seat_names()[seat.index()]
        }
    }

    /// The object-safe face of a [`Variant`], over state and move strings.
    ///
    /// The steward, the doors, the renderers and the CLI use only this, so a new variant
    /// needs no change outside its module. Every variant gets it from the blanket impl.
    pub trait DynVariant;

    // Every method from here on is in both traits.

    /// Which variant this is.
    fn id(&self) -> VariantId;

    /// The seat names, in seat order; their number is the number of seats.
    fn seat_names(&self) -> &'static [&'static str];

    /// The seat with this name (case-insensitive) or number (1-based).
    ///
    /// # Errors
    /// [`RulesError::UnknownSeat`].
    fn seat(&self, name: &str) -> Result<Seat, RulesError> /* FINAL */ {
        let wanted = name.trim().to_ascii_lowercase();
        let names = self.seat_names();
        names
            .iter()
            .position(|n| *n == wanted)
            .or_else(|| wanted.parse::<usize>().ok().filter(|&i| (1..=names.len()).contains(&i)).map(|i| i - 1))
            .map(|i| Seat(i as u8))
            .ok_or_else(|| RulesError::UnknownSeat { name: name.to_owned(), seats: names.join(", ") })
    }

    /// The start state.
    fn start(&self) -> Self::State;
    /// The start state string.
    => fn start(&self) -> String {
        Variant::start(self).to_string()
    }

    /// Reads a state string and prints it canonically.
    ///
    /// # Errors
    /// Every problem with it.
    fn canonical_state(&self, text: &str) -> Result<String, StateError> /* FINAL */ {
        Ok(self.parse_state(text)?.to_string())
    }

    /// The seats that owe a move in `state`, ignoring whether the game has ended.
    fn seats_to_move(&self, state: &Self::State) -> SeatSet;

    /// The legal moves of `seat` in `state`, sorted by canonical text (byte order);
    /// empty for a seat that is not to move.
    fn legal_moves(&self, state: &Self::State, seat: Seat) -> Vec<Self::Move>;
    ///
    /// # Errors
    /// An invalid state string.
    => fn legal_moves(&self, state: &str, seat: Seat) -> Result<Vec<String>, RulesError> {
        let state = self.parse_state(state)?;
        Ok(Variant::legal_moves(self, &state, seat).iter().map(ToString::to_string).collect())
    }

    /// The move in the players' notation (SAN for chess games), in `state`.
    fn notation(&self, state: &Self::State, seat: Seat, mv: Self::Move) -> String;
    /// Of a canonical move text (or any move text the game reads).
    ///
    /// # Errors
    /// An invalid state string or a move that is not legal there.
    => fn notation(&self, state: &str, seat: Seat, canonical: &str) -> Result<String, RulesError> {
        let state = self.parse_state(state)?;
        let read = read_canonical(self, &state, seat, canonical).map_or_else(|| self.parse_move(&state, seat, canonical), Ok);
        let mv = read.map_err(|error| RulesError::Move { seat, seat_name: self.seat_name(seat), error })?;
        Ok(Variant::notation(self, &state, seat, mv))
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
    /// The move's canonical text and notation.
    => fn check_move(&self, state: &str, seat: Seat, text: &str) -> Result<CheckedMove, RulesError> {
        let state = self.parse_state(state)?;
        let mv = Variant::check_move(self, &state, seat, text)?;
        Ok(CheckedMove { canonical: mv.to_string(), notation: Variant::notation(self, &state, seat, mv) })
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
        moves: &[(Seat, Self::Move)]
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
    /// Each move is read as canonical text first (the legal move that prints
    /// so), then as any move text the game reads.
    => fn resolve(&self, history: &[String], state: &str, moves: &[(Seat, String)]) -> Result<TextResolution, RulesError> {
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

    /// Whether the game has ended in `state`, given the earlier states of the game
    /// (start first, `state` itself not included) for repetition.
    fn outcome(&self, history: &[Self::State], state: &Self::State) -> Option<Outcome>;
    ///
    /// # Errors
    /// An invalid state string.
    => fn outcome(&self, history: &[String], state: &str) -> Result<Option<Outcome>, RulesError> {
        let history = parse_history(self, history)?;
        Ok(Variant::outcome(self, &history, &self.parse_state(state)?))
    }

    /// How much of the history the rules can still use from `state` on:
    /// `Some(n)` promises that [`Variant::outcome`] of `state` and
    /// [`Variant::resolve`] of a turn from `state` give the same result when
    /// `history` holds only its last `n` states (all of them when it has fewer)
    /// as with the whole of it. `None` (the default): every earlier state may
    /// count. The steward reads no more than this from the store on each turn.
    fn repetition_window(&self, _state: &Self::State) -> Option<usize> {
        None
    }

    /// Counts the move sequences of `depth` turns from `state` (simultaneous turns
    /// count every combination of the seats' moves); game ends are not judged.
    fn perft(&self, state: &Self::State, depth: u32) -> u64 /* FINAL */ {
        perft(self, state, depth)
    }

    /// The board as cells and pieces, for the renderers.
    fn board(&self, state: &Self::State) -> BoardView;

    /// The path of a canonical move, for marking the last moves on a board
    /// picture: from, every cell passed or jumped, to, the cells it captures,
    /// and its grip when the path is not on the board drawn for `before`;
    /// `None` when the text names no such move. `before` is the state the move
    /// was played in, when the caller has it: with it the variant can tell
    /// captures (and, in chess, en passant and castling). The default reads
    /// square-grid coordinate moves (`e2e4`, `e7e8q`, `d2-d4`, `k10-k12`,
    /// `e13-e14=Q`, see [`super::coordinate_move_cells`]) as one step that
    /// captures what stood on its target; a variant whose canonical moves look
    /// different overrides it.
    fn move_path(&self, before: Option<&Self::State>, canonical: &str) -> Option<MovePath> {
        MovePath::of_coordinates(canonical, before.map(|s| self.board(s)).as_ref())
    }
    /// An unreadable `before` counts as not given.
    => fn move_path(&self, before: Option<&str>, canonical: &str) -> Option<MovePath> {
        let before = before.and_then(|s| self.parse_state(s).ok());
        Variant::move_path(self, before.as_ref(), canonical)
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
    ///
    /// # Errors
    /// An invalid state string.
    => fn retire(&self, state: &str, seat: Seat) -> Result<(String, Vec<String>, Option<Outcome>), RulesError> {
        let (after, notes, outcome) = Variant::retire(self, &self.parse_state(state)?, seat);
        Ok((after.to_string(), notes, outcome))
    }

    /// The outcome when the seats in `late` run out of time together in `state`
    /// (their deadlines fell at the same instant). In two-seat games the other
    /// seat wins on time, and both late at once is a draw. Variants with more
    /// seats follow their rules file; by default a timeout counts as the first
    /// late seat's resignation, with the reason `time` (`None`: play goes on
    /// without that seat). Chess overrides it for the lone king (docs/rules/chess.md §5).
    fn timeout(&self, state: &Self::State, late: SeatSet) -> Option<Outcome> {
        let first = late.iter().next()?;
        match self.seat_names().len() {
            2 if late.len() >= 2 => Some(Outcome::draw(EndReason::Time)),
            2 => Some(Outcome::win(Seat::new(1 - first.0), EndReason::Time)),
            _ => self.resignation(state, first).map(|o| Outcome { reason: EndReason::Time, ..o }),
        }
    }

    /// A draw by agreement in `state`: the seats whose agreement it needs and
    /// what it scores. By default every seat, and a draw (reason `agreement`);
    /// a variant where seats drop out while play goes on asks only the seats
    /// still in, and one that scores a draw in points of its own says so.
    fn agreed_draw(&self, _state: &Self::State) -> AgreedDraw {
        AgreedDraw {
            seats: SeatSet::first(self.seat_names().len() as u8),
            outcome: Outcome::draw(EndReason::Agreement),
        }
    }

    /// `state` with the turns due in it played out: for a hand-made state whose
    /// seat to move cannot move, the passes or enclosures the rules file applies
    /// before play goes on (docs/rules/trialectic-dame.md §8). By default the state
    /// itself: play never leaves such a state.
    fn settled(&self, state: &Self::State) -> Self::State {
        state.clone()
    }
    ///
    /// # Errors
    /// An invalid state string.
    => fn settled(&self, state: &str) -> Result<String, RulesError> {
        Ok(Variant::settled(self, &self.parse_state(state)?).to_string())
    }

    /// What `text` is in this game's notation — a form its rules file reads,
    /// legal or not, perhaps with a draw offer written into it (Dreierschach's
    /// trailing `=`) — judged without a position; `None` for text that is no
    /// move. The mail door asks it of the words of a mail, so that it keeps no
    /// grammar of its own, and the steward records an offer once the move is played.
    fn move_text(&self, text: &str) -> Option<MoveText>;

    /// The forms of move text this game reads, with examples made from the legal
    /// moves of `seat` in `state` (of the start position when it has none), e.g.
    /// `write moves like Nf3, Sf3, Ng1-f3, g1f3 or 7163`: for help texts.
    fn move_forms(&self, state: &Self::State, seat: Seat) -> String;

    /// The seats that are out of the game in `state`: they no longer play
    /// while the others play on (mated and removed, resigned, without stones).
    /// None by default: in most games nobody leaves before the end.
    fn seats_out(&self, _state: &Self::State) -> SeatSet {
        SeatSet::EMPTY
    }

    /// For each seat (seat order), the index in `history` (start first, last
    /// state last) of the state from which it was out for good
    /// ([`Variant::seats_out`] there and in every later state), or `None` for a
    /// seat still in at the end. A seat that came back (a frozen Vierschach
    /// seat that thawed) counts from its last departure.
    fn elimination_order(&self, history: &[Self::State]) -> Vec<Option<usize>> /* FINAL */ {
        let seats = self.seat_names().len();
        let mut out_at = vec![None; seats];
        for (at, state) in history.iter().enumerate() {
            let out = self.seats_out(state);
            for (seat, slot) in out_at.iter_mut().enumerate() {
                let is_out = out.contains(Seat::new(seat as u8));
                match (is_out, *slot) {
                    (true, None) => *slot = Some(at),
                    (false, Some(_)) => *slot = None,
                    _ => {}
                }
            }
        }
        out_at
    }
    ///
    /// # Errors
    /// An invalid state string in `history`.
    => fn elimination_order(&self, history: &[String]) -> Result<Vec<Option<usize>>, RulesError> {
        let history = parse_history(self, history)?;
        Ok(Variant::elimination_order(self, &history))
    }

    /// Each seat's score (seat order) for a tournament table, by this game's own
    /// scoring, for a game that ended with `outcome` after the states `history`
    /// (start first, last state last — the order seats left the board is read
    /// from it). By default [`GameResult::half_points`]: 1, ½ or 0 per seat, and
    /// [`GameResult::Points`] as those points; a game that scores by the order
    /// of elimination, or on a scale of its own, overrides it.
    fn tournament_scores(&self, _history: &[Self::State], outcome: &Outcome) -> Vec<Score> {
        result_scores(self.seat_names().len(), outcome.result)
    }
    ///
    /// # Errors
    /// An invalid state string in `history`.
    => fn tournament_scores(&self, history: &[String], outcome: &Outcome) -> Result<Vec<Score>, RulesError> {
        let history = parse_history(self, history)?;
        Ok(Variant::tournament_scores(self, &history, outcome))
    }

    /// The game as a PGN file, for variants that have a PGN form (chess games);
    /// `None` (the default) for the others, whose record the doors export as
    /// JSON only. The states in `record` are this variant's state strings.
    fn pgn(&self, _record: &GameRecord) -> Option<String> {
        None
    }

    /// The rules as players need them, in the project's own words: a text in
    /// a small Markdown subset (`#` headings, paragraphs, `- ` lists, `` `code` ``
    /// and `**bold**`), shown on the game's rules page (`None`: the page says
    /// that no guide is written yet).
    fn guide(&self) -> Option<&'static str>;

    /// The teams the game's options make: the seats that play together and
    /// win or lose together, each team one set (issue 32: who plays with whom).
    /// None by default: every seat plays for itself.
    fn teams(&self) -> Vec<SeatSet> {
        Vec::new()
    }

    /// Every option of the game as applied, the defaults it was created
    /// without included, in the order its rules file lists them: each option's
    /// name and value as the game's options spell them (`mode` = `teams`,
    /// `no_progress` = `off`). Empty for a game without options. Shown on the
    /// game page and in the API (issue 32: the options a game runs by).
    fn effective_options(&self) -> Vec<(&'static str, String)>;

    /// What the text board of this game writes, one line each, for the legend
    /// under every text board: each piece letter, and each seat's prefix or
    /// letter case, in the game's own words (Vierschach's `w` is West,
    /// Dreierschach's `w` White), and the names around the board that are
    /// not plain files and ranks (3D chess levels). The marks the text board
    /// explains itself (`+` last move, `x` captured, `*` paused) are not
    /// repeated here.
    fn legend(&self) -> Vec<String>;
}

/// The default of [`Variant::tournament_scores`]: each of `seats` seats' score
/// by `result` alone, [`GameResult::Points`] as whole points and every other
/// result as [`GameResult::half_points`].
pub fn result_scores(seats: usize, result: GameResult) -> Vec<Score> {
    (0..seats.min(usize::from(SeatSet::MAX)))
        .map(|i| match result {
            GameResult::Points { points, .. } => Score::whole(u32::from(points[i])),
            _ => Score(u32::from(result.half_points(Seat::new(i as u8)))),
        })
        .collect()
}

/// Scores by the order in which seats left the game (first out 0, the next
/// 1, …, the last standing `seats - 1` whole points), for games without
/// points of their own where seats drop out while play goes on. `out_at[i]`
/// is the index of the state from which seat `i` was out for good (`None`:
/// still in at the end). Seats are ranked by their share of `result` first
/// (so a winner named by the result, say on adjudication, is placed above
/// every seat it beat), then by how long they stayed in; seats level on both
/// (out in the same state, or still in at a draw) share their places equally.
pub fn elimination_scores(out_at: &[Option<usize>], result: GameResult) -> Vec<Score> {
    let seats = out_at.len();
    let key = |i: usize| (result.half_points(Seat::new(i as u8)), out_at[i].unwrap_or(usize::MAX));
    let mut order: Vec<usize> = (0..seats).collect();
    order.sort_by_key(|&i| key(i));
    let mut scores = vec![Score(0); seats];
    let mut place = 0;
    while place < seats {
        let level = order[place..].iter().take_while(|&&i| key(i) == key(order[place])).count();
        // Places place..place+level-1 shared: their mean, in half points.
        let share = (2 * place + level - 1) as u32;
        for &i in &order[place..place + level] {
            scores[i] = Score(share);
        }
        place += level;
    }
    scores
}

/// The legal move of `seat` in `state` whose canonical text is `text` (trimmed),
/// if there is one. The steward stores moves as canonical text and reads them
/// back through here first, then as any move text: a players' notation may read
/// a canonical text as another move (Dreierschach's V2.3 cell names).
pub(crate) fn read_canonical<V: Variant + ?Sized>(v: &V, state: &V::State, seat: Seat, text: &str) -> Option<V::Move> {
    let text = text.trim();
    v.legal_moves(state, seat).into_iter().find(|m| m.to_string() == text)
}

/// Reads a move as the steward stores it, canonical text ([`read_canonical`]),
/// or else as any move text the game reads.
fn read_move<V: Variant + ?Sized>(v: &V, state: &V::State, seat: Seat, text: &str) -> Result<V::Move, RulesError> {
    let canonical = if v.seats_to_move(state).contains(seat) { read_canonical(v, state, seat, text) } else { None };
    match canonical {
        Some(mv) => Ok(mv),
        None => Variant::check_move(v, state, seat, text),
    }
}

fn parse_history<V: Variant + ?Sized>(v: &V, history: &[String]) -> Result<Vec<V::State>, RulesError> {
    history.iter().map(|s| v.parse_state(s).map_err(RulesError::from)).collect()
}

/// [`Variant::perft`]: every combination of the seats' moves, `depth` turns deep.
fn perft<V: Variant + ?Sized>(v: &V, state: &V::State, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        // The leaves are counted, not played (and nothing is allocated for them).
        return v.seats_to_move(state).iter().map(|s| v.count_legal_moves(state, s) as u64).product();
    }
    let seats: Vec<Seat> = v.seats_to_move(state).iter().collect();
    let options: Vec<Vec<V::Move>> = seats.iter().map(|&s| v.legal_moves(state, s)).collect();
    let mut total = 0;
    let mut choice = vec![0usize; seats.len()];
    if options.iter().any(Vec::is_empty) {
        return 0;
    }
    // One list for every combination, refilled in place: no allocation per move.
    let mut moves: Vec<(Seat, V::Move)> = Vec::with_capacity(seats.len());
    loop {
        moves.clear();
        moves.extend(seats.iter().zip(&choice).zip(&options).map(|((&s, &i), m)| (s, m[i].clone())));
        if let Ok(next) = v.next_state(state, &moves) {
            total += perft(v, &next, depth - 1);
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
