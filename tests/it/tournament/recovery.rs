//! Crash recovery (issue 31): a store as a steward leaves it when it dies in
//! the middle of starting an invited game or a tournament — the rows written
//! into the real store as the crash would leave them — is finished by the
//! next steward's start-up sweep, once, however often it starts.

use serde_json::json;

use crate::support::Server;
use crate::support::backend::Db;

fn db(s: &Server) -> Db {
    Db::of(&s.config.data_dir)
}

fn count(db: &Db, sql: &str) -> i64 {
    db.count(sql, &[])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invited_game_and_a_tournament_left_half_started_are_finished_at_start_up_once() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start_in(dir.path()).await;
    let body = json!({"variant": "chess", "invite": true, "seats": [
        {"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]});
    let invited = s.post_json("/api/games", Some(&s.operator), &body).await.ok(201);
    let invited_id = invited["id"].as_str().unwrap().to_owned();
    let players: Vec<_> =
        (0..3).map(|i| json!({"name": format!("P{i}"), "email": format!("p{i}.rec@example.org")})).collect();
    let t = s
        .post_json(
            "/api/tournaments",
            Some(&s.operator),
            &json!({"name": "Recovered cup", "variant": "chess", "invite": true, "players": players}),
        )
        .await
        .ok(201);
    let t_id = t["tournament"]["id"].as_str().unwrap_or_else(|| panic!("{t}")).to_owned();
    let operator = s.operator.clone();
    let config = s.config.clone();
    s.shut_down().await;

    // The crash: both invitees had accepted (Ann under another name), the
    // game was claimed for creation (`creating`) and the steward died before
    // it existed; the tournament was marked running, none of its games made.
    {
        let conn = Db::of(&config.data_dir);
        conn.execute(
            "UPDATE invitations SET answer = 'accepted', answered_at = '2026-01-01T00:00:00.000Z',
                 name = CASE WHEN email LIKE 'ann@%' THEN 'Ann Smith' ELSE NULL END
             WHERE invited_game = ?1",
            &[(&invited_id).into()],
        );
        conn.execute("UPDATE invited_games SET status = 'creating' WHERE id = ?1", &[(&invited_id).into()]);
        conn.execute("UPDATE tournaments SET status = 'running' WHERE id = ?1", &[(&t_id).into()]);
        assert_eq!(count(&conn, "SELECT count(*) FROM games"), 0);
    }

    // The next steward finishes both at start-up, before it serves.
    for start in 0..2 {
        let s = Server::start_in(dir.path()).await;
        let list = s.get(&format!("/api/invited-games/{invited_id}"), Some(&operator)).await.ok(200);
        assert_eq!(list["status"], "started", "start {start}: {list}");
        let game = list["game"].as_str().expect("the game is created").to_owned();
        let view = s.get(&format!("/api/games/{game}"), None).await.ok(200);
        let names: Vec<&str> =
            view["seats"].as_array().unwrap().iter().map(|s| s["player"].as_str().unwrap()).collect();
        assert_eq!(names, ["Ann Smith", "Bob"]);
        let tv = s.get(&format!("/api/tournaments/{t_id}"), None).await.ok(200);
        assert_eq!(tv["status"], "running", "{tv}");
        assert_eq!(tv["running"], 3, "every pair of three players: {tv}");
        // Once: a second start makes nothing more.
        let conn = db(&s);
        assert_eq!(count(&conn, "SELECT count(*) FROM games"), 4, "start {start}");
        assert_eq!(count(&conn, "SELECT count(*) FROM invited_games WHERE status = 'started'"), 1);
        drop(conn);
        s.shut_down().await;
    }
}
