#!/usr/bin/env python3
"""Seeded random Dreierschach games played by the oracle, as JSON lines, for the
Rust test suite to replay (tests/it/games/oracle.rs).

usage: games.py [--seed S] [--games N] [--plies P]
       games.py perft [--depth D]

`games` prints one line per ply:
  {"options": {...}, "state": S, "legal": [...], "move": M, "next": S2, "outcome": null | "3-1-0"}
for every option set below and every start position (the real start, a few
thinned-out ones that reach mates, castling, promotions and en passant sooner,
and random sparse positions). Moves are drawn with a bias to captures, pawn
moves and checks, so that games end within a few hundred plies.

`perft` prints {"options": ..., "state": S, "depth": d, "nodes": n} lines for
the start and the thinned positions, depths 1..D.
"""
from __future__ import annotations

import json
import random
import sys

import oracle as O

OPTION_SETS = [
    {},
    {"en_passant": "next"},
    {"no_progress": "20"},
]


def opts_of(d):
    return O.Options(d.get("en_passant", "round"), d.get("no_progress", "off"))


def thinned(keep):
    """The start position with only the kinds in `keep` (kings always stay)."""
    st = O.start_state()
    st.board = {c: p for c, p in st.board.items() if p[1] in keep or p[1] == "K"}
    st.castling = {c for c in st.castling if st.board.get(c, (None, None))[1] == "R"}
    assert not O.in_check(st, 2), "Black, the last mover, cannot be in check"
    return O.print_state(st)


STARTS = [
    O.START,
    thinned("RBN"),    # no pawns, no queens: open lines, passages, castling, mates early
    thinned("P"),      # kings and pawns: double steps, en passant, promotions
    thinned("PRN"),
    thinned("PB"),     # bishops and pawns: the passage rule everywhere
]


def gives_check(st, mv):
    """Whether the move leaves some opponent's king attacked."""
    b = O.board_after(st, st.turn, mv)
    for seat in O.others(st.turn):
        if O.is_attacked(b, O.king_on(b, seat), [st.turn]):
            return True
    return False


def pick(rng, st, moves):
    r = rng.random()
    if r < 0.4:
        checks = [m for m in moves if gives_check(st, m)]
        if checks:
            return rng.choice(checks)
    captures = [m for m in moves if m.to in st.board or m.special == "ep"]
    specials = [m for m in moves if m.special in ("ep", "castle", "double") or m.promo]
    if specials and r < 0.55:
        return rng.choice(specials)
    if captures and r < 0.75:
        return rng.choice(captures)
    pawns = [m for m in moves if st.board[m.frm][1] == "P"]
    if pawns and r < 0.85:
        return rng.choice(pawns)
    return rng.choice(moves)


def random_position(rng):
    """Three kings and a few random pieces, White to move with a legal move,
    Black (the last mover) not in check, no pawn on a baseline."""
    while True:
        st = O.State()
        free = list(O.CELLS)
        rng.shuffle(free)
        for seat in range(3):
            st.board[free.pop()] = (seat, "K")
        for _ in range(rng.randint(3, 12)):
            seat = rng.randrange(3)
            kind = rng.choice("QRRBBBNNPPPP")
            c = free.pop()
            if kind == "P" and c in O.BASE_OF:
                continue
            st.board[c] = (seat, kind)
        if O.in_check(st, 2):
            continue
        if O.legal_moves(st, 0):
            return O.print_state(st)


def games(seed, n_games, max_plies):
    rng = random.Random(seed)
    for options in OPTION_SETS:
        opts = opts_of(options)
        starts = STARTS + [random_position(rng) for _ in range(3 * n_games)]
        for start in starts:
            for _ in range(n_games):
                st = O.parse_state(start)
                for _ in range(max_plies):
                    if O.outcome(st, opts) is not None:
                        break
                    moves = O.legal_moves(st, st.turn)
                    mv = pick(rng, st, moves)
                    nxt = O.play(st, mv, opts)
                    print(json.dumps({
                        "options": options,
                        "state": O.print_state(st),
                        "legal": sorted(m.text() for m in moves),
                        "move": mv.text(),
                        "next": O.print_state(nxt),
                        "outcome": O.outcome_json(O.outcome(nxt, opts)),
                    }))
                    st = nxt


def perfts(depth):
    for options in ({}, {"en_passant": "next"}):
        opts = opts_of(options)
        for start in STARTS:
            st = O.parse_state(start)
            for d in range(1, depth + 1):
                print(json.dumps({"options": options, "state": start, "depth": d, "nodes": O.perft(st, d, opts)}))


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("command", nargs="?", default="games", choices=["games", "perft"])
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--plies", type=int, default=200)
    ap.add_argument("--depth", type=int, default=2)
    a = ap.parse_args(argv)
    if a.command == "perft":
        perfts(a.depth)
    else:
        games(a.seed, a.games, a.plies)


if __name__ == "__main__":
    main(sys.argv[1:])
