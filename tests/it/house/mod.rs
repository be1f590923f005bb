//! The house's own rules: which code may name a game, which folder may use which, and docs that hold true.

mod docs;
mod layers;
mod variant_names;
