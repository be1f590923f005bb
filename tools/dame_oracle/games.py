#!/usr/bin/env python3
"""Seeded random Trialectic Dame games played by the oracle, as JSON lines, for
the Rust test suite to replay (tests/it/games/dame/oracle.rs).

usage: games.py [--seed S] [--games N] [--plies P]
       games.py perft [--depth D]

`games` prints one line per ply:
  {"board": B, "options": {...}, "state": S, "legal": [...], "move": M | null,
   "written": W, "next": S2, "outcome": null | {...}}
for every board (B: "triangle", "side12" or a JSON file's path relative to the
repository), every option set below, from the start and from random positions
(sparse stones, men and Dames, adopted colours under `take`, placements owed,
plies near `no_progress`). `written` is how the move is sent: its canonical
text, `-` for `x`, or start and final cell when only one capture fits. When
the seat to move has no legal move (a random position), `move` is null and
`next` is the state after the passes or enclosures due.

`perft` prints {"board", "options", "state", "depth", "nodes"} lines.
"""
from __future__ import annotations

import json
import os
import random
import sys

import oracle as O

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BOARDS = ["triangle", "side12", "tests/it/games/data/dame-hexagon.json"]

OPTION_SETS = [
    {},
    {"setup": "2"},
    {"enclosure": "take"},
    {"enclosure": "remove", "dame_first": "on"},
    {"no_progress": "12", "dame_first": "on"},
    {"setup": "2", "enclosure": "take", "no_progress": "20"},
]


def board_of(name):
    if name == "triangle":
        return O.triangle(10)
    if name == "side12":
        return O.triangle(12)
    return O.Board(json.load(open(os.path.join(ROOT, name))))


def opts_of(d):
    return O.Options(d.get("setup", "1"), d.get("enclosure", "none"), d.get("dame_first", "off"),
                     d.get("no_progress", "off"))


def random_position(rng, board, opts, dense=False):
    """A position that the state string accepts: sparse, or (dense) with most
    cells taken, where seats get stuck and pass or are enclosed."""
    while True:
        stones = {}
        cells = list(board.cells)
        rng.shuffle(cells)
        colours = [c for c in O.SEATS if rng.random() < 0.85]
        if len(colours) < 2:
            continue
        if dense:
            for c in cells[: int(len(cells) * rng.uniform(0.8, 1.0))]:
                col = rng.choice(colours)
                stones[c] = col.upper() if rng.random() < 0.05 else col
        else:
            for col in colours:
                for _ in range(rng.randint(1, 5)):
                    if cells:
                        stones[cells.pop()] = col.upper() if rng.random() < 0.35 else col
        present = {s.lower() for s in stones.values()}
        control = {c: (c if c in present else None) for c in O.SEATS}
        if opts.enclosure == "take" and rng.random() < 0.5:
            # One colour adopted by a seat whose own colour shows it or is gone.
            col = rng.choice(sorted(present))
            takers = [k for k in O.SEATS if k != col and control[k] in (k, None) and (k in present or rng.random() < 0.5)]
            takers = [k for k in takers if control[k] == k or k not in present]
            if takers:
                control[col] = rng.choice(takers)
        ig = [k for k in O.SEATS if k in control.values()]
        if not ig:
            continue
        place = ""
        if opts.setup == "2" and rng.random() < 0.5:
            place = "".join(k for k in ig if rng.random() < 0.5)
        plies = rng.randint(0, 15) if opts.no_progress else rng.randint(0, 3)
        st = O.State(stones, rng.choice(ig), control, place, plies, rng.randint(1, 6))
        stuck = [k for k in ig if not O.can_move(board, opts, st, k)]
        if dense and stuck and rng.random() < 0.7:
            st.seat = rng.choice(stuck)  # a hand-made state whose seat to move cannot move
        text = O.print_state(board, st)
        try:
            return O.parse_state(board, opts, text)
        except O.OracleError:
            continue


def written(rng, board, opts, st, mv):
    t = O.text(mv)
    r = rng.random()
    if mv[0] == "jump" and len(mv[1]) > 2 and r < 0.3:
        legal = O.legal_moves(board, opts, st)
        ends = [m for m in legal if m[0] == "jump" and m[1][0] == mv[1][0] and m[1][-1] == mv[1][-1]]
        exact = [m for m in legal if O.text(m) == mv[1][0] + "x" + mv[1][-1]]
        if len(ends) == 1 and not exact:
            return mv[1][0] + "x" + mv[1][-1]
    if r < 0.5:
        return t.replace("x", "-")
    return t


def game(rng, name, board, optd, st, max_plies, out):
    opts = opts_of(optd)
    for _ in range(max_plies):
        line = {"board": name, "options": optd, "state": O.print_state(board, st)}
        legal = O.legal_moves(board, opts, st)
        line["legal"] = [O.text(m) for m in legal]
        if O.result_of(opts, st):
            return
        if not legal:
            st = O.settled(board, opts, st)
            line.update({"move": None, "written": None, "next": O.print_state(board, st),
                         "outcome": O.outcome(board, opts, st)})
            out.append(line)
            if line["outcome"]:
                return
            continue
        mv = rng.choice(legal)
        line["move"] = O.text(mv)
        line["written"] = written(rng, board, opts, st, mv)
        st, o = O.play(board, opts, st, mv)
        line["next"] = O.print_state(board, st)
        line["outcome"] = o
        out.append(line)
        if o:
            return


def games(seed, n_games, max_plies):
    rng = random.Random(seed)
    out = []
    for name in BOARDS:
        board = board_of(name)
        for optd in OPTION_SETS:
            opts = opts_of(optd)
            for _ in range(n_games):
                game(rng, name, board, optd, O.start_state(board, opts), max_plies, out)
                game(rng, name, board, optd, random_position(rng, board, opts), max_plies, out)
                for _ in range(4):
                    game(rng, name, board, optd, random_position(rng, board, opts, dense=True), max_plies, out)
    for line in out:
        print(json.dumps(line))
    print("coverage: %d plies, settle events %s" % (len(out), sorted(O.EVENTS.items())), file=sys.stderr)


def perfts(depth):
    rng = random.Random(7)
    for name in BOARDS:
        board = board_of(name)
        for optd in OPTION_SETS:
            opts = opts_of(optd)
            states = [O.start_state(board, opts)] + [random_position(rng, board, opts) for _ in range(2)]
            for st in states:
                settled = O.settled(board, opts, st)
                for d in range(1, depth + 1):
                    print(json.dumps({"board": name, "options": optd, "state": O.print_state(board, st), "depth": d,
                                      "nodes": O.perft(board, opts, settled, d)}))


def main(argv):
    import argparse
    if argv and argv[0] == "perft":
        ap = argparse.ArgumentParser()
        ap.add_argument("--depth", type=int, default=3)
        a = ap.parse_args(argv[1:])
        perfts(a.depth)
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--plies", type=int, default=200)
    a = ap.parse_args(argv)
    games(a.seed, a.games, a.plies)


if __name__ == "__main__":
    main(sys.argv[1:])
