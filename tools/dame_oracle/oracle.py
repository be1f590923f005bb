#!/usr/bin/env python3
"""An independent implementation of rules/trialectic-dame.md, written from the
rules file alone (Python standard library only), to check the steward's engine.

Boards are records (section 1): the triangle of section 2 is generated here from
the text, other records are read from JSON. States are the strings of section 7.

usage: oracle.py start|legal|play|perft [--state S] [--moves "m1 m2"] [--depth N]
                 [--board FILE] [--side N] [--setup 1|2] [--enclosure none|take|remove]
                 [--dame-first on|off] [--no-progress off|N]
Output is JSON, as section 8 describes it.
"""
from __future__ import annotations

import argparse
import json
import sys

SEATS = "yrb"  # turn order; a seat's letter is also its colour's

EVENTS = {}  # what settle did, counted, for the drivers' coverage reports


def event(name):
    EVENTS[name] = EVENTS.get(name, 0) + 1


class OracleError(ValueError):
    pass


# ---------------------------------------------------------------------------
# Section 1: the board as data


class Board:
    def __init__(self, record):
        self.rows = [list(r) for r in record["rows"]]
        self.cells = [c for r in self.rows for c in r]
        self.opposite = dict(record["directions"])
        self.dirs = list(self.opposite)
        self.nb = {c: {} for c in self.cells}
        for c, ds in record["neighbours"].items():
            for d, t in ds.items():
                self.nb[c][d] = t
        self.seat = {}
        for k in SEATS:
            s = record["seats"][k]
            self.seat[k] = {
                "forward": set(s["forward"]),
                "sideways": set(s["sideways"]),
                "backward": set(s["backward"]),
                "baseline": list(s["baseline"]),
                "corners": list(s["corners"]),
                "start": list(s["start"]),
            }
        self.check()

    def check(self):
        problems = []
        seen = set()
        for c in self.cells:
            if not c or not c.isascii() or not c.isalnum() or "x" in c:
                problems.append("bad name " + repr(c))
            if c in seen:
                problems.append("duplicate " + c)
            seen.add(c)
        for d, o in self.opposite.items():
            if o not in self.opposite or self.opposite[o] != d or o == d:
                problems.append("opposite of " + d)
        for c, ds in self.nb.items():
            for d, t in ds.items():
                if d not in self.opposite or t not in seen or t == c:
                    problems.append("neighbour %s %s" % (c, d))
                elif self.nb[t].get(self.opposite[d]) != c:
                    problems.append("not symmetric %s %s" % (c, d))
        for k, s in self.seat.items():
            f, sw, b = s["forward"], s["sideways"], s["backward"]
            if f & sw or f & b or sw & b:
                problems.append("direction sets of " + k)
            if len(s["corners"]) != 2 or len(set(s["corners"])) != 2 or not set(s["corners"]) <= set(s["baseline"]):
                problems.append("corners of " + k)
        starts = [c for k in SEATS for c in self.seat[k]["start"]]
        if len(starts) != len(set(starts)):
            problems.append("start cells not distinct")
        for k in SEATS:
            for c in self.seat[k]["start"]:
                if any(c in self.seat[o]["baseline"] for o in SEATS if o != k):
                    problems.append("start %s on another baseline" % c)
        if problems:
            raise OracleError("; ".join(problems))

    def line(self, c, d):
        out = []
        while d in self.nb[c]:
            c = self.nb[c][d]
            out.append(c)
        return out

    def promotion(self, colour):
        """Other seats' baselines, minus this colour's corners."""
        cells = set()
        for k in SEATS:
            if k != colour:
                cells |= set(self.seat[k]["baseline"])
        return cells - set(self.seat[colour]["corners"])


def b36(v):
    return "0123456789abcdefghijklmnopqrstuvwxyz"[v]


