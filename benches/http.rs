//! Placeholder replaced by the HTTP benchmark (issue 3).
fn main() {}
