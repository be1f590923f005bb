//! The HTTP door: the API, board pictures, the pages over HTTP and in a real browser, the scope of tokens.

mod api;
mod board;
mod browser;
mod numbers; // issue 32, slice T
mod pages;
mod scope;
