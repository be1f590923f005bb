//! Invitations (issue 31 point 3): games and tournaments with invited
//! players, answered by link (HTTP, the page) and by mail (the mail door).

mod browser;
pub(crate) mod http; // its invitation-link reader serves the OpenPGP invitation tests too
pub(crate) mod mail; // its outbox and mail readers serve the OpenPGP invitation tests too
