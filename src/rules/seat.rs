//! Seats at the table and small sets of them.

/// A seat at the table: the index of a player position in the variant's seat list.
///
/// Seat names ("white", "black", …) belong to the variant: see
/// [`Variant::seat_names`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seat(pub(super) u8);

impl Seat {
    /// Seats are numbered from 0; a game has at most [`SeatSet::MAX`] of them.
    pub const fn new(index: u8) -> Seat {
        assert!(index < SeatSet::MAX);
        Seat(index)
    }

    /// The position of this seat in the variant's seat list.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// This seat's name among `names` (a game's seat names, in seat order), or
    /// `seat N` (counted from 1) for a seat beyond them.
    pub fn name_in<S: AsRef<str>>(self, names: &[S]) -> String {
        names.get(self.index()).map_or_else(|| format!("seat {}", self.index() + 1), |s| s.as_ref().to_owned())
    }
}

/// A small set of seats, in seat order.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SeatSet(pub(super) u8);

impl SeatSet {
    /// The most seats any variant has.
    pub const MAX: u8 = 4;

    /// No seat.
    pub const EMPTY: SeatSet = SeatSet(0);

    /// The set holding just `seat`.
    pub const fn only(seat: Seat) -> SeatSet {
        SeatSet(1 << seat.0)
    }

    /// Seats `0..n`.
    pub const fn first(n: u8) -> SeatSet {
        SeatSet(((1u16 << n) - 1) as u8)
    }

    /// Adds a seat.
    pub const fn with(self, seat: Seat) -> SeatSet {
        SeatSet(self.0 | 1 << seat.0)
    }

    /// Whether `seat` is in the set.
    pub const fn contains(self, seat: Seat) -> bool {
        self.0 & (1 << seat.0) != 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The number of seats in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The seats in seat order.
    pub fn iter(self) -> impl Iterator<Item = Seat> {
        (0..Self::MAX).filter(move |i| self.0 & (1 << i) != 0).map(Seat)
    }
}

impl FromIterator<Seat> for SeatSet {
    fn from_iter<T: IntoIterator<Item = Seat>>(iter: T) -> SeatSet {
        iter.into_iter().fold(SeatSet::EMPTY, SeatSet::with)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_sets_iterate_in_seat_order() {
        let set = SeatSet::EMPTY.with(Seat::new(2)).with(Seat::new(0));
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![Seat::new(0), Seat::new(2)]);
        assert_eq!(set.len(), 2);
        assert!(!set.contains(Seat::new(1)));
        assert_eq!(SeatSet::first(4).len(), 4);
    }
}
