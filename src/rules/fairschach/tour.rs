//! The tour of Fairschach that `fairsteward demo` plays: twelve pairs showing a
//! same-square meeting (pair 3), the first-move right with a struck move (pair 6),
//! pauses, a capture aimed at a piece that moved away, and checkmate (pair 12).
//! Every pair was checked with `fairsteward rules fairschach resolve` (pause rule
//! `moved`, the default), and `rules::tour`'s test replays it.

use crate::rules::VariantId;
use crate::rules::tour::{Tour, TourTurn};

/// The game.
pub(crate) const TOUR: Tour = Tour {
    variant: VariantId::Fairschach,
    title: "Fairschach",
    turn_word: "pair",
    players: &[("Alice", "alice@example.org"), ("Bob", "bob@example.org")],
    ending: ("0-1", "checkmate"),
    turns: &[
        TourTurn {
            moves: &["Nc3", "Nf6"],
            statuses: &["played", "played"],
            narration: "Both bring out a knight. Neither king is in check, so both moves are played at once (rules section 3a).",
        },
        TourTurn {
            moves: &["e4", "e5"],
            statuses: &["played", "played"],
            narration: "The king's pawns advance. The knights moved in the last pair and are paused in this one (FSR 9).",
        },
        TourTurn {
            moves: &["Nd5", "d5"],
            statuses: &["played", "played"],
            narration: "Same-square meeting: White's knight and Black's pawn both arrive on d5. The stronger piece takes \
                    the weaker (FSR 4): the knight stays, the pawn leaves the board.",
        },
        TourTurn {
            moves: &["Nf3", "Nxe4"],
            statuses: &["played", "played"],
            narration: "White develops; Black's knight takes the e4 pawn, which stands still in this pair (FSR 5).",
        },
        TourTurn {
            moves: &["Bb5", "Qxd5"],
            statuses: &["played", "played"],
            narration: "White's bishop gives check along b5-e8 while Black's queen takes the knight on d5, which stands \
                    still. Only Black is in check now.",
        },
        TourTurn {
            moves: &["O-O", "Qxb5"],
            statuses: &["struck", "first"],
            narration: "First-move right (FSR 6): Black is in check, so Black's move is played first - Qxb5 takes the \
                    checking bishop (a paused piece may move out of check). White's O-O comes second and is no \
                    longer legal: the king would cross f1, now attacked by the queen. It is struck.",
        },
        TourTurn {
            moves: &["a4", "Bc5"],
            statuses: &["played", "played"],
            narration: "The a-pawn attacks the queen, which moved in the last pair and is paused; Black's bishop aims \
                    at f2.",
        },
        TourTurn {
            moves: &["c3", "Qc4"],
            statuses: &["played", "played"],
            narration: "The queen steps away to c4 (the a4 pawn is paused now and cannot take). From c4 it watches e2 \
                    and f1.",
        },
        TourTurn {
            moves: &["Ra3", "Nc6"],
            statuses: &["played", "played"],
            narration: "White brings the rook out by a3; Black develops the other knight.",
        },
        TourTurn {
            moves: &["b4", "O-O"],
            statuses: &["played", "played"],
            narration: "The b-pawn attacks the bishop on c5; Black castles (the castling rook is not paused).",
        },
        TourTurn {
            moves: &["a5", "Re8"],
            statuses: &["played", "played"],
            narration: "The b4 pawn moved in the last pair and is paused: the bishop on c5 is safe for one more pair.",
        },
        TourTurn {
            moves: &["bxc5", "Bxf2"],
            statuses: &["played", "played"],
            narration: "White's pawn captures on c5 - but the bishop leaves c5 at the same instant, so bxc5 takes \
                    nothing (FSR 5). Bxf2 gives check, and it is mate: the knight on e4 guards f2, the queen on c4 guards e2 and f1.",
        },
    ],
};
