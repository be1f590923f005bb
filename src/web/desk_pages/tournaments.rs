//! The desk's tournament pages (issue 31 points 3, 5 and 6): the list of the
//! tournaments an organiser may see (`/desk/tournaments`), the form creating
//! one (`/desk/tournaments/new`, operator only), a tournament's admin view
//! (`/desk/tournaments/{id}`: standings, players with their invitation's
//! answer, games linking to their desk view, the leave policy) with the
//! director's tools (withdraw, adjudicate, invite, replace, start, name a
//! director), each behind the desk's confirmation step, and an invited game's status
//! (`/desk/invited/{id}`) with its start and replacement tools.
//!
//! Everything acts through the same steward functions as the API under
//! `/api/tournaments` and `/api/invitations`, so a page refuses what the API
//! refuses, with the same message.

use std::collections::BTreeMap;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use minijinja::value::Serde;
use minijinja::{Value, context};
use serde::Deserialize;

use super::{Desk, DeskError, acting, form, html, operator_only, render, signed_out};
use crate::ids::TournamentId;
use crate::protocol::policy::{Auth, Secrecy};
use crate::rules::VariantId;
use crate::steward::tournament::parse_id;
use crate::steward::{
    InvitationList, Invited, LeavePolicy, NewPlayer, NewTournament, Organiser, Refusal, Replacement, Steward,
    StewardError,
};

/// The desk's tournament routes.
pub(super) fn router() -> Router<Steward> {
    Router::new()
        .route("/desk/tournaments", get(list))
        .route("/desk/tournaments/new", get(new_page).post(create))
        .route("/desk/tournaments/{id}", get(tournament_page))
        .route("/desk/tournaments/{id}/{tool}", post(tournament_tool))
        .route("/desk/invited/{id}", get(invited_page))
        .route("/desk/invited/{id}/{tool}", post(invited_tool))
}

/// The templates this module adds to the desk's.
pub(super) const TEMPLATES: [(&str, &str); 6] = [
    ("page/desk_invite_tools.html", include_str!("../../../templates/page/desk_invite_tools.html")),
    ("page/tournament_tables.html", include_str!("../../../templates/page/tournament_tables.html")),
    ("page/desk_tournaments.html", include_str!("../../../templates/page/desk_tournaments.html")),
    ("page/desk_tournament.html", include_str!("../../../templates/page/desk_tournament.html")),
    ("page/desk_tournament_new.html", include_str!("../../../templates/page/desk_tournament_new.html")),
    ("page/desk_invited.html", include_str!("../../../templates/page/desk_invited.html")),
];

/// The longest search an organiser may type (the list is filtered in memory).
const MAX_SEARCH_CHARS: usize = 200;

// ---------------------------------------------------------------------------
// The list
// ---------------------------------------------------------------------------

#[derive(Deserialize)]
struct ListQuery {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    q: Option<String>,
}

async fn list(
    State(steward): State<Steward>,
    headers: HeaderMap,
    Query(q): Query<ListQuery>,
) -> Result<Response, DeskError> {
    let desk = Desk::of(&steward, &headers).await?.ok_or_else(signed_out)?;
    let status = q.status.filter(|s| matches!(s.as_str(), "inviting" | "running" | "finished"));
    let search = q.q.map(|s| s.trim().chars().take(MAX_SEARCH_CHARS).collect::<String>()).filter(|s| !s.is_empty());
    let needle = search.as_deref().map(str::to_lowercase);
    let rows: Vec<Value> = steward
        .tournaments()
        .await?
        .into_iter()
        .filter(|t| match &desk.by {
            Organiser::Operator => true,
            Organiser::Director { tournament, .. } => tournament.as_str() == t.id,
        })
        .filter(|t| status.as_deref().is_none_or(|s| s == t.status))
        .filter(|t| {
            needle.as_deref().is_none_or(|n| {
                t.id.to_lowercase().contains(n)
                    || t.name.to_lowercase().contains(n)
                    || t.players.iter().any(|p| p.name.to_lowercase().contains(n))
            })
        })
        .map(|t| {
            context! {
                id => t.id, name => t.name, variant => t.variant, status => t.status,
                players => t.players.len(), finished => t.finished, running => t.running,
                planned => t.planned, directors => t.directors,
            }
        })
        .collect();
    let ctx = context! { tournaments => rows, status => status, q => search, ..desk.context() };
    Ok(html(StatusCode::OK, render("page/desk_tournaments.html", ctx)?))
}