def triangle(side=10):
    """The reconstructed board of section 2, for an even side."""
    if side % 2 or side < 10 or side > 32:
        raise OracleError("side")
    n = side - 1
    name = lambda a, b, c: b36(a) + b36(b) + b36(c)
    rows = [[name(a, b, n - a - b) for b in range(n - a + 1)] for a in range(n, -1, -1)]
    vec = {"d1": (1, -1, 0), "d2": (1, 0, -1), "d3": (0, 1, -1), "d4": (-1, 1, 0), "d5": (-1, 0, 1), "d6": (0, -1, 1)}
    opposite = {"d1": "d4", "d2": "d5", "d3": "d6", "d4": "d1", "d5": "d2", "d6": "d3"}
    neighbours = {}
    for a in range(n + 1):
        for b in range(n - a + 1):
            c = n - a - b
            ds = {}
            for d, (x, y, z) in vec.items():
                if a + x >= 0 and b + y >= 0 and c + z >= 0:
                    ds[d] = name(a + x, b + y, c + z)
            neighbours[name(a, b, c)] = ds
    k = (side - 6) // 2
    y = {
        "forward": ["d1", "d2"], "sideways": ["d3", "d6"], "backward": ["d4", "d5"],
        "baseline": [name(0, b, n - b) for b in range(n + 1)],
        "corners": [name(0, 0, n), name(0, n, 0)],
        "start": [name(0, k + i, n - k - i) for i in range(6)] + [name(1, k + i, n - 1 - k - i) for i in range(5)],
    }
    r = {
        "forward": ["d3", "d4"], "sideways": ["d5", "d2"], "backward": ["d6", "d1"],
        "baseline": [name(a, 0, n - a) for a in range(n + 1)],
        "corners": [name(0, 0, n), name(n, 0, 0)],
        "start": [name(k + i, 0, n - k - i) for i in range(6)] + [name(k + i, 1, n - 1 - k - i) for i in range(5)],
    }
    b = {
        "forward": ["d5", "d6"], "sideways": ["d1", "d4"], "backward": ["d2", "d3"],
        "baseline": [name(a, n - a, 0) for a in range(n + 1)],
        "corners": [name(0, n, 0), name(n, 0, 0)],
        "start": [name(k + i, n - k - i, 0) for i in range(6)] + [name(k + i, n - 1 - k - i, 1) for i in range(5)],
    }
    return Board({"rows": rows, "directions": opposite, "neighbours": neighbours, "seats": {"y": y, "r": r, "b": b}})


# ---------------------------------------------------------------------------
# Options (section 9)


class Options:
    def __init__(self, setup="1", enclosure="none", dame_first="off", no_progress="off"):
        assert setup in ("1", "2") and enclosure in ("none", "take", "remove") and dame_first in ("on", "off")
        self.setup = setup
        self.enclosure = enclosure
        self.dame_first = dame_first == "on"
        self.no_progress = None if no_progress == "off" else int(no_progress)


# ---------------------------------------------------------------------------
# Section 7: states


class State:
    def __init__(self, stones, seat, control, place, plies, rnd):
        self.stones = stones  # cell -> 'y' 'r' 'b' (man) or 'Y' 'R' 'B' (Dame)
        self.seat = seat
        self.control = control  # colour -> seat letter or None
        self.place = place  # a string of seat letters
        self.plies = plies
        self.round = rnd

    def copy(self):
        return State(dict(self.stones), self.seat, dict(self.control), self.place, self.plies, self.round)

    def in_game(self):
        return [s for s in SEATS if s in self.control.values()]


def plain_number(text):
    if not text.isdigit() or not text.isascii() or (len(text) > 1 and text[0] == "0"):
        raise OracleError("number " + repr(text))
    return int(text)


def parse_state(board, opts, text):
    f = text.split(" ")
    if len(f) != 6:
        raise OracleError("fields")
    rows = f[0].split("/")
    if len(rows) != len(board.rows):
        raise OracleError("rows")
    stones = {}
    for row, cells in zip(rows, board.rows):
        if len(row) != len(cells):
            raise OracleError("row length")
        for ch, c in zip(row, cells):
            if ch == ".":
                continue
            if ch not in "yrbYRB":
                raise OracleError("stone")
            stones[c] = ch
    if f[1] not in SEATS:
        raise OracleError("seat")
    if len(f[2]) != 3 or any(ch not in "yrb-" for ch in f[2]):
        raise OracleError("control")
    control = {SEATS[i]: (None if f[2][i] == "-" else f[2][i]) for i in range(3)}
    place = "" if f[3] == "-" else f[3]
    if f[3] != "-" and (not place or any(ch not in SEATS for ch in place) or "".join(sorted(set(place), key=SEATS.index)) != place):
        raise OracleError("place")
    plies, rnd = plain_number(f[4]), plain_number(f[5])
    if rnd < 1:
        raise OracleError("round")
    st = State(stones, f[1], control, place, plies, rnd)
    colours = {v.lower() for v in stones.values()}
    for col in SEATS:
        ctl = control[col]
        if (col in colours) != (ctl is not None):
            raise OracleError("control vs stones")
        if ctl is not None and ctl != col:
            if opts.enclosure != "take":
                raise OracleError("adopted without take")
            if control[ctl] not in (ctl, None):
                raise OracleError("controller's own colour")
    ig = st.in_game()
    if not ig:
        raise OracleError("nobody in the game")
    if len(ig) > 1 and st.seat not in ig:
        raise OracleError("seat to move not in the game")
    return st


def print_state(board, st):
    rows = "/".join("".join(st.stones.get(c, ".") for c in row) for row in board.rows)
    ctl = "".join(st.control[c] or "-" for c in SEATS)
    return "%s %s %s %s %d %d" % (rows, st.seat, ctl, st.place or "-", st.plies, st.round)


