//! The examples of the API's answers in its OpenAPI document (issue 34),
//! taken from a real steward's answers (the headline variant's name from the
//! registry, a long key shortened). A test checks each against its schema
//! (tests/it/web/openapi.rs), so an answer that changes shape shows here.

use serde_json::{Value, json};

/// The headline variant's name, as the answers give it.
fn headline() -> String {
    crate::rules::VariantId::HEADLINE.to_string()
}

/// The steward's keys.
pub(super) fn steward_keys() -> Value {
    json!(
    {
        "signing_key": "7WueG1KOACxDBvMj5zDWn40RNBQMP1Nr2kRiSODr10w=",
        "sealing_key": "P8TFAyGRBJrurSyP3Li4gezOzCaDCrmDIsR35PqyY3I=",
        "fingerprint": "51fa 908b b4c3 79f2 d699 43af 9881 be9d",
        "openpgp": {
            "fingerprint": "C81F911E8851BAFB152D7F2447ACA0678E22D795",
            "user_id": "Fairsteward <moves@steward.example>",
            "key": "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nxjMEaxYbvRYJKwYBBAHaRw8BAQdAu7yPpZcqoxoBEnnkcv2AO5H9lBHTM0qrPDOX\n...\n-----END PGP PUBLIC KEY BLOCK-----\n",
            "url": "/steward.asc"
        }
    }
    )
}

/// A game of the headline variant after its first turn, as its first seat sees it.
pub(super) fn game() -> Value {
    json!(
    {
        "id": "7GZ2EY",
        "variant": headline(),
        "options": {},
        "effective_options": {
            "pause": "moved",
            "normal_below": "off"
        },
        "auth": "token",
        "secrecy": "hold",
        "phase": "move",
        "state": "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR s KQkq e3,d6 e4,d5 0 2",
        "turn": 2,
        "move_number": "2.",
        "seats": [
            {
                "seat": "white",
                "player": "Alice",
                "owes_move": true,
                "moved_at": null,
                "draw_offer": false,
                "clock": {
                    "running": true,
                    "moves": 1,
                    "used": "0m",
                    "used_seconds": 0,
                    "left": "2d 23h 59m",
                    "left_seconds": 259199,
                    "deadline": "2026-12-10T02:47:03.794Z",
                    "deadline_local": null,
                    "final_deadline": "2026-12-10T02:47:03.794Z",
                    "final_deadline_local": null,
                    "time_zone": null,
                    "late": false,
                    "timed_out": false
                },
                "move_number": "2."
            },
            {
                "seat": "black",
                "player": "Bob",
                "owes_move": true,
                "moved_at": null,
                "draw_offer": false,
                "clock": {
                    "running": true,
                    "moves": 1,
                    "used": "0m",
                    "used_seconds": 0,
                    "left": "2d 23h 59m",
                    "left_seconds": 259199,
                    "deadline": "2026-12-10T02:47:03.794Z",
                    "deadline_local": null,
                    "final_deadline": "2026-12-10T02:47:03.794Z",
                    "final_deadline_local": null,
                    "time_zone": null,
                    "late": false,
                    "timed_out": false
                },
                "move_number": "2..."
            }
        ],
        "to_move": [
            "white",
            "black"
        ],
        "moved": [],
        "outcome": null,
        "history": [
            {
                "turn": 1,
                "move_number": "1.",
                "moves": [
                    {
                        "number": "1.",
                        "seat": "white",
                        "move": "e4",
                        "status": "played"
                    },
                    {
                        "number": "1...",
                        "seat": "black",
                        "move": "d5",
                        "status": "played"
                    }
                ],
                "notes": [],
                "state": "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR s KQkq e3,d6 e4,d5 0 2",
                "resolved_at": "2026-12-07T02:47:03.794Z"
            }
        ],
        "created_at": "2026-12-07T02:47:03.027Z",
        "updated_at": "2026-12-07T02:47:03.794Z",
        "transcript_head": {
            "seq": 4,
            "hash": "ea91ccbca099982eaeb95a10d5b6e1839a14009d9fbd3d4d4bcc95fbfcf33a51",
            "signature": "PU/1NAkEUv6nQR2kh8z083FVxubVnAQrujF1W4OT6XN/2xwDUrnt1s/jZeuVeyQF4acFaphuwbAAcr2lD7MNAg=="
        },
        "clock": {
            "control": {
                "kind": "days_per_move",
                "days": 3
            },
            "description": "3 days per move",
            "as_of": "2026-12-07T02:47:03.850Z",
            "on_leave": false,
            "leave": [
                {
                    "from": "2026-12-24",
                    "to": "2027-01-02"
                },
                {
                    "from": "2026-12-24",
                    "to": "2027-01-02"
                }
            ],
            "leave_policy": "allowed"
        },
        "spectator_delay": 0,
        "delayed": false
    }
    )
}