// ---------------------------------------------------------------------------
// Creating a tournament
// ---------------------------------------------------------------------------

/// The creation form as sent; it comes back filled when it is refused.
#[derive(Clone, Default, Deserialize, serde::Serialize)]
struct NewTournamentForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    variant: String,
    /// The variant's own options as JSON, or empty.
    #[serde(default)]
    options: String,
    /// The time control as text (`days_per_move days=3`), or empty.
    #[serde(default)]
    clock: String,
    /// `allowed`, `none` or `capped`.
    #[serde(default)]
    leave: String,
    #[serde(default)]
    leave_days: String,
    #[serde(default)]
    spectator_delay: String,
    #[serde(default)]
    auth: String,
    #[serde(default)]
    secrecy: String,
    /// `single` or `double`.
    #[serde(default)]
    round: String,
    /// `all` (every game at once) or `rounds`.
    #[serde(default)]
    start: String,
    #[serde(default)]
    teams: Option<String>,
    #[serde(default)]
    ends_at: String,
    /// One a line: `Name <address> [public key]`.
    #[serde(default)]
    players: String,
    #[serde(default)]
    invite: Option<String>,
}

fn ticked(v: &Option<String>) -> bool {
    v.as_deref().is_some_and(|v| matches!(v, "1" | "on" | "true" | "yes"))
}

fn new_form_context(desk: &Desk, f: &NewTournamentForm, error: Option<String>) -> Value {
    context! {
        variants => VariantId::names().collect::<Vec<_>>(),
        auths => [Auth::Token.name(), Auth::Signature.name()],
        secrecies => [Secrecy::Hold.name(), Secrecy::CommitReveal.name()],
        f => Serde(f),
        teams => ticked(&f.teams),
        invite => ticked(&f.invite),
        problem => error,
        ..desk.context()
    }
}

async fn new_page(State(steward): State<Steward>, headers: HeaderMap) -> Result<Response, DeskError> {
    let desk = Desk::of(&steward, &headers).await?.ok_or_else(signed_out)?;
    operator_only(&desk, ONLY_OPERATOR_CREATES)?;
    let f = NewTournamentForm {
        variant: VariantId::HEADLINE.name().to_owned(),
        leave: "allowed".into(),
        round: "single".into(),
        start: "all".into(),
        ..Default::default()
    };
    Ok(html(StatusCode::OK, render("page/desk_tournament_new.html", new_form_context(&desk, &f, None))?))
}

const ONLY_OPERATOR_CREATES: &str = "Only the operator creates tournaments; a director acts for its own tournament.";

/// One player line: `Name <address>`, optionally followed by a public key,
/// with the OpenPGP public key pasted below it, if any.
fn player_line((line, openpgp_key): (String, Option<String>)) -> Result<NewPlayer, String> {
    let line = line.as_str();
    let shape = || format!("The player line {line:?} is not `Name <address>` (optionally followed by a public key).");
    let (name, rest) = line.split_once('<').ok_or_else(shape)?;
    let (email, key) = rest.split_once('>').ok_or_else(shape)?;
    let key = key.trim();
    Ok(NewPlayer {
        name: name.trim().to_owned(),
        email: email.trim().to_owned(),
        public_key: (!key.is_empty()).then(|| key.to_owned()),
        openpgp_key,
    })
}

