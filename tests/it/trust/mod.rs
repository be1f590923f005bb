//! Trust: keys, signed and sealed moves, transcripts and `verify`, signed actions.

mod openpgp_encrypted_mail; // issue 33: mails encrypted to a player who chose it
mod openpgp_keys; // issue 33: keys at invitation and for tournaments, first use, signed conditional lines
mod openpgp_sealed; // issue 33: encrypted replies, signed mails
mod openpgp_signcrypt; // issue 33: signed-and-encrypted replies
mod openpgp_signed; // issue 33
mod pgp_game; // the steward's side the OpenPGP tests share
pub(crate) mod pgp_tools; // GnuPG and RNP as players drive them (also for the desk tests)
mod smaller_holes;
mod verify_complete;
mod wire;
