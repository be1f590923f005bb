//! A move from one cell to another: the move type of the games whose canonical
//! moves read `<from>-<to>`, then `=Q`, `=R`, `=B` or `=N` for a promotion, with
//! castling written as the king's move (Vierschach, Dreierschach). Each game
//! brings its cells and its kinds of move; the order, the text and the sorting
//! are this file's.

use std::cmp::Ordering;
use std::fmt;

use super::mailbox::Kind;

/// A cell that writes its name as bytes, so that moves order by their canonical
/// text without building it.
pub trait NamedCell: Copy + Eq + fmt::Display {
    /// Writes the name at `out[at..]` and returns the index after it.
    fn write_name(self, out: &mut [u8], at: usize) -> usize;
}

/// A move from cell `from` to cell `to`, with the piece a pawn becomes and the
/// game's kind of move (`K`: a step, a double step, en passant, castling, …).
/// `Display` is the canonical form; moves order by their canonical text, byte
/// by byte, then by kind.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CellMove<C, K> {
    pub(crate) from: C,
    pub(crate) to: C,
    pub(crate) promotion: Option<Kind>,
    pub(crate) kind: K,
}

impl<C: NamedCell, K: Copy + Ord> CellMove<C, K> {
    /// The cell the piece leaves (the king's, for castling).
    pub fn from(self) -> C {
        self.from
    }

    /// The cell the piece goes to (the king's, for castling).
    pub fn to(self) -> C {
        self.to
    }

    /// The piece a pawn becomes.
    pub fn promotion(self) -> Option<Kind> {
        self.promotion
    }

    /// What kind of move it is.
    pub fn kind(self) -> K {
        self.kind
    }

    /// The move's place in the order: the canonical text's bytes, zero-padded,
    /// from the most significant byte down (so that number order is byte order
    /// of the texts), then the kind.
    fn key(self) -> (u128, K) {
        let mut out = [0u8; 16];
        let mut at = self.from.write_name(&mut out, 0);
        out[at] = b'-';
        at = self.to.write_name(&mut out, at + 1);
        if let Some(k) = self.promotion {
            out[at] = b'=';
            out[at + 1] = k.letter() as u8;
        }
        (u128::from_be_bytes(out), self.kind)
    }
}

impl<C: NamedCell, K: Copy + Ord> PartialOrd for CellMove<C, K> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<C: NamedCell, K: Copy + Ord> Ord for CellMove<C, K> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl<C: NamedCell, K> fmt::Display for CellMove<C, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.from, self.to)?;
        if let Some(k) = self.promotion {
            write!(f, "={}", k.letter())?;
        }
        Ok(())
    }
}

/// Sorts moves in their order, writing each key once rather than twice per
/// comparison. Keys differ for different moves, so an unstable sort gives the
/// one order.
pub(crate) fn sort<C: NamedCell, K: Copy + Ord>(moves: &mut [CellMove<C, K>]) {
    let mut keyed: Vec<((u128, K), CellMove<C, K>)> = moves.iter().map(|&m| (m.key(), m)).collect();
    keyed.sort_unstable_by_key(|&(key, _)| key);
    for (slot, (_, m)) in moves.iter_mut().zip(keyed) {
        *slot = m;
    }
}