/// The tournament the form asks for, or what is wrong with the form itself
/// (the steward checks the rest, as it does for the API).
fn read_new(f: &NewTournamentForm) -> Result<NewTournament, String> {
    let mut options: BTreeMap<String, serde_json::Value> = if f.options.trim().is_empty() {
        BTreeMap::new()
    } else {
        serde_json::from_str(&f.options).map_err(|e| {
            format!("The game's options are not a JSON object ({e}); give e.g. {{\"teams\": true}} or nothing.")
        })?
    };
    let mut set = |key: &str, value: &str| {
        let value = value.trim();
        if !value.is_empty() {
            options.insert(key.to_owned(), serde_json::Value::String(value.to_owned()));
        }
    };
    set(crate::clock::control::OPTION, &f.clock);
    set(crate::steward::SPECTATOR_DELAY_OPTION, &f.spectator_delay);
    set(Auth::OPTION, &f.auth);
    set(Secrecy::OPTION, &f.secrecy);
    let leave = match f.leave.as_str() {
        "" => None,
        "allowed" => Some(LeavePolicy::Allowed),
        "none" => Some(LeavePolicy::None),
        "capped" => Some(LeavePolicy::CappedDays(f.leave_days.trim().parse().map_err(|_| {
            "Give the leave cap as a whole number of days a year, e.g. 14 (or choose allowed or none).".to_owned()
        })?)),
        other => return Err(format!("The leave policy {other:?} is not allowed, none or capped.")),
    };
    let players = super::player_lines(&f.players)?.into_iter().map(player_line).collect::<Result<Vec<_>, _>>()?;
    Ok(NewTournament {
        name: f.name.clone(),
        variant: f.variant.clone(),
        options,
        leave,
        double: f.round == "double",
        rounds: f.start == "rounds",
        teams: ticked(&f.teams),
        ends_at: Some(f.ends_at.trim().to_owned()).filter(|e| !e.is_empty()),
        players,
        invite: ticked(&f.invite),
    })
}

async fn create(State(steward): State<Steward>, headers: HeaderMap, body: Bytes) -> Result<Response, DeskError> {
    let f: NewTournamentForm = form(&body)?;
    let desk = acting(&steward, &headers, &f.csrf).await?;
    operator_only(&desk, ONLY_OPERATOR_CREATES)?;
    let refused = |status: StatusCode, message: String| -> Result<Response, DeskError> {
        Ok(html(status, render("page/desk_tournament_new.html", new_form_context(&desk, &f, Some(message)))?))
    };
    let new = match read_new(&f) {
        Ok(new) => new,
        Err(message) => return refused(StatusCode::BAD_REQUEST, message),
    };
    let created = match steward.create_tournament(&desk.by, new, steward.now()).await {
        Ok(c) => c,
        Err(e) => {
            let e = DeskError::from(e);
            return refused(e.0, e.1);
        }
    };
    let t = &created.tournament;
    let done = if t.status == "inviting" {
        format!("Tournament {} ({}) was created; its {} players have their invitations.", t.id, t.name, t.players.len())
    } else {
        format!(
            "Tournament {} ({}) was created with {} games; its {} players have their start mails.",
            t.id,
            t.name,
            t.running,
            t.players.len()
        )
    };
    let ctx = context! {
        done => done,
        tournament => t.id.clone(),
        tournament_tokens => Serde(&created.tokens),
        ..desk.context()
    };
    Ok(html(StatusCode::CREATED, render("page/desk_done.html", ctx)?))
}

// ---------------------------------------------------------------------------
// A tournament's admin view and the director's tools
// ---------------------------------------------------------------------------

