//! Reads a perft data file (`tests/data/*.perft`): `id <name>`, `state <state
//! string>`, then `perft <depth> <nodes>` lines; `#` starts a comment.

/// One position of the file: its name, its state string and its counts.
pub struct Case {
    /// The `id` line.
    pub id: String,
    /// The `state` line.
    pub state: String,
    /// (depth, nodes) per `perft` line.
    pub counts: Vec<(u32, u64)>,
}

/// The positions of `data`, in file order.
///
/// # Panics
/// A line the format does not have (a broken data file is a broken test).
pub fn cases(data: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for (i, raw) in data.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match (key, cases.last_mut()) {
            ("id", _) => cases.push(Case { id: rest.to_owned(), state: String::new(), counts: Vec::new() }),
            ("state", Some(c)) => rest.clone_into(&mut c.state),
            ("perft", Some(c)) => {
                let mut f = rest.split_whitespace().map(|x| x.parse::<u64>().expect("a number"));
                let (Some(d), Some(n), None) = (f.next(), f.next(), f.next()) else {
                    panic!("line {}: expected `perft <depth> <nodes>`", i + 1);
                };
                c.counts.push((d as u32, n));
            }
            _ => panic!("line {}: unexpected {raw:?}", i + 1),
        }
    }
    assert!(cases.iter().all(|c| !c.state.is_empty() && !c.counts.is_empty()), "every case has a state and counts");
    cases
}
