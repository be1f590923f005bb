//! What the steward writes: its mails composed from `templates/` ([`compose`])
//! and the game's record as mails show it ([`record`]).
//!
//! This module sits below the steward: the steward uses it, and it imports
//! neither the steward nor the mail door, so imports run one way (door →
//! protocol → steward → store/outbox → mail out).

pub mod compose;
pub mod record;