/// The receipt of a move.
pub(super) fn receipt() -> Value {
    json!(
    {
        "receipt": "r-83804816be2543ccfcdc4ed6",
        "kind": "move",
        "game": "7GZ2EY",
        "seat": "white",
        "turn": 1,
        "move": "e4",
        "received_at": "2026-12-07T02:47:03.773Z",
        "resolved": false,
        "entry": "7d5c5f99f1e43cd4d14ac5fbdcd233447a2a646d7c555336ed67245a28102511"
    }
    )
}

/// A created game and its seats' tokens.
pub(super) fn created_game() -> Value {
    json!(
    {
        "game": {
            "id": "7GZ2EY",
            "variant": headline(),
            "options": {},
            "effective_options": {
                "pause": "moved",
                "normal_below": "off"
            },
            "auth": "token",
            "secrecy": "hold",
            "phase": "move",
            "state": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1",
            "turn": 1,
            "move_number": "1.",
            "seats": [
                {
                    "seat": "white",
                    "player": "Alice",
                    "owes_move": true,
                    "moved_at": null,
                    "draw_offer": false,
                    "clock": {
                        "running": true,
                        "moves": 0,
                        "used": "0m",
                        "used_seconds": 0,
                        "left": "2d 23h 59m",
                        "left_seconds": 259199,
                        "deadline": "2026-12-10T02:47:03.027Z",
                        "deadline_local": null,
                        "final_deadline": "2026-12-10T02:47:03.027Z",
                        "final_deadline_local": null,
                        "time_zone": null,
                        "late": false,
                        "timed_out": false
                    },
                    "move_number": "1."
                },
                {
                    "seat": "black",
                    "player": "Bob",
                    "owes_move": true,
                    "moved_at": null,
                    "draw_offer": false,
                    "clock": {
                        "running": true,
                        "moves": 0,
                        "used": "0m",
                        "used_seconds": 0,
                        "left": "2d 23h 59m",
                        "left_seconds": 259199,
                        "deadline": "2026-12-10T02:47:03.027Z",
                        "deadline_local": null,
                        "final_deadline": "2026-12-10T02:47:03.027Z",
                        "final_deadline_local": null,
                        "time_zone": null,
                        "late": false,
                        "timed_out": false
                    },
                    "move_number": "1..."
                }
            ],
            "to_move": [
                "white",
                "black"
            ],
            "moved": [],
            "outcome": null,
            "history": [],
            "created_at": "2026-12-07T02:47:03.027Z",
            "updated_at": "2026-12-07T02:47:03.027Z",
            "transcript_head": {
                "seq": 1,
                "hash": "dbbded71d759aebec0f84cd1176968d9789cd8f1a1fac9056aea91eb49f6daac",
                "signature": "pxSb+1iJxizK0Dbz7S3kDdAz004PdsIPL7stJazTkz9i3lNxV3tcJN9sXq8FoWvNj4EPJ47D1/R2z37fxvNmAw=="
            },
            "clock": {
                "control": {
                    "kind": "days_per_move",
                    "days": 3
                },
                "description": "3 days per move",
                "as_of": "2026-12-07T02:47:03.031Z",
                "on_leave": false,
                "leave": [
                    {
                        "from": "2026-12-24",
                        "to": "2027-01-02"
                    },
                    {
                        "from": "2026-12-24",
                        "to": "2027-01-02"
                    }
                ],
                "leave_policy": "allowed"
            },
            "spectator_delay": 0,
            "delayed": false
        },
        "tokens": [
            {
                "seat": "white",
                "player": "Alice",
                "token": "75e5c6100154ad843e258c242ea8c8744ff6b2e1b15f4c87724d8e40469b162b",
                "calendar": "http://127.0.0.1:18911/api/calendar/YWxpY2VAZXhhbXBsZS5vcmc.7GZ2EY.e1bebae6605320d7beaccdf4fdf86b66/deadlines.ics"
            },
            {
                "seat": "black",
                "player": "Bob",
                "token": "af1d45beb0cf15895412583d4bd3bf86e42a003fb088a2569e58e6cbfe891aa2",
                "calendar": "http://127.0.0.1:18911/api/calendar/Ym9iQGV4YW1wbGUub3Jn.7GZ2EY.564d2ec1a981c7999bd3969b1fb61a11/deadlines.ics"
            }
        ]
    }
    )
}

