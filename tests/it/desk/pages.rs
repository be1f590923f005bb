//! The desk pages (below).
