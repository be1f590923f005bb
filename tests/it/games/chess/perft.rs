//! Chess perft through the rules engine's [`Variant`] trait.
//!
//! The positions and node counts live in `tests/it/games/data/chess.perft` (format described
//! at its top). Every count is checked against (1) and (2), one per position also (3):
//!
//! 1. against `shakmaty::perft` on the position read by shakmaty itself, so a typo
//!    in the data file fails loudly instead of "confirming" a wrong engine;
//! 2. against `Variant::perft` of [`Chess`], the provided trait method that walks
//!    `seats_to_move` / `legal_moves` / `advance`;
//! 3. once per position (its shallowest count of depth ≥ 2) against
//!    `DynVariant::perft` on the FEN string, through `VariantId::rulebook`, which
//!    must also give the FEN back unchanged from `canonical_state`.
//!
//! Positions run on scoped threads; a failure lists every mismatch at once.

use std::thread;
use std::time::Instant;

use fairsteward::rules::chess::Chess;
use fairsteward::rules::{DynVariant, Options, Variant, VariantId};
use shakmaty::CastlingMode;
use shakmaty::fen::Fen;

const DATA: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/games/data/chess.perft"));

/// One position of the data file with its expected node counts.
#[derive(Debug)]
struct Case {
    id: String,
    /// The line of the `id` entry, for messages.
    line: usize,
    fen: String,
    /// `(depth, nodes)`, in file order.
    counts: Vec<(u32, u64)>,
}

impl Case {
    fn name(&self) -> String {
        format!("{} (chess.perft:{})", self.id, self.line)
    }
}

/// Reads the data file; panics with the line number on anything malformed.
fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for (i, raw) in DATA.lines().enumerate() {
        let n = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (key, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        match key {
            "id" => {
                assert!(!rest.is_empty(), "chess.perft:{n}: `id` without a name");
                cases.push(Case { id: rest.to_owned(), line: n, fen: String::new(), counts: Vec::new() });
            }
            "fen" => {
                let case = cases.last_mut().unwrap_or_else(|| panic!("chess.perft:{n}: `fen` before any `id`"));
                assert!(case.fen.is_empty(), "chess.perft:{n}: second `fen` for {}", case.id);
                rest.clone_into(&mut case.fen);
            }
            "perft" => {
                let case = cases.last_mut().unwrap_or_else(|| panic!("chess.perft:{n}: `perft` before any `id`"));
                let mut fields = rest.split_whitespace();
                let depth = fields.next().and_then(|d| d.parse().ok());
                let nodes = fields.next().and_then(|d| d.parse().ok());
                match (depth, nodes, fields.next()) {
                    (Some(d), Some(nodes), None) => case.counts.push((d, nodes)),
                    _ => panic!("chess.perft:{n}: expected `perft <depth> <nodes>`, found {raw:?}"),
                }
            }
            _ => panic!("chess.perft:{n}: unknown line {raw:?}"),
        }
    }
    for case in &cases {
        assert!(!case.fen.is_empty(), "{}: no `fen` line", case.name());
        assert!(!case.counts.is_empty(), "{}: no `perft` line", case.name());
    }
    let mut ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), cases.len(), "duplicate ids in chess.perft");
    cases
}