/// The desk's list of games.
pub(super) fn desk_games() -> Value {
    json!(
    {
        "games": [
            {
                "id": "7GZ2EY",
                "variant": headline(),
                "status": "running",
                "turn": 2,
                "seats": [
                    {
                        "seat": "white",
                        "player": "Alice",
                        "email": "alice@example.org",
                        "owes_move": true,
                        "deadline": "2026-12-10T02:47:03.794Z",
                        "late": false,
                        "on_leave": false
                    },
                    {
                        "seat": "black",
                        "player": "Bob",
                        "email": "bob@example.org",
                        "owes_move": true,
                        "deadline": "2026-12-10T02:47:03.794Z",
                        "late": false,
                        "on_leave": false
                    }
                ],
                "to_move": [
                    "white",
                    "black"
                ],
                "result": null,
                "reason": null,
                "tournament": null,
                "created_at": "2026-12-07T02:47:03.027Z",
                "updated_at": "2026-12-07T02:47:03.794Z"
            }
        ]
    }
    )
}

/// A player's games: the game above, with what a player's list adds to it.
pub(super) fn my_games() -> Value {
    let mut mine = game();
    let added = json!({
        "your_seats": ["white"],
        "opponents": ["black: Bob"],
        "your_move": true,
        "your_move_number": "2.",
        "deadline": "2026-12-10T02:47:03.794Z"
    });
    if let (Value::Object(game), Value::Object(added)) = (&mut mine, added) {
        game.extend(added);
    }
    json!({ "games": [mine] })
}

/// A game's record as JSON.
pub(super) fn record_json() -> Value {
    json!(
    {
        "game": "7GZ2EY",
        "variant": headline(),
        "options": {},
        "site": "http://127.0.0.1:18911/games/7GZ2EY",
        "created_at": "2026-12-07T02:47:03.027Z",
        "seats": [
            {
                "seat": "white",
                "player": "Alice"
            },
            {
                "seat": "black",
                "player": "Bob"
            }
        ],
        "start": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1",
        "turns": [
            {
                "turn": 1,
                "resolved_at": "2026-12-07T02:47:03.794Z",
                "moves": [
                    {
                        "seat": "white",
                        "move": "e4",
                        "canonical": "e2e4",
                        "status": "played",
                        "reason": null
                    },
                    {
                        "seat": "black",
                        "move": "d5",
                        "canonical": "d7d5",
                        "status": "played",
                        "reason": null
                    }
                ],
                "notes": [],
                "state": "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR s KQkq e3,d6 e4,d5 0 2"
            }
        ],
        "state": "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR s KQkq e3,d6 e4,d5 0 2",
        "delayed": false,
        "outcome": null,
        "transcript_head": {
            "seq": 4,
            "hash": "ea91ccbca099982eaeb95a10d5b6e1839a14009d9fbd3d4d4bcc95fbfcf33a51",
            "signature": "PU/1NAkEUv6nQR2kh8z083FVxubVnAQrujF1W4OT6XN/2xwDUrnt1s/jZeuVeyQF4acFaphuwbAAcr2lD7MNAg=="
        }
    }
    )
}

/// A created tournament and the tokens of its first games.
pub(super) fn created_tournament() -> Value {
    json!(
    {
        "tournament": tournament(),
        "tokens": [
            {
                "game": "7H0A3N",
                "seat": "white",
                "player": 1,
                "name": "Bob",
                "token": "11e9fc5e555f62b82c7a28d79d9b9bf97d991d42d1497803c45a14b5bd634beb"
            },
            {
                "game": "7H0A3N",
                "seat": "black",
                "player": 2,
                "name": "Carol",
                "token": "6bdcf1c345296c7c07b06e5a902fba92cf3ec0937b192472bc49351f5ef54d6d"
            },
            {
                "game": "VZV5DY",
                "seat": "white",
                "player": 0,
                "name": "Alice",
                "token": "0c3eb7dccd03e3290cebb1c878e171bcb4df74057bf35219634c7004aac3faf6"
            },
            {
                "game": "VZV5DY",
                "seat": "black",
                "player": 1,
                "name": "Bob",
                "token": "9a203eeba40e32b18dcfc68658c5818ca31ea60e52190a9c52e6e3a99099513a"
            },
            {
                "game": "FABQ07",
                "seat": "white",
                "player": 2,
                "name": "Carol",
                "token": "0df3924a3c00a592768924e810553f66a8a356fee2e9d89c833cba647b5789cb"
            },
            {
                "game": "FABQ07",
                "seat": "black",
                "player": 0,
                "name": "Alice",
                "token": "c4b8c7acbed1d78f0f4ed6a730650ae4aa7d545fa95ff7bcede3ca9ddfeb3243"
            }
        ]
    }
    )
}

