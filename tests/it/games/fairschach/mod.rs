//! Fairschach: the oracle and property tests against a model of the rules.

mod oracle;
mod props;
