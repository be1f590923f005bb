//! The house's own rules: which code may name a game, and which folder may use which.

mod layers;
mod variant_names;
