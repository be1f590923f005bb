//! Trust: keys, signed and sealed moves, transcripts and `verify`, signed actions.

mod openpgp_keys; // issue 33: keys at invitation and for tournaments, first use, signed conditional lines
mod openpgp_sealed; // issue 33: encrypted replies, signed mails
mod openpgp_signed; // issue 33
mod smaller_holes;
mod verify_complete;
mod wire;