def start_state(board, opts):
    stones = {}
    control = {}
    for k in SEATS:
        for c in board.seat[k]["start"]:
            stones[c] = k
        control[k] = k if board.seat[k]["start"] else None
    place = "".join(k for k in SEATS if control[k]) if opts.setup == "2" else ""
    st = State(stones, "y", control, place, 0, 1)
    settle(board, opts, st, before(st, "y"))
    return st


# ---------------------------------------------------------------------------
# Section 4: moves. A move is a tuple: ("place", cell) | ("step", a, b) |
# ("jump", (c0, c1, ...), (taken...)), written as section 6 says.


def text(mv):
    if mv[0] == "place":
        return "@" + mv[1]
    if mv[0] == "step":
        return mv[1] + "-" + mv[2]
    return "x".join(mv[1])


def controller(st, stone):
    return st.control[stone.lower()]


def sequences(board, st, seat, start):
    """Every complete capture sequence of the stone on `start`."""
    stone = st.stones[start]
    col = stone.lower()
    dame = stone.isupper()
    promo = board.promotion(col)
    found = []

    def go(at, stones, path, taken):
        jumped = False
        for d in board.dirs:
            ln = board.line(at, d)
            i = 0
            if dame:
                while i < len(ln) and ln[i] not in stones:
                    i += 1
            if i >= len(ln) or i + 1 >= len(ln):
                continue
            victim = ln[i]
            if victim not in stones or controller(st, stones[victim]) == seat:
                continue
            land = ln[i + 1]
            if land in stones:
                continue
            jumped = True
            after = dict(stones)
            del after[victim]
            del after[at]
            if not dame and land in promo:
                found.append((path + (land,), taken + (victim,)))
                continue
            after[land] = stone
            if not go(land, after, path + (land,), taken + (victim,)):
                found.append((path + (land,), taken + (victim,)))
        return jumped

    go(start, dict(st.stones), (start,), ())
    return found


def legal_moves(board, opts, st):
    """The legal moves of the seat to move, sorted by text; [] when the game is over."""
    if ended_already(opts, st):
        return []
    return sorted(raw_moves(board, opts, st, st.seat), key=text)


def raw_moves(board, opts, st, seat):
    if seat in st.place:
        bad = set(board.seat[seat]["corners"])
        for k in SEATS:
            if k != seat:
                bad |= set(board.seat[k]["baseline"])
        return [("place", c) for c in board.cells if c not in st.stones and c not in bad]
    mine = [c for c in board.cells if c in st.stones and controller(st, st.stones[c]) == seat]
    jumps = []
    for c in mine:
        for path, taken in sequences(board, st, seat, c):
            jumps.append((st.stones[c].isupper(), ("jump", path, taken)))
    if jumps:
        if opts.dame_first and any(d for d, _ in jumps):
            return [m for d, m in jumps if d]
        return [m for _, m in jumps]
    steps = []
    for c in mine:
        stone = st.stones[c]
        if stone.isupper():
            for d in board.dirs:
                for t in board.line(c, d):
                    if t in st.stones:
                        break
                    steps.append(("step", c, t))
        else:
            s = board.seat[stone]
            for d in board.dirs:
                if d in s["forward"] or d in s["sideways"]:
                    t = board.nb[c].get(d)
                    if t is not None and t not in st.stones:
                        steps.append(("step", c, t))
    return steps


def can_move(board, opts, st, seat):
    return bool(raw_moves(board, opts, st, seat))


# ---------------------------------------------------------------------------
# Section 5 and the turn order of sections 3 and 7


def ended_already(opts, st):
    return len(st.in_game()) <= 1 or (opts.no_progress is not None and st.plies >= opts.no_progress)


def advance_seat(st):
    """One step of the turn: y -> r -> b -> y; b -> y adds a round."""
    i = SEATS.index(st.seat)
    if i == 2:
        st.round += 1
    st.seat = SEATS[(i + 1) % 3]


def next_in_game(st):
    advance_seat(st)
    while st.seat not in st.in_game():
        advance_seat(st)


def before(st, seat):
    i = SEATS.index(seat)
    for k in (SEATS[(i + 2) % 3], SEATS[(i + 1) % 3]):
        if k in st.in_game():
            return k
    return seat


def result_of(opts, st):
    """The outcome a state shows by itself (section 5), or None."""
    ig = st.in_game()
    if len(ig) <= 1:
        return win(ig[0] if ig else st.seat, "last seat in the game")
    if opts.no_progress is not None and st.plies >= opts.no_progress:
        return draw(st, "no progress")
    return None


def win(seat, reason):
    return {"result": "win", "winner": seat, "reason": reason, "scores": {k: (1 if k == seat else 0) for k in SEATS}}


