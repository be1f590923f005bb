//! `fairsteward rules …`: the conformance interface of docs/conformance.md.
//!
//! Every command prints one JSON value on stdout. Bad input of any kind (an
//! unreadable or inconsistent state, an illegal or ambiguous move, a move from a
//! seat that is not to move) is a [`RulesError`] or an input error, which `main`
//! prints as one line on stderr with exit status 2.

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::rules::{DynVariant, Options, Outcome, RulesError, Seat, VariantId};

/// `fairsteward rules <variant> <command>`.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// The variant (one of the names listed below).
    #[arg(value_parser = parse_variant, help = variant_help())]
    pub variant: VariantId,
    #[command(subcommand)]
    pub command: RulesCommand,
}

fn variant_help() -> String {
    format!("The variant: {}", VariantId::names().collect::<Vec<_>>().join(", "))
}

fn parse_variant(s: &str) -> Result<VariantId, String> {
    s.parse().map_err(|e: crate::rules::UnknownVariant| e.to_string())
}

/// Game options shared by the commands (each variant refuses the ones it lacks).
#[derive(Debug, Args, Clone, Default)]
pub struct OptionArgs {
    /// Option `pause` (simultaneous games): moved (default), capturable or off.
    #[arg(long)]
    pub pause: Option<String>,
    /// Option `normal_below` (simultaneous games): off or a number of pieces.
    #[arg(long)]
    pub normal_below: Option<String>,
    /// Option `mode` (four-seat games): teams (default) or ffa.
    #[arg(long)]
    pub mode: Option<String>,
    /// Option `mated` (four-seat games): a mated seat's pieces freeze or remove.
    #[arg(long)]
    pub mated: Option<String>,
    /// Option `partner_capture` (four-seat games): on or off (default off).
    #[arg(long)]
    pub partner_capture: Option<String>,
    /// Option `pawn_jump` (four-seat games): on (default) or off.
    #[arg(long)]
    pub pawn_jump: Option<String>,
    /// Option `ally_promotion` (four-seat games): on (default) or off.
    #[arg(long)]
    pub ally_promotion: Option<String>,
    /// Option `no_progress` (games of three or four seats): off (default) or a number of plies.
    #[arg(long)]
    pub no_progress: Option<String>,
    /// Option `board` (boards given as data): a file holding the board record
    /// in JSON, passed to the variant as the option's value.
    #[arg(long, value_name = "FILE")]
    pub board: Option<PathBuf>,
    /// Option `side` (boards of several sizes): the board's side, e.g. 10; for
    /// `legal`, a seat's name is read as `--side` of old (the seat to list).
    #[arg(long)]
    pub side: Option<String>,
    /// Option `setup` (three-seat draughts): 1 (default) or 2.
    #[arg(long)]
    pub setup: Option<String>,
    /// Option `enclosure` (three-seat draughts): none (default), take or remove.
    #[arg(long)]
    pub enclosure: Option<String>,
    /// Option `dame_first` (three-seat draughts): on or off (default off).
    #[arg(long)]
    pub dame_first: Option<String>,
    /// Option `en_passant` (hexagon boards): round (default) or next.
    #[arg(long)]
    pub en_passant: Option<String>,
    /// Option `names` (hexagon boards): the cell names of move text, v2.2 (default) or v2.3.
    #[arg(long)]
    pub names: Option<String>,
}

impl OptionArgs {
    /// The options, reading the board file if one is named; `side` is the
    /// option `side` when `side_is_option`.
    fn options(&self, side_is_option: bool) -> anyhow::Result<Options> {
        let mut options = Options::new();
        if let Some(p) = &self.pause {
            options = options.set("pause", p);
        }
        let named = [
            ("normal_below", &self.normal_below),
            ("mode", &self.mode),
            ("mated", &self.mated),
            ("partner_capture", &self.partner_capture),
            ("pawn_jump", &self.pawn_jump),
            ("ally_promotion", &self.ally_promotion),
            ("no_progress", &self.no_progress),
            ("setup", &self.setup),
            ("enclosure", &self.enclosure),
            ("dame_first", &self.dame_first),
            ("en_passant", &self.en_passant),
            ("names", &self.names),
        ];
        for (name, value) in named {
            if let Some(v) = value {
                options = options.set(name, v);
            }
        }
        if let (true, Some(side)) = (side_is_option, &self.side) {
            options = options.set("side", side);
        }
        if let Some(path) = &self.board {
            let limit = 1 << 20;
            let size =
                std::fs::metadata(path).with_context(|| format!("cannot read board file {}", path.display()))?.len();
            if size > limit {
                bail!("board file {} is {size} bytes, more than {limit}", path.display());
            }
            let text =
                std::fs::read_to_string(path).with_context(|| format!("cannot read board file {}", path.display()))?;
            options = options.set("board", text);
        }
        Ok(options)
    }
}

