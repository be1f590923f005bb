//! Boards for people: text for mail bodies (SVG and PNG come with the board issue).
//!
//! Renderers draw a [`crate::rules::BoardView`] and never look into a variant's
//! state, so every variant with a square grid is drawn by the same code.

pub mod text;