def draw(st, reason):
    ig = st.in_game()
    return {"result": "draw", "winner": None, "reason": reason, "scores": {k: (0.5 if k in ig else 0) for k in SEATS}}


def enclose(st, seat, taker, enclosure):
    for col in SEATS:
        if st.control[col] == seat:
            if enclosure == "take":
                st.control[col] = taker
            else:
                for c in [c for c, s in st.stones.items() if s.lower() == col]:
                    del st.stones[c]
                st.control[col] = None
    st.place = st.place.replace(seat, "")


def settle(board, opts, st, last):
    """Passes and enclosures due from the seat to move on; returns the outcome."""
    while True:
        o = result_of(opts, st)
        if o:
            return o
        x = st.seat
        if x not in st.in_game():
            advance_seat(st)
            continue
        if can_move(board, opts, st, x):
            return None
        if opts.enclosure == "none":
            if not any(can_move(board, opts, st, k) for k in st.in_game()):
                event("no seat can move")
                return draw(st, "no seat can move")
            event("pass")
            advance_seat(st)
            while st.seat not in st.in_game():
                advance_seat(st)
        else:
            event("enclosure " + opts.enclosure)
            enclose(st, x, last, opts.enclosure)
            if len(st.in_game()) <= 1:
                return result_of(opts, st)
            next_in_game(st)


def play(board, opts, st, mv):
    """The state after the seat to move plays mv (legal), and the outcome."""
    seat = st.seat
    st = st.copy()
    progress = True
    if mv[0] == "place":
        st.stones[mv[1]] = seat
        st.place = st.place.replace(seat, "")
        if st.control[seat] is None:
            st.control[seat] = seat
    else:
        frm, to = (mv[1], mv[2]) if mv[0] == "step" else (mv[1][0], mv[1][-1])
        stone = st.stones.pop(frm)
        if mv[0] == "jump":
            for c in mv[2]:
                del st.stones[c]
        elif stone.isupper():
            progress = False
        if stone.islower() and to in board.promotion(stone):
            stone = stone.upper()
        st.stones[to] = stone
    st.plies = 0 if progress else st.plies + 1
    present = {s.lower() for s in st.stones.values()}
    for col in SEATS:
        if col not in present:
            st.control[col] = None
    o = result_of(opts, st)
    if o:
        return st, o
    next_in_game(st)
    return st, settle(board, opts, st, seat)


def outcome(board, opts, st):
    st = st.copy()
    o = result_of(opts, st)
    if o:
        return o
    return settle(board, opts, st, before(st, st.seat))


def settled(board, opts, st):
    st = st.copy()
    if not result_of(opts, st):
        settle(board, opts, st, before(st, st.seat))
    return st


def find_move(board, opts, st, written):
    legal = legal_moves(board, opts, st)
    t = written.replace("-", "x")
    exact = [m for m in legal if text(m).replace("-", "x") == t]
    if exact:
        return exact[0]
    parts = t.split("x")
    if len(parts) == 2:
        fits = [m for m in legal if m[0] == "jump" and m[1][0] == parts[0] and m[1][-1] == parts[1]]
        if len(fits) == 1:
            return fits[0]
        if fits:
            raise OracleError("ambiguous " + written)
    raise OracleError("not legal: " + written)


def perft(board, opts, st, depth):
    if depth == 0:
        return 1
    moves = legal_moves(board, opts, st)
    if depth == 1:
        return len(moves)
    return sum(perft(board, opts, play(board, opts, st, m)[0], depth - 1) for m in moves)


# ---------------------------------------------------------------------------


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["start", "legal", "play", "perft"])
    ap.add_argument("--state")
    ap.add_argument("--moves", default="")
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--board")
    ap.add_argument("--side", type=int, default=10)
    ap.add_argument("--setup", default="1")
    ap.add_argument("--enclosure", default="none")
    ap.add_argument("--dame-first", default="off")
    ap.add_argument("--no-progress", default="off")
    a = ap.parse_args(argv)
    board = Board(json.load(open(a.board))) if a.board else triangle(a.side)
    opts = Options(a.setup, a.enclosure, a.dame_first, a.no_progress)
    st = parse_state(board, opts, a.state) if a.state else start_state(board, opts)
    if a.command == "start":
        out = print_state(board, st)
    elif a.command == "legal":
        out = [text(m) for m in legal_moves(board, opts, st)]
    elif a.command == "perft":
        out = perft(board, opts, settled(board, opts, st), a.depth)
    else:
        st = settled(board, opts, st)
        o = outcome(board, opts, st)
        for m in a.moves.split():
            if o:
                raise OracleError("the game is over")
            st, o = play(board, opts, st, find_move(board, opts, st, m))
        out = {"state": print_state(board, st), "outcome": o}
    print(json.dumps(out))


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except OracleError as e:
        print("oracle: " + str(e), file=sys.stderr)
        sys.exit(2)
