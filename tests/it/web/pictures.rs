//! Issue 38: the board pictures as palette PNGs, the same to the eye and the
//! same bytes every time.
//!
//! The eye test: for every game, after one turn (so the last moves are marked),
//! from every seat's side, `board.svg` and `board.png` are read over HTTP from
//! a real steward; an independent renderer, librsvg's `rsvg-convert` (Debian's
//! librsvg2-bin; `scripts/test` installs it), draws the SVG at the PNG's size;
//! and the PNG the steward sends is compared with that reference, beside the
//! full-colour PNG the steward sent before issue 38 (`Encoding::FullColour`,
//! drawn here from the same board, whose SVG must be the one served). Both
//! are composited onto white; the measures are the mean difference per
//! channel and the share of pixels that differ by more than 64 in a channel.
//! The palette PNG may be worse than the full-colour one by at most what a
//! palette is allowed to change (`render::palette::MAX_MEAN_ERROR` and
//! `MAX_STRONG_SHARE`).

use std::path::Path;
use std::process::Command;

use crate::support::Server;
use fairsteward::render::palette::MAX_MEAN_ERROR;
use fairsteward::render::png::{Encoding, Parts, drawing_png_with};
use fairsteward::render::svg::{Marks, board_drawing};
use fairsteward::rules::{DynVariant, Options, Seat, VariantId};
use serde_json::{Value, json};

/// How much larger the share of strongly different pixels may be: a palette
/// moves a few edge pixels that were just under the threshold over it.
const STRONG_MARGIN: f64 = 1.1;

/// A game created over HTTP with one seat per seat of its variant: its id and tokens.
async fn create(server: &Server, variant: VariantId, seats: usize) -> (String, Vec<String>) {
    let seats: Vec<Value> =
        (0..seats).map(|i| json!({"name": format!("Player {i}"), "email": format!("p{i}@example.org")})).collect();
    let created =
        server.post_json("/api/games", None, &json!({"variant": variant.name(), "seats": seats})).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let tokens =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    (id, tokens)
}

/// Plays the first turn with each seat's first legal move; returns the marks
/// the board then shows (the turn's played moves, the seats to move) and the
/// state after it.
async fn play_a_turn(server: &Server, rules: &dyn DynVariant, id: &str, tokens: &[String]) -> (String, Marks) {
    let start = rules.start();
    let mut moves = Vec::new();
    for seat in rules.seats_to_move(&start).unwrap().iter() {
        let mv = rules.legal_moves(&start, seat).unwrap().into_iter().next().expect("a legal move");
        let answer = server.mv(id, &tokens[seat.index()], 1, &mv).await;
        assert_eq!(answer.status, 200, "{mv}: {}", answer.text);
        moves.push((seat, mv));
    }
    let r = rules.resolve(&[], &start, &moves).unwrap();
    let last_moves = r
        .moves
        .iter()
        .filter(|m| m.result.as_str() != "struck")
        .filter_map(|m| rules.move_path(Some(&start), &m.mv))
        .collect();
    let to_move = rules.seats_to_move(&r.state).unwrap().iter().collect();
    (r.state, Marks { last_moves, to_move })
}

/// A PNG's pixels as RGB composited onto white, whatever its colour type.
fn on_white(png: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    buf.truncate(info.buffer_size());
    let rgb = match info.color_type {
        png::ColorType::Rgb => buf,
        png::ColorType::Rgba => buf
            .chunks_exact(4)
            .flat_map(|p| {
                let a = u32::from(p[3]);
                [0, 1, 2].map(|c| ((u32::from(p[c]) * a + 255 * (255 - a) + 127) / 255) as u8)
            })
            .collect(),
        other => panic!("an unexpected colour type {other:?} (bit depth {:?})", info.bit_depth),
    };
    (info.width, info.height, rgb)
}

/// The mean difference per channel and the share of pixels differing by more
/// than 64 in a channel.
fn compare(a: &[u8], b: &[u8]) -> (f64, f64) {
    assert_eq!(a.len(), b.len());
    let (mut sum, mut strong) = (0u64, 0usize);
    for (p, q) in a.chunks_exact(3).zip(b.chunks_exact(3)) {
        let d = [0, 1, 2].map(|c| p[c].abs_diff(q[c]));
        sum += d.iter().map(|&x| u64::from(x)).sum::<u64>();
        if d.iter().any(|&x| x > 64) {
            strong += 1;
        }
    }
    (sum as f64 / a.len() as f64, strong as f64 / (a.len() / 3) as f64)
}

/// `svg` drawn by librsvg at `w`×`h` pixels.
fn rsvg(svg: &str, w: u32, h: u32, dir: &Path, name: &str) -> Vec<u8> {
    let (input, output) = (dir.join(format!("{name}.svg")), dir.join(format!("{name}.png")));
    std::fs::write(&input, svg).unwrap();
    let status = Command::new("rsvg-convert")
        .args(["-w", &w.to_string(), "-h", &h.to_string(), "-o"])
        .arg(&output)
        .arg(&input)
        .status()
        .unwrap_or_else(|e| {
            panic!(
                "rsvg-convert (Debian's librsvg2-bin) cannot be run ({e}): run the tests with scripts/test, which \
                 installs it"
            )
        });
    assert!(status.success(), "rsvg-convert failed on {name}");
    std::fs::read(&output).unwrap()
}