async fn tournament_page(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, DeskError> {
    let desk = Desk::of(&steward, &headers).await?.ok_or_else(signed_out)?;
    let tid = parse_id(&id)?;
    may_direct(&desk, &tid)?;
    let t = steward.tournament(id).await?;
    // The invitations carry each player's address and answer; a tournament
    // created with fixed seats answers "not invited" for every player.
    let invitations = Some(steward.invitations(&desk.by, Invited::Tournament(tid)).await?);
    let invited = invitations.as_ref().is_some_and(|l| l.invitations.iter().any(|i| i.answer != "not invited"));
    let players: Vec<Value> = t
        .players
        .iter()
        .map(|p| {
            let inv = invitations.as_ref().and_then(|l| l.invitations.iter().find(|i| i.player as usize == p.player));
            context! {
                player => p.player, name => p.name.clone(), withdrawn => p.withdrawn_at.clone(),
                email => inv.map(|i| i.email.clone()), answer => inv.map(|i| i.answer.clone()),
                answered_at => inv.and_then(|i| i.answered_at.clone()),
                replaced => inv.map(|i| i.replaced.clone()).unwrap_or_default(),
            }
        })
        .collect();
    let shown = crate::web::tournament_pages::Shown::of(&t);
    let ctx = context! {
        t => Serde(&t),
        players => players,
        invited => invited,
        standings => shown.standings,
        cross => shown.cross,
        leave => shown.leave,
        unfinished => t.games.iter().filter(|g| g.status == "running").count(),
        seats_example => t.seats.first().cloned().unwrap_or_else(|| "white".into()),
        ..desk.context()
    };
    Ok(html(StatusCode::OK, render("page/desk_tournament.html", ctx)?))
}

/// A tournament tool's form: the fields of all its tools, the CSRF token and
/// `confirm=yes` once confirmed; adjudication results come as `r_<game id>`.
#[derive(Deserialize)]
struct ToolForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    confirm: String,
    #[serde(default)]
    player: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    public_key: String,
    /// The new player's armoured OpenPGP public key, or empty.
    #[serde(default)]
    openpgp_key: String,
    #[serde(default)]
    reason: String,
    #[serde(flatten)]
    rest: BTreeMap<String, String>,
}

impl ToolForm {
    /// The adjudications asked for: game → result, the empty ones left out.
    fn results(&self) -> BTreeMap<String, String> {
        self.rest
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix("r_")?.to_owned(), v.trim().to_owned())))
            .filter(|(_, v)| !v.is_empty())
            .collect()
    }

    fn player(&self) -> Result<u32, DeskError> {
        self.player.trim().parse().map_err(|_| {
            DeskError(StatusCode::BAD_REQUEST, "Choose a player from the tournament's list, then send again.".into())
        })
    }

    /// The fields a replacement's confirmation sends again.
    fn replacement_fields(&self, player: u32) -> Vec<(String, String)> {
        vec![
            ("player".into(), player.to_string()),
            ("name".into(), self.name.clone()),
            ("email".into(), self.email.clone()),
            ("public_key".into(), self.public_key.clone()),
            ("openpgp_key".into(), self.openpgp_key.clone()),
        ]
    }

    fn replacement(&self) -> Replacement {
        Replacement {
            name: self.name.clone(),
            email: self.email.clone(),
            public_key: Some(self.public_key.clone()).filter(|k| !k.trim().is_empty()),
            openpgp_key: Some(self.openpgp_key.clone()).filter(|k| !k.trim().is_empty()),
        }
    }
}

/// The confirmation page: what the tool will do, and the form again with
/// `confirm=yes`.
fn confirm(
    desk: &Desk,
    what: String,
    note: &str,
    action: String,
    back: String,
    fields: Vec<(String, String)>,
) -> Result<Response, DeskError> {
    let ctx = context! {
        what => what, note => note, action => action, back => back, fields => fields, ..desk.context()
    };
    Ok(html(StatusCode::OK, render("page/desk_confirm.html", ctx)?))
}

const TRANSCRIPT_NOTE: &str =
    "Each game it touches records it in its signed transcript as done by you, and the players are told by mail.";

