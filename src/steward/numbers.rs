//! The move number players see (issue 32): the number the game's own record
//! gives the move owed now (`12.`, `12...`), told beside the API's `turn`,
//! which counts resolved turns and stays the key envelopes and commitments carry.

use super::{Loaded, StewardError};
use crate::letters::record::{self, RecordEnd};
use crate::rules::Seat;
use crate::store::Tx;

/// Where the record of `g` ends now (the moves settled so far), for numbering
/// what comes next.
pub(super) fn record_end(tx: &Tx<'_>, g: &Loaded) -> Result<RecordEnd, StewardError> {
    Ok(record::end_after(tx.settled_seats(&g.row.id)?))
}

/// The label of the move `seat` owes in `state` after a record ending at
/// `end` (of the first move owed when `seat` owes none); `None` when nobody
/// owes a move (the game is over).
pub(super) fn owed(end: RecordEnd, to_move: &[Seat], seat: Seat) -> Option<String> {
    (!to_move.is_empty()).then(|| record::owed_label(end, to_move, seat))
}

/// The words a mail's subject and its body's header share for the move owed:
/// `your move 12...` for a seat that owes it, `black to move 12.` for the
/// others.
pub(super) fn headline(g: &Loaded, to_move: &[Seat], end: RecordEnd, reader: Seat) -> Option<String> {
    let label = owed(end, to_move, reader)?;
    if to_move.contains(&reader) {
        Some(format!("your move {label}"))
    } else {
        let names: Vec<String> = to_move.iter().map(|s| g.seat_name(*s)).collect();
        Some(format!("{} to move {label}", names.join(" and ")))
    }
}