/// Runs `check` on every case in parallel and fails with every mismatch it reports.
fn for_every_case(what: &str, check: impl Fn(&Case) -> Vec<String> + Sync) {
    let cases = cases();
    let started = Instant::now();
    let failures: Vec<String> = thread::scope(|scope| {
        let handles: Vec<_> = cases
            .iter()
            .map(|case| {
                let check = &check;
                scope.spawn(move || {
                    let t = Instant::now();
                    let failures = check(case);
                    eprintln!("{what}: {:<28} {:>8.3} s", case.id, t.elapsed().as_secs_f64());
                    failures
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a perft thread panicked")).collect()
    });
    eprintln!("{what}: {} positions in {:.3} s", cases.len(), started.elapsed().as_secs_f64());
    assert!(failures.is_empty(), "{what}: {} mismatches:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn data_file_has_the_expected_positions() {
    let cases = cases();
    let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    for id in ["start", "kiwipete", "position-3", "position-4", "position-5", "position-6", "illegal-ep-1"] {
        assert!(ids.contains(&id), "chess.perft has no case {id:?}");
    }
    let total: usize = cases.iter().map(|c| c.counts.len()).sum();
    assert!(total >= 30, "only {total} perft lines");
}

/// The data file itself, against shakmaty's own perft.
#[test]
fn data_file_agrees_with_shakmaty() {
    for_every_case("shakmaty", |case| {
        let fen = match case.fen.parse::<Fen>() {
            Ok(fen) => fen,
            Err(e) => return vec![format!("{}: shakmaty cannot read the FEN: {e}", case.name())],
        };
        let pos: shakmaty::Chess = match fen.into_position(CastlingMode::Standard) {
            Ok(pos) => pos,
            Err(e) => return vec![format!("{}: shakmaty refuses the position: {e}", case.name())],
        };
        case.counts
            .iter()
            .filter_map(|&(depth, nodes)| {
                let got = shakmaty::perft(&pos, depth);
                (got != nodes)
                    .then(|| format!("{}: perft {depth}: file says {nodes}, shakmaty counts {got}", case.name()))
            })
            .collect()
    });
}

/// `Variant::perft` of the chess rulebook, on the parsed state.
#[test]
fn variant_perft_matches_the_data_file() {
    for_every_case("Variant::perft", |case| {
        let state = match Chess.parse_state(&case.fen) {
            Ok(state) => state,
            Err(e) => return vec![format!("{}: {e}", case.name())],
        };
        case.counts
            .iter()
            .filter_map(|&(depth, nodes)| {
                let got = Variant::perft(&Chess, &state, depth);
                (got != nodes)
                    .then(|| format!("{}: perft {depth}: expected {nodes}, Variant::perft gives {got}", case.name()))
            })
            .collect()
    });
}

/// `DynVariant::perft` on the FEN string, once per position, through the rulebook
/// the steward would build; also checks that the FEN comes back unchanged.
#[test]
fn dyn_variant_perft_on_the_state_string() {
    let rules: Box<dyn DynVariant> = VariantId::Chess.rulebook(&Options::new()).expect("chess has no options");
    let rules = &*rules;
    for_every_case("DynVariant::perft", |case| {
        let mut failures = Vec::new();
        match rules.canonical_state(&case.fen) {
            Ok(canonical) if canonical == case.fen => {}
            Ok(canonical) => failures.push(format!("{}: FEN reads back as {canonical:?}", case.name())),
            Err(e) => failures.push(format!("{}: {e}", case.name())),
        }
        let &(depth, nodes) =
            case.counts.iter().filter(|(d, _)| *d >= 2).min_by_key(|(d, _)| *d).unwrap_or(&case.counts[0]);
        match rules.perft(&case.fen, depth) {
            Ok(got) if got == nodes => {}
            Ok(got) => failures
                .push(format!("{}: perft {depth}: expected {nodes}, DynVariant::perft gives {got}", case.name())),
            Err(e) => failures.push(format!("{}: DynVariant::perft refused the state: {e}", case.name())),
        }
        failures
    });
}

/// Depth 0 counts the position itself; a side with no move has no sequences.
#[test]
fn perft_edge_cases() {
    let start = Variant::start(&Chess);
    assert_eq!(Variant::perft(&Chess, &start, 0), 1);
    // Checkmated (fool's mate): no moves at any depth ≥ 1.
    let mated = Chess.parse_state("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3").expect("fen");
    assert_eq!(Variant::perft(&Chess, &mated, 1), 0);
    assert_eq!(Variant::perft(&Chess, &mated, 3), 0);
    let rules = VariantId::Chess.rulebook(&Options::new()).expect("rulebook");
    assert!(rules.perft("not a fen", 1).is_err());
}
