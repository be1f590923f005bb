//! The games, one module each, the per-game tables (`perft`, `oracle`) of tests that differ only in their data (in `data/`), and each game's text board and picture (`pictures`).

mod chess;
mod dame;
mod dreierschach;
mod fairschach;
mod oracle;
mod perft;
mod pictures;
mod tri_d;
mod vierschach;