/// The state argument, as `--state` or `--fen`; the start state when omitted.
#[derive(Debug, Args, Clone, Default)]
pub struct StateArg {
    /// The state string as the variant's rules file defines it (a FEN where the
    /// variant uses one); default: the start state.
    #[arg(long, visible_alias = "fen")]
    pub state: Option<String>,
}

/// What `fairsteward rules <variant>` can do.
#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Print the start state.
    Start {
        #[command(flatten)]
        options: OptionArgs,
    },
    /// List the legal moves of a seat, canonical (UCI), sorted. The seat is
    /// `--side` (white, black, …), which may be left out when only one seat is
    /// to move; a `--side` that names no seat is the board option `side`.
    Legal {
        #[command(flatten)]
        state: StateArg,
        #[command(flatten)]
        options: OptionArgs,
    },
    /// Resolve one turn: every seat to move gives its move.
    Resolve {
        #[command(flatten)]
        state: StateArg,
        /// White's move.
        #[arg(long, allow_hyphen_values = true)]
        white: Option<String>,
        /// Black's move.
        #[arg(long, allow_hyphen_values = true)]
        black: Option<String>,
        /// A move as SEAT=MOVE (for any seat; repeatable).
        #[arg(long = "move", value_name = "SEAT=MOVE")]
        moves: Vec<String>,
        /// The game's earlier states, one per line, start first (for repetition).
        #[arg(long)]
        history: Option<PathBuf>,
        #[command(flatten)]
        options: OptionArgs,
    },
    /// Play moves from a state, turn by turn (simultaneous turns take one move per
    /// seat to move, in seat order).
    Play {
        #[command(flatten)]
        state: StateArg,
        /// The moves, separated by spaces, in any accepted notation.
        #[arg(long, allow_hyphen_values = true)]
        moves: String,
        #[command(flatten)]
        options: OptionArgs,
    },
    /// Count move sequences of a given depth.
    Perft {
        #[command(flatten)]
        state: StateArg,
        /// The number of turns.
        #[arg(long)]
        depth: u32,
        #[command(flatten)]
        options: OptionArgs,
    },
}

#[derive(Serialize)]
struct OutcomeJson {
    result: String,
    reason: &'static str,
}

/// The outcome as the conformance JSON writes it; `result` is the scores in seat
/// order (`1-0`, `1/2-1/2`; for four seats `1-0-1-0`, `1/2-0-1/2-1/2`).
fn outcome_json(outcome: Option<Outcome>, seats: usize) -> Value {
    match outcome {
        None => Value::Null,
        Some(o) => json!(OutcomeJson { result: o.result.score_text(seats), reason: o.reason.as_str() }),
    }
}

/// The outcome with the winner and every seat's score, seats by their first
/// letter (see [`VariantId::outcome_with_scores`]): `{"result": "win"|"draw",
/// "winner": "y"|null, "reason": …, "scores": {"y": 1, "r": 0, "b": 0}}`, ½ as 0.5.
fn outcome_with_scores(outcome: Option<Outcome>, seat_names: &[&str]) -> Value {
    let Some(o) = outcome else { return Value::Null };
    let letter = |i: usize| seat_names[i].chars().next().map(String::from).unwrap_or_else(|| (i + 1).to_string());
    let winners: Vec<String> = o.result.winners().iter().map(|s| letter(s.index())).collect();
    let mut scores = Map::new();
    for i in 0..seat_names.len() {
        let half = o.result.half_points(Seat::new(i as u8));
        scores.insert(letter(i), if half == 1 { json!(0.5) } else { json!(half / 2) });
    }
    json!({
        "result": if winners.is_empty() { "draw" } else { "win" },
        "winner": if winners.len() == 1 { json!(winners[0]) } else { Value::Null },
        "reason": o.reason.as_str(),
        "scores": scores,
    })
}

/// "The game is already over", with the score as this game writes it.
fn game_over(rules: &dyn DynVariant, o: Outcome) -> anyhow::Error {
    match rules.seat_names().len() {
        2 => RulesError::GameOver(o).into(),
        n => anyhow::anyhow!("the game is already over: {} by {}", o.result.score_text(n), o.reason),
    }
}

fn current_state(rules: &dyn DynVariant, arg: &StateArg) -> Result<String, RulesError> {
    match &arg.state {
        Some(s) => Ok(rules.canonical_state(s)?),
        None => Ok(rules.start()),
    }
}

