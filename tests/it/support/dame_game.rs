//! The Trialectic Dame game that `games::dame::http` plays over HTTP and
//! `games::dame::mail` by mail: a seeded random game of the independent oracle
//! (`tools/dame_oracle/`), checked with `fairsteward rules trialectic-dame play`.
//! It has four multi-jumps, one of five jumps that ends where it began (turn
//! 11); red's Dame takes yellow's last stones in a four-jump at turn 20, so
//! yellow is out and from then on the turn goes red, blue, red, … until red
//! takes blue's last stone at turn 28 and wins.

/// The start (`docs/rules/trialectic-dame.md` §7).
pub const START: &str = "./../r.b/rrbb/rr.bb/rr..bb/rr...bb/rr....bb/..yyyyy../..yyyyyy.. y yrb - 0 1";
/// After the 28 moves: red alone.
pub const FINAL: &str = "./../..R/r.../r..../.rr.../rr...../......../........./.......... r -r- - 0 11";

/// The game: the seat (index into [`SEATS`]), its move, and the seat to move
/// after it (none once the game is over).
pub const PLAY: [(usize, &str, Option<usize>); 28] = [
    (0, "135-225", Some(1)),
    (1, "216x234", Some(2)),
    (2, "720-711", Some(0)),
    (0, "144x324", Some(1)),
    (1, "315x333", Some(2)),
    (2, "441-342", Some(0)),
    (0, "045-135", Some(1)),
    (1, "702x720", Some(2)),
    (2, "342x324", Some(0)),
    (0, "027-117", Some(1)),
    (1, "720x522x225x045x027x225", Some(2)),
    (2, "450-441", Some(0)),
    (0, "153-243", Some(1)),
    (1, "207x027", Some(2)),
    (2, "270-171", Some(0)),
    (0, "072x270", Some(1)),
    (1, "225x252x450x432x072", Some(2)),
    (2, "360x180", Some(0)),
    (0, "063x081", Some(1)),
    // Red's Dame takes yellow's last two men: yellow is out.
    (1, "027x063x090x270x252", Some(2)),
    (2, "630-621", Some(1)),
    (1, "612x630", Some(2)),
    (2, "540x720", Some(1)),
    (1, "513-423", Some(2)),
    (2, "720-621", Some(1)),
    (1, "405-315", Some(2)),
    (2, "531-432", Some(1)),
    // Blue's last stone: red wins.
    (1, "252x522x720", None),
];

/// The turn after which yellow is out.
pub const YELLOW_OUT: usize = 20;