#[tokio::test]
async fn every_board_png_looks_to_an_independent_renderer_as_the_full_colour_one_did() {
    let dir = tempfile::tempdir().unwrap();
    let parts = Parts::default();
    let (mut report, mut failures) = (Vec::new(), Vec::new());
    for variant in VariantId::ALL {
        let server = Server::start().await;
        let rules = variant.rulebook(&Options::new()).unwrap();
        let seats = rules.seat_names().len();
        let (id, tokens) = create(&server, variant, seats).await;
        let (state, marks) = play_a_turn(&server, rules.as_ref(), &id, &tokens).await;
        let view = rules.board(&state).unwrap();
        for seat in 0..seats {
            let query = format!("?seat={}", seat + 1);
            let svg = server.get(&format!("/api/games/{id}/board.svg{query}"), None).await;
            assert_eq!(svg.status, 200, "{}", svg.text);
            let svg = String::from_utf8(svg.body).expect("SVG is UTF-8");
            let png = server.get(&format!("/api/games/{id}/board.png{query}"), None).await;
            assert_eq!((png.status, png.content_type.as_str()), (200, "image/png"), "{}", png.text);
            assert_eq!(png.body[25], 3, "{variant} seat {seat}: a palette PNG (colour type 3)");

            // The baseline: the same board as the steward drew it before issue 38.
            let drawing = board_drawing(&view, &marks, Seat::new(seat as u8));
            assert_eq!(drawing.svg(), svg, "{variant} seat {seat}: the board drawn here is the one served");
            let full = drawing_png_with(&drawing, 640, &parts, Encoding::FullColour).unwrap();

            let (w, h, now) = on_white(&png.body);
            let (w2, h2, before) = on_white(&full);
            assert_eq!((w, h), (w2, h2));
            let (_, _, reference) = on_white(&rsvg(&svg, w, h, dir.path(), &format!("{variant}-{seat}")));
            let (old_mean, old_strong) = compare(&before, &reference);
            let (new_mean, new_strong) = compare(&now, &reference);
            report.push(format!(
                "{:<16} {seat}  {:>7} B (full colour {:>7} B)  mean {new_mean:.3} (was {old_mean:.3})  \
                 strong {:.3} % (was {:.3} %)",
                variant.name(),
                png.body.len(),
                full.len(),
                new_strong * 100.0,
                old_strong * 100.0
            ));
            if new_mean > old_mean + MAX_MEAN_ERROR {
                failures.push(format!(
                    "{variant} seat {seat}: a mean difference of {new_mean:.3} from librsvg's picture, {old_mean:.3} in full colour"
                ));
            }
            if new_strong > old_strong * STRONG_MARGIN {
                failures.push(format!(
                    "{variant} seat {seat}: {:.4} % of the pixels differ strongly from librsvg's picture, {:.4} % in full colour",
                    new_strong * 100.0,
                    old_strong * 100.0
                ));
            }
        }
        server.shut_down().await;
    }
    // The figures, for the record: `cargo test --test it pictures -- --nocapture`.
    eprintln!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn a_picture_is_the_same_bytes_twice_and_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_in(dir.path()).await;
    let mut games = Vec::new();
    for variant in [VariantId::Chess, VariantId::Vierschach, VariantId::Dreierschach] {
        let rules = variant.rulebook(&Options::new()).unwrap();
        let (id, tokens) = create(&server, variant, rules.seat_names().len()).await;
        play_a_turn(&server, rules.as_ref(), &id, &tokens).await;
        games.push((variant, id, rules.seat_names().len()));
    }
    let first = pictures(&server, &games).await;
    assert_eq!(pictures(&server, &games).await, first, "the same pictures asked again");
    server.shut_down().await;
    let server = Server::start_in(dir.path()).await;
    let again = pictures(&server, &games).await;
    for (i, (a, b)) in first.iter().zip(&again).enumerate() {
        assert!(a == b, "picture {i} differs after a restart ({} and {} bytes)", a.len(), b.len());
    }
    assert_eq!(again.len(), first.len());
}

/// Every seat's picture of every game in `games` (id, seats), at two sizes.
async fn pictures(server: &Server, games: &[(VariantId, String, usize)]) -> Vec<Vec<u8>> {
    let mut all = Vec::new();
    for (_, id, seats) in games {
        for seat in 1..=*seats {
            for size in [640, 333] {
                let a = server.get(&format!("/api/games/{id}/board.png?seat={seat}&size={size}"), None).await;
                assert_eq!(a.status, 200, "{}", a.text);
                all.push(a.body);
            }
        }
    }
    all
}
