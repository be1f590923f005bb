//! The games, one module each, and the per-game tables (`perft`, `oracle`) of tests that differ only in their data (in `data/`).

mod chess;
mod dame;
mod dreierschach;
mod fairschach;
mod oracle;
mod perft;
mod tri_d;
mod vierschach;
