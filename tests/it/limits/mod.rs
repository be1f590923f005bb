//! Bounded doors and resources: connections, floods, picture sizes, big mails.

mod bounds;
mod connections;
mod resources;
