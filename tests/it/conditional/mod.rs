//! Conditional moves (issue 32, slice C): lines set by HTTP in chess,
//! Fairschach, Vierschach and Dreierschach fire and drop as the moves go, the
//! fired moves are marked in the transcript and `verify` holds, the board mail
//! tells what fired, the lines stay the seat's secret, and the games that do
//! not offer them say why.

mod http;
mod mail;
mod page;
