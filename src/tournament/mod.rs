// STAND-IN for slice A: the lead takes A's file at merge.
//! Tournament logic without I/O: pairing and standings (stand-in).

pub mod pairing;
pub mod standings;
