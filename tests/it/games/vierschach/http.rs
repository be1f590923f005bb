//! A four-seat Vierschach game over HTTP, from the start to a team victory.
//!
//! The steward runs in-process (`fairsteward::server::serve` on a loopback port,
//! with its own temporary data directory), as in `tests/it/web/api.rs`. The moves follow
//! `docs/rules/vierschach.md` (teams mode, `mated = freeze`); every state and the
//! outcome were checked with `fairsteward rules vierschach play` first.
//!
//! The game (13 moves, south + north against west + east):
//!
//! | turn | south | west | north | east |
//! | --- | --- | --- | --- | --- |
//! | 1–4 | d2-d3 | b6-c6 | e13-e12 | m7-l7 |
//! | 5–8 | k2-k3 | b8-c8 | g13-g12+ (west) | m9-l9 |
//! | 9–11 | f2-f3++ (west) | *mated, frozen* | d13-d12 | m4-l4 |
//! | 12–13 | h2-h3+ (east) | *skipped* | i13-i12++ (east) | *mated: south and north win* |
//!
//! Both queens aim at both enemy kings: south's g1 along g1–a7 (through f2 and
//! b6) and g1–n8 (through h2 and m7), north's h14 along h14–a7 (through g13 and
//! b8) and h14–n8 (through i13 and m9). West and east step the pawns off those
//! lines first; then each enemy king is checked by both queens before its turn.
//! A double check cannot be blocked, and the king's other neighbours are its own
//! pieces, so the seat is mated when it is to move (§7) and freezes. West is
//! mated after turn 9 and stays mated (it is examined and skipped after turns 11
//! and 12); east is mated after turn 13. Both seats of a team mated: the other
//! team wins (§8), 1-0-1-0.

use crate::support as common;

use std::time::Duration;

use common::{MAIL_DOMAIN, Part, Server, eventually_within, parse_mail, spool_files};
use serde_json::{Value, json};

/// The start, `docs/rules/vierschach.md` §10.
const START: &str = "nRnNnBnKnQnBnNnR/nPnPnPnPnPnPnPnP/8/wRwP10ePeR/wNwP10ePeN/wBwP10ePeB/wQwP10ePeK/wKwP10ePeQ/wBwP10ePeB/wNwP10ePeN/wRwP10ePeR/8/sPsPsPsPsPsPsPsP/sRsNsBsQsKsBsNsR s d1,k1,a4,n4,a11,n11,d14,k14 - aaaa 0 1";
/// After the 13 moves (`fairsteward rules vierschach play`): west and east mated.
const FINAL: &str = "nRnNnBnKnQnBnNnR/2nP1nP1nPnP/nPnP1nP1nP2/wRwP10ePeR/wNwP10ePeN/wBwP9eP1eB/wQ1wP9ePeK/wKwP9eP1eQ/wB1wP9ePeB/wNwP10ePeN/wRwP9eP1eR/sP1sP1sP2sP/1sP1sP1sPsP1/sRsNsBsQsKsBsNsR e d1,k1,a4,n4,a11,n11,d14,k14 - amam 0 4";
const SEATS: [&str; 4] = ["south", "west", "north", "east"];
const PLAYERS: [(&str, &str); 4] = [
    ("Sam", "sam@example.org"),
    ("Wendy", "wendy@example.org"),
    ("Nora", "nora@example.org"),
    ("Ed", "ed@example.org"),
];