/// A tournament.
pub(super) fn tournament() -> Value {
    json!(
    {
        "id": "T85ZENX",
        "name": "Club cup",
        "variant": headline(),
        "status": "running",
        "double": false,
        "rounds": false,
        "teams": false,
        "leave": "allowed",
        "seats": [
            "white",
            "black"
        ],
        "has_pgn": true,
        "ends_at": null,
        "players": [
            {
                "player": 0,
                "name": "Alice",
                "withdrawn_at": null
            },
            {
                "player": 1,
                "name": "Bob",
                "withdrawn_at": null
            },
            {
                "player": 2,
                "name": "Carol",
                "withdrawn_at": null
            }
        ],
        "standings": [
            {
                "player": 0,
                "rank": 1,
                "points": 0,
                "tiebreak": 0,
                "wins": 0,
                "played": 0,
                "name": "Alice"
            },
            {
                "player": 1,
                "rank": 1,
                "points": 0,
                "tiebreak": 0,
                "wins": 0,
                "played": 0,
                "name": "Bob"
            },
            {
                "player": 2,
                "rank": 1,
                "points": 0,
                "tiebreak": 0,
                "wins": 0,
                "played": 0,
                "name": "Carol"
            }
        ],
        "crosstable": [
            [
                {
                    "scores": []
                },
                {
                    "scores": []
                },
                {
                    "scores": []
                }
            ],
            [
                {
                    "scores": []
                },
                {
                    "scores": []
                },
                {
                    "scores": []
                }
            ],
            [
                {
                    "scores": []
                },
                {
                    "scores": []
                },
                {
                    "scores": []
                }
            ]
        ],
        "games": [
            {
                "slot": 0,
                "round": 1,
                "game": "7H0A3N",
                "players": [
                    1,
                    2
                ],
                "names": [
                    "Bob",
                    "Carol"
                ],
                "status": "running",
                "result": null,
                "scores": null
            },
            {
                "slot": 1,
                "round": 2,
                "game": "VZV5DY",
                "players": [
                    0,
                    1
                ],
                "names": [
                    "Alice",
                    "Bob"
                ],
                "status": "running",
                "result": null,
                "scores": null
            },
            {
                "slot": 2,
                "round": 3,
                "game": "FABQ07",
                "players": [
                    2,
                    0
                ],
                "names": [
                    "Carol",
                    "Alice"
                ],
                "status": "running",
                "result": null,
                "scores": null
            }
        ],
        "finished": 0,
        "running": 3,
        "planned": 0,
        "cancelled": 0,
        "directors": []
    }
    )
}

/// A game waiting for its invited players.
pub(super) fn invitation_list() -> Value {
    json!(
    {
        "kind": "game",
        "id": "I2GQBFT",
        "variant": headline(),
        "status": "inviting",
        "all_accepted": false,
        "invitations": [
            {
                "player": 0,
                "seat": "white",
                "name": "Alice",
                "email": "alice@example.org",
                "answer": "pending",
                "invited_at": "2026-12-07T02:47:04.303Z",
                "closed": false
            },
            {
                "player": 1,
                "seat": "black",
                "name": "Bob",
                "email": "bob@example.org",
                "answer": "pending",
                "invited_at": "2026-12-07T02:47:04.303Z",
                "closed": false
            }
        ]
    }
    )
}

/// An invitation, as its player sees it.
pub(super) fn invitation() -> Value {
    json!(
    {
        "to": format!("a game of {}, playing white", headline()),
        "kind": "game",
        "id": "IX3Y58K",
        "variant": headline(),
        "seat": "white",
        "name": "Alice",
        "email": "alice@example.org",
        "others": [
            "Bob"
        ],
        "answer": "pending",
        "open": true,
        "key_required": false
    }
    )
}

/// A tournament's standings as CSV.
pub(super) const STANDINGS_CSV: &str = "rank,player,name,points,tiebreak,wins,played,withdrawn,\"1. Alice\",\"2. Bob\",\"3. Carol\"\n1,1,\"Alice\",0,0,0,0,false,x,\"\",\"\"\n1,2,\"Bob\",0,0,0,0,false,\"\",x,\"\"\n1,3,\"Carol\",0,0,0,0,false,\"\",\"\",x\n";