/// Runs a rules command and returns the JSON to print.
///
/// # Errors
/// Bad input: an unknown option, an invalid state, an illegal move, an unreadable
/// history file. The message names what was wrong.
pub fn run(args: &RulesArgs) -> anyhow::Result<Value> {
    let variant = args.variant;
    let build = |o: &OptionArgs| -> anyhow::Result<Box<dyn DynVariant>> { Ok(variant.rulebook(&o.options(true)?)?) };
    let outcome_json = |outcome: Option<Outcome>, rules: &dyn DynVariant| {
        if variant.outcome_with_scores() {
            outcome_with_scores(outcome, rules.seat_names())
        } else {
            outcome_json(outcome, rules.seat_names().len())
        }
    };
    match &args.command {
        RulesCommand::Start { options } => Ok(json!(build(options)?.start())),
        RulesCommand::Legal { state, options } => {
            // `--side` names the seat, unless it names none and the variant
            // takes it as its board option.
            let plain = variant.rulebook(&options.options(false)?)?;
            let side = options.side.as_deref().filter(|name| plain.seat(name).is_ok());
            let rules = match (side, &options.side) {
                (None, Some(name)) => match variant.rulebook(&options.options(true)?) {
                    Ok(rules) => rules,
                    Err(crate::rules::OptionsError::Unknown { .. }) => {
                        return Err(plain.seat(name).unwrap_err().into());
                    }
                    Err(e) => return Err(e.into()),
                },
                _ => plain,
            };
            let state = current_state(&*rules, state)?;
            let seat = match side {
                Some(name) => rules.seat(name)?,
                None => {
                    let to_move = rules.seats_to_move(&state)?;
                    let mut seats = to_move.iter();
                    match (seats.next(), seats.next()) {
                        (Some(seat), None) => seat,
                        _ => bail!("several seats are to move; give --side ({})", rules.seat_names().join(" or ")),
                    }
                }
            };
            // A seat not to move has no moves to list: say so, rather than print
            // an empty list that reads as "no legal move" (issue 32).
            let to_move = rules.seats_to_move(&state)?;
            if !to_move.contains(seat) {
                let names: Vec<String> = to_move.iter().map(|s| s.name_in(rules.seat_names())).collect();
                let now =
                    if names.is_empty() { "nobody is".to_owned() } else { format!("{} to move", names.join(" and ")) };
                // The conformance interface answers an empty list (the oracles
                // compare it); the reason goes to stderr, for a person reading.
                eprintln!(
                    "fairsteward: {} is not to move in this state ({now}), so it has no legal moves; give --side for a seat to move, or another --state",
                    seat.name_in(rules.seat_names())
                );
                return Ok(json!([]));
            }
            Ok(json!(rules.legal_moves(&state, seat)?))
        }
        RulesCommand::Resolve { state, white, black, moves, history, options } => {
            let rules = build(options)?;
            let state = current_state(&*rules, state)?;
            let mut given: Vec<(Seat, String)> = Vec::new();
            for (name, mv) in [("white", white), ("black", black)] {
                if let Some(mv) = mv {
                    given.push((rules.seat(name)?, mv.clone()));
                }
            }
            for m in moves {
                let (seat, mv) = m.split_once('=').with_context(|| format!("--move {m:?}: write it as SEAT=MOVE"))?;
                given.push((rules.seat(seat)?, mv.to_owned()));
            }
            let history = match history {
                Some(path) => read_history(&*rules, path, &state)?,
                None => Vec::new(),
            };
            let r = rules.resolve(&history, &state, &given)?;
            let mut out = Map::new();
            out.insert(variant.state_key().to_owned(), json!(r.state));
            for (i, name) in rules.seat_names().iter().enumerate() {
                let status = r.moves.iter().find(|m| m.seat.index() == i).map(|m| m.result.as_str());
                out.insert((*name).to_owned(), json!(status));
            }
            out.insert("outcome".to_owned(), outcome_json(r.outcome, &*rules));
            Ok(Value::Object(out))
        }
        RulesCommand::Play { state, moves, options } => {
            let rules = build(options)?;
            // A hand-made state whose seat to move cannot: its turns first.
            let mut state = rules.settled(&current_state(&*rules, state)?)?;
            let mut history: Vec<String> = Vec::new();
            let mut outcome = rules.outcome(&history, &state)?;
            let mut texts = moves.split_whitespace().peekable();
            while texts.peek().is_some() {
                if let Some(o) = outcome {
                    return Err(game_over(&*rules, o));
                }
                let mut turn = Vec::new();
                for seat in rules.seats_to_move(&state)?.iter() {
                    let Some(text) = texts.next() else {
                        bail!(
                            "the moves end in the middle of a turn: {} has no move",
                            rules.seat_names()[seat.index()]
                        );
                    };
                    turn.push((seat, text.to_owned()));
                }
                let r = rules.resolve(&history, &state, &turn)?;
                history.push(std::mem::replace(&mut state, r.state));
                outcome = r.outcome;
            }
            Ok(json!({ "state": state, "outcome": outcome_json(outcome, &*rules) }))
        }
        RulesCommand::Perft { state, depth, options } => {
            let rules = build(options)?;
            let state = rules.settled(&current_state(&*rules, state)?)?;
            Ok(json!(rules.perft(&state, *depth)?))
        }
    }
}

/// Reads a history file: one state per line, start first. A line equal to the
/// current state itself is dropped, so files that end with it count it only once.
fn read_history(rules: &dyn DynVariant, path: &PathBuf, current: &str) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read history file {}", path.display()))?;
    let mut states = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let state =
            rules.canonical_state(line).with_context(|| format!("history file {} line {}", path.display(), n + 1))?;
        if state != current {
            states.push(state);
        }
    }
    Ok(states)
}