/// The game: each turn's seat (index into [`SEATS`]), its move as sent (from-to)
/// and as the steward writes it (SAN-like, §9: a pawn move
/// with its origin, issue 32), and the seats to move after it
/// (empty once it is over).
const PLAY: [(usize, &str, &str, &[&str]); 13] = [
    (0, "d2-d3", "d2-d3", &["west"]),
    (1, "b6-c6", "b6-c6", &["north"]),
    (2, "e13-e12", "e13-e12", &["east"]),
    (3, "m7-l7", "m7-l7", &["south"]),
    (0, "k2-k3", "k2-k3", &["west"]),
    (1, "b8-c8", "b8-c8", &["north"]),
    (2, "g13-g12", "g13-g12", &["east"]),
    (3, "m9-l9", "m9-l9", &["south"]),
    // West, in double check with no move, is mated and skipped.
    (0, "f2-f3", "f2-f3", &["north"]),
    (2, "d13-d12", "d13-d12", &["east"]),
    // West is examined again: still mated, skipped.
    (3, "m4-l4", "m4-l4", &["south"]),
    (0, "h2-h3", "h2-h3", &["north"]),
    // East, in double check with no move, is mated: the game is over.
    (2, "i13-i12", "i13-i12", &[]),
];

/// The width and height of a PNG.
#[track_caller]
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "the PNG signature");
    let decoded = resvg::tiny_skia::Pixmap::decode_png(png).expect("a PNG that decodes");
    (decoded.width(), decoded.height())
}

