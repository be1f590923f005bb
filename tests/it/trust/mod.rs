//! Trust: keys, signed and sealed moves, transcripts and `verify`, signed actions.

mod openpgp_encrypted_mail; // issue 33: mails encrypted to a player who chose it
mod openpgp_sealed; // issue 33: encrypted replies, signed mails
mod openpgp_signed; // issue 33
mod smaller_holes;
mod verify_complete;
mod wire;
