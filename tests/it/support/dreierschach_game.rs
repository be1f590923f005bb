//! The Dreierschach game that `games::dreierschach::http` plays over HTTP and
//! `mail::e2e` through real SMTP and IMAP servers: a smothered mate in 16
//! moves (White 3, Brown 0, Black 1), each move as a player sends it, in
//! several of the notations of `docs/rules/dreierschach.md` §8, and as the steward
//! writes it (from-to).

/// Each turn's move as sent, and as written.
pub const MATE: [(&str, &str); 16] = [
    ("Sc2", "a3-c2"),
    ("4h5", "h4-h5"),
    ("m12-m11", "m12-m11"),
    ("Nf4", "c2-f4"),
    ("e1e2", "e1-e2"),
    ("l12xl11", "l12-l11"),
    ("Sf4-i6", "f4-i6"),
    ("e2-e3", "e2-e3"),
    ("12k11", "k12-k11"),
    ("S7d8", "a7-d8"),
    ("e3-e4+", "e3-e4"),
    ("j12-j11", "j12-j11"),
    ("Nd8-f7", "d8-f7"),
    ("f2-f3", "f2-f3"),
    ("i12-i11", "i12-i11"),
    ("Sh6#", "f7-h6"),
];