// ---------------------------------------------------------------------------
// The game
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_seats_play_clockwise_to_a_team_victory() {
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let seats: Vec<Value> = PLAYERS.iter().map(|(name, email)| json!({"name": name, "email": email})).collect();
    let created = s.post_json("/api/games", None, &json!({"variant": "vierschach", "seats": seats})).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let tokens: Vec<String> =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    assert_eq!(tokens.len(), 4);
    let token_seats: Vec<&str> =
        created["tokens"].as_array().unwrap().iter().map(|t| t["seat"].as_str().unwrap()).collect();
    assert_eq!(token_seats, SEATS, "one token per seat, in seat order");

    let v = s.game(&id, None).await;
    assert_eq!(v["variant"], "vierschach");
    assert_eq!(v["state"], START);
    assert_eq!(v["turn"], 1);
    assert_eq!(v["to_move"], json!(["south"]));
    let names: Vec<&str> = v["seats"].as_array().unwrap().iter().map(|s| s["seat"].as_str().unwrap()).collect();
    assert_eq!(names, SEATS);

    for (i, &(seat, text, _, next)) in PLAY.iter().enumerate() {
        let turn = i as u32 + 1;
        // Only the seat to move may move: each of the others is told whose turn it is.
        for other in (0..4).filter(|&o| o != seat) {
            let m = s.mv(&id, &tokens[other], turn, "a7-a6").await.error(409, "not_your_turn");
            assert!(
                m.contains(&format!("{} is not to move in turn {turn}; {} to move", SEATS[other], SEATS[seat])),
                "turn {turn}: {m}"
            );
        }
        let a = s.mv(&id, &tokens[seat], turn, text).await;
        let r = a.ok(200);
        assert_eq!(r["resolved"], true, "a Vierschach turn is one move: {r}");
        let v = s.game(&id, None).await;
        assert_eq!(v["to_move"], json!(next), "after turn {turn} ({} {text})", SEATS[seat]);
        assert_eq!(v["turn"], turn + 1);
        let status = v["state"].as_str().unwrap().split(' ').nth(4).unwrap().to_owned();
        let expected = match turn {
            ..=8 => "aaaa",
            9..=12 => "amaa",
            _ => "amam",
        };
        assert_eq!(status, expected, "seat statuses after turn {turn}: {}", v["state"]);
        if turn < 13 {
            assert_eq!(v["outcome"], Value::Null, "after turn {turn}");
        }
        // West, mated and frozen, may not move while it stays mated.
        if (9..13).contains(&turn) {
            let m = s.mv(&id, &tokens[1], turn + 1, "a7-b6").await.error(409, "not_your_turn");
            assert!(m.contains("west is not to move"), "{m}");
        }
    }

    // The end: west and east are both mated, so south and north win (§8).
    let v = s.game(&id, None).await;
    assert_eq!(v["state"], FINAL);
    assert_eq!(v["to_move"], json!([]));
    assert_eq!(v["phase"], "none");
    assert_eq!(
        v["outcome"],
        json!({"result": "south and north win (checkmate)", "winner": "south and north", "reason": "checkmate"})
    );
    let history = v["history"].as_array().unwrap();
    assert_eq!(history.len(), 13);
    let numbers: Vec<&str> = history.iter().map(|t| t["move_number"].as_str().unwrap()).collect();
    assert_eq!(&numbers[..5], ["1.", "1...", "1...", "1...", "2."]);
    for (t, &(seat, _, san, _)) in history.iter().zip(PLAY.iter()) {
        let mut moves = t["moves"].clone();
        let number = moves[0].as_object_mut().unwrap().remove("number").unwrap();
        assert_eq!(moves, json!([{"seat": SEATS[seat], "move": san, "status": "played"}]), "{t}");
        // One number per round of the seat order (issue 32).
        assert_eq!(number, t["move_number"], "{t}");
        assert!(number.as_str().unwrap().ends_with('.'), "{t}");
    }
    // The transcript ends the game once, with both winners.
    let t = s.get(&format!("/api/games/{id}/transcript"), None).await.text;
    let ended: Vec<Value> =
        t.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|e| e["kind"] == "ended").collect();
    assert_eq!(ended.len(), 1, "{t}");
    assert_eq!(ended[0]["body"]["result"], "south and north win (checkmate)");
    assert_eq!(ended[0]["body"]["winner"], "south and north");
    assert_eq!(ended[0]["body"]["reason"], "checkmate");
    // Nothing more is taken.
    s.mv(&id, &tokens[3], 14, "n8-m9").await.error(409, "game_over");
    s.mv(&id, &tokens[0], 14, "a7-a6").await.error(409, "game_over");

    // The mails: a start mail and thirteen board mails for every seat.
    let expected: Vec<String> = (0..4)
        .flat_map(|seat| {
            let id = id.as_str();
            std::iter::once(format!("{id}.0.{seat}.started@{MAIL_DOMAIN}.eml"))
                .chain((1..=13).map(move |turn| format!("{id}.{turn}.{seat}.turn@{MAIL_DOMAIN}.eml")))
        })
        .collect();
    let files = eventually_within(Duration::from_secs(20), "every board mail in the spool", || {
        let files = spool_files(&spool);
        expected.iter().all(|name| files.contains_key(name)).then_some(files)
    })
    .await;
    assert_eq!(files.len(), expected.len(), "one mail per seat per turn: {:?}", files.keys().collect::<Vec<_>>());

    // Every seat sees its own back rank at the bottom of its text board, just
    // above the coordinates: the four-army text board turned for each seat.
    let home_rank = [
        "  1           sR sN sB sQ sK sB sN sR           1",
        "  a           wR wN wB wQ wK wB wN wR           a",
        " 14           nR nN nB nQ nK nB nN nR           14",
        "  n           eR eN eB eQ eK eB eN eR           n",
    ];
    for (seat, (player, address)) in PLAYERS.iter().enumerate() {
        let started = parse_mail(&files[&format!("{id}.0.{seat}.started@{MAIL_DOMAIN}.eml")]);
        assert_eq!(started.header("To"), format!("{player} <{address}>"));
        let subject = if seat == 0 {
            format!("Game {id} (vierschach) begins: your move")
        } else {
            format!("Game {id} (vierschach) begins")
        };
        assert_eq!(started.header("Subject"), subject);
        for turn in 0..=13 {
            let kind = if turn == 0 { "started" } else { "turn" };
            let mail = parse_mail(&files[&format!("{id}.{turn}.{seat}.{kind}@{MAIL_DOMAIN}.eml")]);
            assert_eq!(mail.header("Message-ID"), format!("<{id}.{turn}.{seat}.{kind}@{MAIL_DOMAIN}>"));
            assert_eq!(
                mail.kinds(),
                ["text/plain", "text/html", "image/png"],
                "turn {turn}, seat {seat}: text, HTML and the board picture"
            );
            let text = mail.text("text/plain");
            for piece in ["sK", "wK", "nK", "eK"] {
                assert!(text.contains(piece), "all four armies on the board ({piece}):\n{text}");
            }
            let lines: Vec<&str> = text.lines().collect();
            // A mated seat's pieces carry a `*` mark: compare without marks.
            let home = lines.iter().position(|l| l.replace('*', " ").trim_end() == home_rank[seat]);
            let home = home.unwrap_or_else(|| panic!("{:?} for seat {seat}:\n{text}", home_rank[seat]));
            let below = lines[home + 1];
            assert!(!below.contains('.') && !below.contains('K'), "the bottom row for seat {seat}:\n{text}");
            let html = mail.text("text/html");
            assert!(html.contains("src=\"cid:board\""), "{html}");
            let Part { content_id: cid, content: png, .. } = &mail.parts[2];
            assert_eq!(cid.as_deref(), Some("board"));
            // Every mail picture is 640 pixels wide (issue 38: a board mail weighs at most 40 KB).
            assert_eq!(png_size(png), (640, 640), "a 14x14 board is drawn 640 pixels wide in a mail");
            if turn > 0 {
                let (mover, _, played, _) = PLAY[turn - 1];
                assert!(text.contains(&format!("{}: {played} - played", SEATS[mover])), "{text}");
            }
        }
        // The last mail tells the result.
        let last = parse_mail(&files[&format!("{id}.13.{seat}.turn@{MAIL_DOMAIN}.eml")]);
        assert_eq!(last.header("Subject"), format!("Game {id} is over: south and north win (checkmate)"));
        assert!(last.text("text/plain").contains("The game is over: south and north win (checkmate)."));
    }
    // West is told it is mated and skipped: after turn 9 the next seat is north.
    let after9 = parse_mail(&files[&format!("{id}.9.1.turn@{MAIL_DOMAIN}.eml")]);
    assert_eq!(after9.header("Subject"), format!("Game {id}, north to move 3..."));
    assert!(after9.text("text/plain").contains("Next: north to move 3...."), "{}", after9.text("text/plain"));

    // A board mail lists every move since its reader's own last one, numbered by
    // rounds: after north's g12 (turn 7), south hears of west's and north's moves
    // of round 2, east of south's too; south's own k3 is not told back to it.
    let since = |seat: usize, turn: usize| {
        let text = parse_mail(&files[&format!("{id}.{turn}.{seat}.turn@{MAIL_DOMAIN}.eml")]).text("text/plain");
        let listed: Vec<String> = text
            .split("Since your last move:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("the moves since, seat {seat} turn {turn}:\n{text}"))
            .lines()
            .take_while(|l| l.starts_with("  "))
            .map(|l| l.trim().to_owned())
            .collect();
        listed
    };
    assert_eq!(since(0, 7), ["2... west: b8-c8 - played", "2... north: g13-g12 - played"]);
    assert_eq!(since(3, 7), ["2. south: k2-k3 - played", "2... west: b8-c8 - played", "2... north: g13-g12 - played"]);
    // West, mated after turn 9, moves no more: its mail after the last turn
    // tells everything since its c8 of round 2.
    assert_eq!(
        since(1, 13),
        [
            "2... north: g13-g12 - played",
            "2... east: m9-l9 - played",
            "3. south: f2-f3 - played",
            "3... north: d13-d12 - played",
            "3... east: m4-l4 - played",
            "4. south: h2-h3 - played",
            "4... north: i13-i12 - played",
        ]
    );
    // Below the board, the whole game, one line per round (west skipped from round 3).
    let last = parse_mail(&files[&format!("{id}.13.2.turn@{MAIL_DOMAIN}.eml")]).text("text/plain");
    let record = "The game so far:
  1. south d2-d3, west b6-c6, north e13-e12, east m7-l7
  2. south k2-k3, west b8-c8, north g13-g12, east m9-l9
  3. south f2-f3, north d13-d12, east m4-l4
  4. south h2-h3, north i13-i12
";
    assert!(last.contains(record), "{record}in:\n{last}");

    // The board picture of the finished game.
    let png = s.get(&format!("/api/games/{id}/board.png"), None).await;
    assert_eq!(png.status, 200, "{}", png.text);
    assert_eq!(png.content_type, "image/png");
    let (w, h) = png_size(&png.body);
    assert_eq!(w, h, "the plus-shaped board is square");
    let north = s.get(&format!("/api/games/{id}/board.png?seat=north&size=400"), None).await;
    assert_eq!(png_size(&north.body), (400, 400));
    assert_ne!(
        north.body,
        s.get(&format!("/api/games/{id}/board.png?size=400"), None).await.body,
        "north sees it turned"
    );
    let svg = String::from_utf8(s.get(&format!("/api/games/{id}/board.svg"), None).await.body).unwrap();
    assert_eq!(svg.matches("class=\"arrow").count(), 1, "the last move, i13-i12");
    assert_eq!(svg.matches("class=\"to-move").count(), 0, "nobody is to move");

    // The four seats' pictures differ, and each has its own king on the bottom
    // rank: no piece lies lower than it.
    let mut svgs = Vec::new();
    let mut pngs = Vec::new();
    for (seat, name) in SEATS.iter().enumerate() {
        let svg = s.get(&format!("/api/games/{id}/board.svg?seat={name}"), None).await;
        assert_eq!(svg.status, 200, "{}", svg.text);
        let svg = String::from_utf8(svg.body).unwrap();
        let pieces = placed_pieces(&svg);
        let lowest = pieces.iter().map(|p| p.2).fold(f32::MIN, f32::max);
        let king = pieces.iter().find(|p| p.0 == format!("p{seat}k")).unwrap_or_else(|| panic!("{name}'s king"));
        assert_eq!(king.2, lowest, "{name}'s king on the bottom rank of {name}'s picture");
        for other in (0..4).filter(|&o| o != seat) {
            let theirs = pieces.iter().find(|p| p.0 == format!("p{other}k")).unwrap();
            assert!(theirs.2 < lowest, "{}'s king is not at the bottom of {name}'s picture", SEATS[other]);
        }
        svgs.push(svg);
        let png = s.get(&format!("/api/games/{id}/board.png?seat={name}&size=300"), None).await;
        assert_eq!(png_size(&png.body), (300, 300));
        pngs.push(png.body);
    }
    for a in 0..4 {
        for b in a + 1..4 {
            assert_ne!(svgs[a], svgs[b], "{} and {} see different SVGs", SEATS[a], SEATS[b]);
            assert_ne!(pngs[a], pngs[b], "{} and {} see different PNGs", SEATS[a], SEATS[b]);
        }
    }
    // No seat named: south's view.
    assert_eq!(String::from_utf8(s.get(&format!("/api/games/{id}/board.svg"), None).await.body).unwrap(), svgs[0]);
}

/// The pieces placed on a board SVG: design id (`p0k`: seat 1's king) and the
/// top-left corner of its square, read from `<use xlink:href="#…" x="…" y="…"/>`.
fn placed_pieces(svg: &str) -> Vec<(String, f32, f32)> {
    let attr = |tag: &str, name: &str| -> Option<String> {
        let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(tag[start..start + tag[start..].find('"')?].to_owned())
    };
    svg.lines()
        .filter(|l| l.starts_with("<use xlink:href=\"#p") && l.contains(" x=\""))
        .map(|l| {
            let id = attr(l, "xlink:href").unwrap().trim_start_matches('#').to_owned();
            (id, attr(l, "x").unwrap().parse().unwrap(), attr(l, "y").unwrap().parse().unwrap())
        })
        .collect()
}
