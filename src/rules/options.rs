//! A game's options as given at creation, and why a rulebook refuses one.

use std::collections::BTreeMap;

use super::VariantId;

/// A game's options as given at creation: option name to value, both text.
///
/// Each rulebook reads the options it knows and refuses any other, so a typo never
/// silently falls back to a default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options(BTreeMap<String, String>);

impl Options {
    /// No options: every default.
    pub fn new() -> Options {
        Options::default()
    }

    /// Sets an option, replacing an earlier value.
    pub fn set(mut self, name: impl Into<String>, value: impl Into<String>) -> Options {
        self.0.insert(name.into(), value.into());
        self
    }

    /// The value of an option, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Refuses any option not in `known`.
    ///
    /// # Errors
    /// [`OptionsError::Unknown`] naming the first unknown option.
    pub fn only(&self, variant: VariantId, known: &[&str]) -> Result<(), OptionsError> {
        match self.0.keys().find(|k| !known.contains(&k.as_str())) {
            Some(name) => Err(OptionsError::Unknown { variant, name: name.clone(), known: known.join(", ") }),
            None => Ok(()),
        }
    }

    /// An on/off option: `on` or `true`, `off` or `false` (any case); `default`
    /// when it is not given.
    ///
    /// # Errors
    /// [`OptionsError::BadValue`] for any other value.
    pub fn switch(&self, name: &'static str, default: bool) -> Result<bool, OptionsError> {
        match self.get(name).map(|v| v.trim().to_ascii_lowercase()) {
            None => Ok(default),
            Some(v) if v == "on" || v == "true" => Ok(true),
            Some(v) if v == "off" || v == "false" => Ok(false),
            Some(_) => Err(OptionsError::BadValue {
                name,
                value: self.get(name).unwrap_or_default().to_owned(),
                expected: "on or off",
            }),
        }
    }

    /// An option that is `off` (the default) or a number of plies, 1 or more
    /// (`no_progress`).
    ///
    /// # Errors
    /// [`OptionsError::BadValue`] for any other value.
    pub fn plies(&self, name: &'static str) -> Result<Option<u32>, OptionsError> {
        match self.get(name).map(str::trim) {
            None => Ok(None),
            Some(v) if v.eq_ignore_ascii_case("off") => Ok(None),
            Some(v) => match v.parse::<u32>() {
                Ok(n) if n > 0 => Ok(Some(n)),
                _ => Err(OptionsError::BadValue {
                    name,
                    value: v.to_owned(),
                    expected: "off or a number of plies (1 or more)",
                }),
            },
        }
    }

    /// The options in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// A game option that the variant does not accept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// The variant has no such option.
    #[error("{variant} has no option {name:?}; {}", if known.is_empty() { "it has no options".to_owned() } else { format!("its options are: {known}") })]
    Unknown {
        /// The variant asked.
        variant: VariantId,
        /// The option given.
        name: String,
        /// The options it has, comma-separated.
        known: String,
    },
    /// The option exists but the value is not one it takes.
    #[error("option {name} does not accept {value:?}; use {expected}")]
    BadValue {
        /// The option.
        name: &'static str,
        /// The value given.
        value: String,
        /// What it accepts.
        expected: &'static str,
    },
    /// The value is refused for a reason of its own (a board record that fails
    /// its checks, say).
    #[error("option {name}: {why}")]
    Invalid {
        /// The option.
        name: &'static str,
        /// What is wrong with the value.
        why: String,
    },
}
