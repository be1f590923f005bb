//! Hand-built positions for every rule of `rules/fairschach.md`.
