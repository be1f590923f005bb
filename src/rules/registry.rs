//! The registry of games: every variant the steward knows, by name, and the
//! rulebook each name builds.

use std::fmt;
use std::str::FromStr;

use super::{DynVariant, Options, OptionsError, chess, dame, dreierschach, fairschach, tri_d, vierschach};

/// The variants the steward knows, by their interface names.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum VariantId {
    /// Standard chess (`docs/rules/chess.md`).
    Chess,
    /// Simultaneous chess by W. Zühlke (`docs/rules/fairschach.md`).
    Fairschach,
    /// Chess for four on a plus-shaped board (`docs/rules/vierschach.md`).
    Vierschach,
    /// Chess for three on 126 hexagons (`docs/rules/dreierschach.md`).
    Dreierschach,
    /// 3D chess on three main boards and four attack boards (`docs/rules/tri-d-chess.md`).
    TriDChess,
    /// Draughts for three on a board given as data (`docs/rules/trialectic-dame.md`).
    TrialecticDame,
}

impl VariantId {
    /// Every variant, in the order `--help` lists them.
    pub const ALL: [VariantId; 6] = [
        VariantId::Chess,
        VariantId::Fairschach,
        VariantId::Vierschach,
        VariantId::Dreierschach,
        VariantId::TriDChess,
        VariantId::TrialecticDame,
    ];

    /// The game a new game is when none is named: the headline game.
    pub const HEADLINE: VariantId = VariantId::Fairschach;

    /// The names of every variant, in [`VariantId::ALL`]'s order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        VariantId::ALL.into_iter().map(VariantId::name)
    }

    /// The key of the state string in the conformance JSON (docs/conformance.md): `fen`
    /// for the variants whose state is a FEN, `state` for the others.
    pub const fn state_key(self) -> &'static str {
        match self {
            VariantId::Chess | VariantId::Fairschach => "fen",
            VariantId::Vierschach | VariantId::Dreierschach | VariantId::TriDChess | VariantId::TrialecticDame => {
                "state"
            }
        }
    }

    /// Whether the conformance JSON writes an outcome with the winner and every
    /// seat's score (`{"result": "win", "winner": "y", "reason": …, "scores":
    /// {"y": 1, …}}`, docs/rules/trialectic-dame.md §8) rather than as one score text.
    pub const fn outcome_with_scores(self) -> bool {
        matches!(self, VariantId::TrialecticDame)
    }

    /// The name used in the API, the CLI and the store.
    pub const fn name(self) -> &'static str {
        match self {
            VariantId::Chess => "chess",
            VariantId::Fairschach => "fairschach",
            VariantId::Vierschach => "vierschach",
            VariantId::Dreierschach => "dreierschach",
            VariantId::TriDChess => "tri-d-chess",
            VariantId::TrialecticDame => "trialectic-dame",
        }
    }

    /// Builds the rulebook of this variant with the game's options applied.
    ///
    /// # Errors
    /// An option the variant does not know, or a value it does not accept.
    pub fn rulebook(self, options: &Options) -> Result<Box<dyn DynVariant>, OptionsError> {
        Ok(match self {
            VariantId::Chess => Box::new(chess::Chess::new(options)?),
            VariantId::Fairschach => Box::new(fairschach::Fairschach::new(options)?),
            VariantId::Vierschach => Box::new(vierschach::Vierschach::new(options)?),
            VariantId::Dreierschach => Box::new(dreierschach::Dreierschach::new(options)?),
            VariantId::TriDChess => Box::new(tri_d::TriDChess::new(options)?),
            VariantId::TrialecticDame => Box::new(dame::TrialecticDame::new(options)?),
        })
    }
}

impl fmt::Display for VariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for VariantId {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<VariantId, UnknownVariant> {
        let wanted = s.trim().to_ascii_lowercase();
        VariantId::ALL.into_iter().find(|v| v.name() == wanted).ok_or_else(|| UnknownVariant(s.to_owned()))
    }
}

/// A variant name that is not one of [`VariantId::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {:?}; known variants: {}", .0, VariantId::names().collect::<Vec<_>>().join(", "))]
pub struct UnknownVariant(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_round_trip() {
        for v in VariantId::ALL {
            assert_eq!(v.name().parse::<VariantId>(), Ok(v));
        }
        assert_eq!(" Fairschach ".parse::<VariantId>(), Ok(VariantId::Fairschach));
        assert!("checkers".parse::<VariantId>().is_err());
    }

    #[test]
    fn unknown_options_are_refused_by_name() {
        let err = VariantId::Chess.rulebook(&Options::new().set("pause", "off")).err().expect("refused");
        assert!(err.to_string().contains("\"pause\""), "{err}");
    }
}
