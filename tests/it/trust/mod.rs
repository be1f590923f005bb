//! Trust: keys, signed and sealed moves, transcripts and `verify`, signed actions.

mod smaller_holes;
mod verify_complete;
mod wire;
