//! Words the games share in their legends and option lists
//! ([`super::Variant::legend`], [`super::Variant::effective_options`]).

/// The chess pieces as a text board writes them (FEN's letters).
pub(crate) const CHESS_PIECES: &str = "K king, Q queen, R rook, B bishop, N knight, P pawn";

/// The letter case of a two-seat chess board: White upper case, Black lower case.
pub(crate) const WHITE_UPPER: &str = "upper case is White (K), lower case Black (k); . is an empty square";

/// An on/off option's value as `Options` spells it.
pub(crate) fn on_off(on: bool) -> String {
    if on { "on" } else { "off" }.to_owned()
}

/// A count that may be off (`no_progress`, `normal_below`): the number or `off`.
pub(crate) fn off_or(n: Option<u32>) -> String {
    n.map_or_else(|| "off".to_owned(), |n| n.to_string())
}

/// The line naming each seat's letter, as `s South, w West`: the letter a
/// text board writes before each of the seat's pieces.
pub(crate) fn seat_letters(letters: &[char], names: &[&str]) -> String {
    let seats: Vec<String> = letters.iter().zip(names).map(|(l, n)| format!("{l} {}", capitalized(n))).collect();
    format!("each piece is its seat's letter, then the piece: {}", seats.join(", "))
}

/// `name` with its first letter in upper case.
pub(crate) fn capitalized(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}
