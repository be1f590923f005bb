//! The organiser's desk (issue 31): the director's tools over HTTP (adjudicate,
//! abort, extend, replace, relink) in two-, three- and four-seat games, what
//! `verify` makes of them, a director's token confined to its tournament, the
//! lists of games, and the desk pages.

mod api;
mod pages;
mod tournament_pages;
