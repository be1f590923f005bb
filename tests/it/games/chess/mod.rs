//! Chess: perft against shakmaty, and German move letters by mail and HTTP.

mod german_moves;
mod perft;