async fn tournament_tool(
    State(steward): State<Steward>,
    Path((id, tool)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, DeskError> {
    let f: ToolForm = form(&body)?;
    let desk = acting(&steward, &headers, &f.csrf).await?;
    let tid = parse_id(&id)?;
    may_direct(&desk, &tid)?;
    let back = format!("/desk/tournaments/{tid}");
    let action = format!("/desk/tournaments/{tid}/{tool}");
    let now = steward.now();
    let by = desk.by.clone();
    if f.confirm != "yes" {
        let t = steward.tournament(id.clone()).await?;
        let name_of = |p: u32| t.players.get(p as usize).map_or_else(|| format!("player {p}"), |x| x.name.clone());
        let (what, note, fields): (String, &str, Vec<(String, String)>) = match tool.as_str() {
            "withdraw" => {
                let p = f.player()?;
                (
                    format!(
                        "withdraw {} from tournament {tid} (ICCF's rule: with under half of their games finished all their games are cancelled and leave the standings; otherwise their unfinished games are lost by default)",
                        name_of(p)
                    ),
                    TRANSCRIPT_NOTE,
                    vec![("player".into(), p.to_string())],
                )
            }
            "adjudicate" => {
                let results = f.results();
                if results.is_empty() {
                    return Err(DeskError(
                        StatusCode::BAD_REQUEST,
                        "Give a result for at least one unfinished game (draw, a winning seat, or points per seat)."
                            .into(),
                    ));
                }
                let listed: Vec<String> = results.iter().map(|(g, r)| format!("game {g} as \"{r}\"")).collect();
                let mut fields: Vec<(String, String)> =
                    results.into_iter().map(|(g, r)| (format!("r_{g}"), r)).collect();
                fields.push(("reason".into(), f.reason.clone()));
                (format!("adjudicate {}", listed.join(", ")), TRANSCRIPT_NOTE, fields)
            }
            "start" => (
                format!(
                    "start tournament {tid} now, with the players who accepted and those who have not answered (their invitations close)"
                ),
                "The games are created at once and every player gets a start mail.",
                vec![],
            ),
            "invite" => (
                format!(
                    "invite every player of tournament {tid} who has no invitation yet (one mail each; players already invited keep theirs)"
                ),
                "Each new invitation is mailed at once with its private link to accept or decline.",
                vec![],
            ),
            "replace" => {
                let p = f.player()?;
                (
                    format!(
                        "give {}'s place to {} <{}>, who is invited at once",
                        name_of(p),
                        f.name.trim(),
                        f.email.trim()
                    ),
                    "The old invitation stops working.",
                    f.replacement_fields(p),
                )
            }
            "director" => {
                operator_only(&desk, ONLY_OPERATOR_NAMES)?;
                (
                    format!("name {} a director of tournament {tid}", f.name.trim()),
                    "The director's token is shown once, on the next page: give it to the director yourself.",
                    vec![("name".into(), f.name.clone())],
                )
            }
            _ => return Err(no_tool(&tool)),
        };
        let reason = if tool == "adjudicate" { f.reason.trim().to_owned() } else { String::new() };
        let what = if reason.is_empty() { what } else { format!("{what}, because: {reason}") };
        return confirm(&desk, what, note, action, back, fields);
    }
    let (done, director) = match tool.as_str() {
        "withdraw" => {
            let p = f.player()?;
            let t = steward.withdraw_player(&by, id, p as usize, now).await?;
            let name = t.players.get(p as usize).map_or_else(String::new, |x| x.name.clone());
            (format!("{name} has withdrawn from tournament {tid}."), None)
        }
        "adjudicate" => {
            let results = f.results().into_iter().map(|(g, r)| (g, serde_json::Value::String(r))).collect();
            let n = f.results().len();
            let reason = Some(f.reason.clone()).filter(|r| !r.trim().is_empty());
            steward.adjudicate_tournament(&by, id, results, reason, now).await?;
            (format!("{n} game(s) of tournament {tid} were adjudicated."), None)
        }
        "start" => {
            steward.start_invited(&by, Invited::Tournament(tid.clone()), now).await?;
            (format!("Tournament {tid} has started; its players have their start mails."), None)
        }
        "invite" => {
            let list = steward.invite_tournament(&by, tid.clone(), now).await?;
            let pending = list.invitations.iter().filter(|i| i.answer == "pending").count();
            (format!("Every player of tournament {tid} has an invitation now; {pending} have not answered yet."), None)
        }
        "replace" => {
            let p = f.player()?;
            steward.replace_invited(&by, Invited::Tournament(tid.clone()), p, f.replacement(), now).await?;
            (format!("{} <{}> is invited in place {p}.", f.name.trim(), f.email.trim()), None)
        }
        "director" => {
            operator_only(&desk, ONLY_OPERATOR_NAMES)?;
            let named = steward.name_director(&by, &tid, f.name.clone(), now).await?;
            (format!("{} directs tournament {tid} now.", named.name), Some(named))
        }
        _ => return Err(no_tool(&tool)),
    };
    let ctx = context! { done => done, tournament => tid.to_string(), director => Serde(&director), ..desk.context() };
    Ok(html(StatusCode::OK, render("page/desk_done.html", ctx)?))
}

/// [`Steward::may_direct`] worded for a tournament's desk page: the API's
/// hint speaks of "the tournament the game belongs to", which on a
/// tournament's page would be wrong.
fn may_direct(desk: &Desk, tid: &TournamentId) -> Result<(), DeskError> {
    Steward::may_direct(&desk.by, tid).map_err(|e| match e {
        StewardError::Refused(Refusal::Forbidden(why)) => DeskError(
            StatusCode::FORBIDDEN,
            format!(
                "{why}; to open this tournament's page, sign in at the desk with the operator token or with a director token of tournament {tid}"
            ),
        ),
        e => e.into(),
    })
}

const ONLY_OPERATOR_NAMES: &str = "Only the operator names directors; sign in with the operator token.";

fn no_tool(tool: &str) -> DeskError {
    DeskError(StatusCode::NOT_FOUND, format!("There is no tool {tool:?} at the desk."))
}

// ---------------------------------------------------------------------------
// An invited game
// ---------------------------------------------------------------------------

async fn invited_page(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, DeskError> {
    let desk = Desk::of(&steward, &headers).await?.ok_or_else(signed_out)?;
    let list: InvitationList = steward.invitations(&desk.by, Invited::Game(id)).await?;
    let ctx = context! { list => Serde(&list), ..desk.context() };
    Ok(html(StatusCode::OK, render("page/desk_invited.html", ctx)?))
}

async fn invited_tool(
    State(steward): State<Steward>,
    Path((id, tool)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, DeskError> {
    let f: ToolForm = form(&body)?;
    let desk = acting(&steward, &headers, &f.csrf).await?;
    let what = Invited::Game(id.clone());
    let back = format!("/desk/invited/{id}");
    let action = format!("/desk/invited/{id}/{tool}");
    if f.confirm != "yes" {
        // Reading it first refuses an unknown game or one outside the reach.
        steward.invitations(&desk.by, what).await?;
        let (text, note, fields): (String, &str, Vec<(String, String)>) = match tool.as_str() {
            "start" => (
                format!("start invited game {id} now, with the players who accepted and those who have not answered"),
                "The game is created at once and every player gets a start mail.",
                vec![],
            ),
            "replace" => {
                let p = f.player()?;
                (
                    format!("give seat {} of invited game {id} to {} <{}>", p + 1, f.name.trim(), f.email.trim()),
                    "The old invitation stops working; the new player is invited at once.",
                    f.replacement_fields(p),
                )
            }
            _ => return Err(no_tool(&tool)),
        };
        return confirm(&desk, text, note, action, back, fields);
    }
    let now = steward.now();
    let (done, game) = match tool.as_str() {
        "start" => {
            let list = steward.start_invited(&desk.by, what, now).await?;
            (format!("Invited game {id} has started."), list.game)
        }
        "replace" => {
            let p = f.player()?;
            steward.replace_invited(&desk.by, what, p, f.replacement(), now).await?;
            (format!("{} <{}> is invited to seat {}.", f.name.trim(), f.email.trim(), p + 1), None)
        }
        _ => return Err(no_tool(&tool)),
    };
    let ctx = context! { done => done, game => game, invited => id, ..desk.context() };
    Ok(html(StatusCode::OK, render("page/desk_done.html", ctx)?))
}
