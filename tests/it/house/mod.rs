//! The house's own rules: which code may name a game.

mod variant_names;
