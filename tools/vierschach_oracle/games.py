#!/usr/bin/env python3
"""Seeded random Vierschach games played by the oracle, as JSON lines, for the
Rust test suite to replay (tests/it/games/oracle.rs).

usage: games.py [--seed S] [--games N] [--plies P]
       games.py perft [--depth D]

`games` prints one line per ply:
  {"options": {...}, "state": S, "legal": [...], "move": M, "next": S2, "outcome": null | "1-0-1-0"}
for every option set below and every start position (the real start and a few
thinned-out ones that reach mates, freezes, thaws, promotions and jumps sooner).
Moves are drawn with a bias to captures, pawn moves and checks-by-chance, so
that games end within a few hundred plies.

`perft` prints {"options": ..., "state": S, "depth": d, "nodes": n} lines for the
start and the thinned positions, depths 1..D.
"""
from __future__ import annotations

import json
import random
import sys

import oracle as O

OPTION_SETS = [
    {},
    {"mode": "ffa"},
    {"mated": "remove"},
    {"mode": "ffa", "mated": "freeze"},
    {"partner_capture": "on", "no_progress": "30"},
    {"pawn_jump": "off", "ally_promotion": "off"},
]


def opts_of(d):
    return O.Options(d.get("mode", "teams"), d.get("mated"), d.get("partner_capture", "off"),
                     d.get("pawn_jump", "on"), d.get("ally_promotion", "on"), d.get("no_progress", "off"))


def thinned(keep):
    """The start position with only the kinds in `keep` (kings always stay)."""
    st = O.parse_state(O.START)
    st.board = {sq: p for sq, p in st.board.items() if p[1] in keep or p[1] == "K"}
    st.castling = {sq for sq in st.castling if st.board.get(sq, (None, None))[1] == "R"}
    return O.print_state(st)


STARTS = [
    O.START,
    thinned("RBN"),       # no pawns, no queens: open lines, mates and freezes early
    thinned("P"),         # kings and pawns: promotions, jumps, en passant
    thinned("PQN"),
]


def gives_check(st, mv, opts):
    """Whether the move leaves some enemy king of the mover attacked."""
    b = O.board_after(st, st.turn, mv)
    for seat in range(4):
        if opts.enemy(st.turn, seat):
            k = O.king_on(b, seat)
            if k is not None and O.count_attackers(st, b, k, seat, opts):
                return True
    return False


def pick(rng, st, moves, opts):
    r = rng.random()
    if r < 0.5:
        checks = [m for m in moves if gives_check(st, m, opts)]
        if checks:
            return rng.choice(checks)
    captures = [m for m in moves if m.to in st.board or m.special == "ep"]
    pawns = [m for m in moves if st.board[m.frm][1] == "P"]
    if captures and r < 0.7:
        return rng.choice(captures)
    if pawns and r < 0.85:
        return rng.choice(pawns)
    return rng.choice(moves)


BACK_RANKS = set().union(*(O.back_rank(seat) for seat in range(4)))


def random_position(rng, opts):
    """Four kings and a few random pieces, South to move with a legal move."""
    while True:
        st = O.State()
        free = list(O.ALL_SQUARES)
        rng.shuffle(free)
        edge = [sq for sq in free if sum(O.exists(sq[0] + dx, sq[1] + dy)
                                         for dx, dy in O.ROOK_DIRS + O.BISHOP_DIRS) < 8]
        for seat in range(4):
            sq = rng.choice([e for e in edge if e in free])
            free.remove(sq)
            st.board[sq] = (seat, "K")
        for _ in range(rng.randint(4, 14)):
            seat = rng.randrange(4)
            kind = rng.choice("QQRRRBBNNPPPP")
            sq = free.pop()
            if kind == "P" and sq in BACK_RANKS:
                continue
            st.board[sq] = (seat, kind)
        if O.legal_moves(st, 0, opts):
            return O.print_state(st)


def games(seed, n_games, max_plies):
    rng = random.Random(seed)
    for options in OPTION_SETS:
        opts = opts_of(options)
        starts = STARTS + [random_position(rng, opts) for _ in range(3 * n_games)]
        for start in starts:
            for _ in range(n_games):
                st = O.parse_state(start)
                for _ in range(max_plies):
                    if O.outcome(st, opts) is not None:
                        break
                    moves = O.legal_moves(st, st.turn, opts)
                    mv = pick(rng, st, moves, opts)
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
    for options in ({}, {"mode": "ffa"}):
        opts = opts_of(options)
        for start in STARTS:
            st = O.parse_state(start)
            for d in range(1, depth + 1):
                print(json.dumps({"options": options, "state": start, "depth": d, "nodes": O.perft(st, d, opts)}))


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("command", nargs="?", default="games", choices=["games", "perft"])
    ap.add_argument("--seed", type=int, default=20260801)
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--plies", type=int, default=200)
    ap.add_argument("--depth", type=int, default=3)
    a = ap.parse_args(argv)
    if a.command == "perft":
        perfts(a.depth)
    else:
        games(a.seed, a.games, a.plies)


if __name__ == "__main__":
    main(sys.argv[1:])
