#!/usr/bin/env python3
"""Independent Python oracle for the Dreierschach rules (shared/rules/dreierschach.md).

Written from the rules text, standard library only, in a deliberately plain
style unlike the engine's: cells are (x, y) tuples (x = number - 1, y = letter),
the board is a dict from cell to (seat, kind), every position is copied instead
of made and unmade, and an attack is found by listing what each enemy piece
attacks (the engine looks outwards from the attacked cell). Everything is
defined for White and turned by rho(x, y) = (y - x + 7, 12 - x) (section 3).

usage:
  oracle.py start
  oracle.py legal --state S [--en-passant round|next] [--no-progress off|N]
  oracle.py play  --state S --moves "m1 m2 ..." [options]
  oracle.py perft --state S --depth N [options]
Moves are read in the canonical form only (<from>-<to>[=Q|R|B|N], V2.2 names).
"""
from __future__ import annotations

import json
import sys

SEATS = "wnb"  # white, brown (braun), black: the turn order (section 3)
LETTERS = "abcdefghijklm"
START = (
    "nRnP2bPbR/nBnP3bPbN/nNnP4bPbB/nKnP5bPbQ/nQnP6bPbK/nBnP7bPbN/nNnP8bPbB/"
    "nRnP9bPbR/nP10bP/11/10/wPwPwPwPwPwPwPwPwP/wRwBwNwKwQwBwNwR "
    "w a1,a8,f1,f13,m8,m13 - 0 1"
)


class OracleError(ValueError):
    pass


# --- section 1: cells -----------------------------------------------------------------

def exists(c):
    x, y = c
    return 0 <= x <= 12 and 0 <= y <= 12 and -7 <= y - x <= 5


CELLS = [(x, y) for y in range(13) for x in range(13) if exists((x, y))]  # cell order
assert len(CELLS) == 126


def name(c):
    return LETTERS[c[1]] + str(c[0] + 1)


def parse_cell(text):
    if len(text) < 2 or text[0] not in LETTERS or not text[1:].isdigit() or text[1] == "0":
        raise OracleError(f"bad cell {text!r}")
    c = (int(text[1:]) - 1, LETTERS.index(text[0]))
    if not exists(c):
        raise OracleError(f"no cell {text!r}")
    return c


def order_key(c):
    return (c[1], c[0])


def add(c, v, k=1):
    return (c[0] + k * v[0], c[1] + k * v[1])


# --- section 2: directions ------------------------------------------------------------

S = [(-1, 0), (0, 1), (1, 1), (1, 0), (0, -1), (-1, -1)]          # straight, (dnumber, dletter)
D = [add(S[i], S[(i + 1) % 6]) for i in range(6)]                   # diagonal
assert D == [(-1, 1), (1, 2), (2, 1), (1, -1), (-1, -2), (-2, -1)]
KNIGHT = [add(add(S[i], S[i]), S[(i + 1) % 6]) for i in range(6)] + \
         [add(S[i], add(S[(i + 1) % 6], S[(i + 1) % 6])) for i in range(6)]


def can_pass(board, p, i):
    """Passage rule: a diagonal step from p along D[i] passes between p+S[i] and
    p+S[i+1]; it is allowed only if at least one of the two is empty."""
    a = add(p, S[i])
    b = add(p, S[(i + 1) % 6])
    return a not in board or b not in board


# --- section 3: seats by rotation -----------------------------------------------------

def rho(c):
    x, y = c
    return (y - x + 7, 12 - x)


def turn(c, k):
    for _ in range(k):
        c = rho(c)
    return c


def turn_vec(v, k):
    for _ in range(k):
        v = (v[1] - v[0], -v[0])
    return v


WHITE_ROW = ["R", "B", "N", "K", "Q", "B", "N", "R"]  # a1 .. a8


def baseline(seat):
    return [turn((x, 0), seat) for x in range(8)]


def start_line(seat):
    return [turn((x, 1), seat) for x in range(9)]


def pawn_steps(seat):
    return [turn_vec(S[1], seat), turn_vec(S[2], seat)]


def pawn_captures(seat):
    """(direction index, vector) of the pawn's three diagonal captures."""
    out = []
    for i in (0, 1, 2):
        v = turn_vec(D[i], seat)
        out.append((D.index(v), v))
    return out


# Castling for White (section 5), turned for the others:
# (side, king from, king to, rook from, rook to, cells between king and rook).
WHITE_CASTLING = [
    (0, (3, 0), (1, 0), (0, 0), (2, 0), [(2, 0), (1, 0)]),
    (1, (3, 0), (6, 0), (7, 0), (5, 0), [(4, 0), (5, 0), (6, 0)]),
]


def castlings(seat):
    return [(side, turn(kf, seat), turn(kt, seat), turn(rf, seat), turn(rt, seat), [turn(c, seat) for c in between])
            for (side, kf, kt, rf, rt, between) in WHITE_CASTLING]


ROOK_HOME = {}  # rook start cell -> seat
for _seat in range(3):
    for _c in castlings(_seat):
        ROOK_HOME[_c[3]] = _seat
BASE_OF = {}
for _seat in range(3):
    for _c in baseline(_seat):
        BASE_OF[_c] = _seat


class Options:
    def __init__(self, en_passant="round", no_progress="off"):
        if en_passant not in ("round", "next"):
            raise OracleError("en_passant is round or next")
        self.en_passant = en_passant
        self.no_progress = None if no_progress == "off" else int(no_progress)


# --- section 9: the state string ------------------------------------------------------

class State:
    def __init__(self):
        self.board = {}
        self.turn = 0
        self.castling = set()  # rook start cells
        self.ep = {}           # seat -> (from, over, to)
        self.halfmove = 0
        self.round = 1

    def copy(self):
        s = State()
        s.board = dict(self.board)
        s.turn = self.turn
        s.castling = set(self.castling)
        s.ep = dict(self.ep)
        s.halfmove = self.halfmove
        s.round = self.round
        return s


def king_on(board, seat):
    for c, (s, k) in board.items():
        if s == seat and k == "K":
            return c
    return None


def parse_state(text):
    f = text.split(" ")
    if len(f) != 6:
        raise OracleError("need 6 fields")
    st = State()
    rows = f[0].split("/")
    if len(rows) != 13:
        raise OracleError("need 13 rows")
    for i, r in enumerate(rows):
        y = 12 - i
        cells = [(x, y) for x in range(13) if exists((x, y))]
        at = 0
        j = 0
        while j < len(r):
            if r[j].isdigit():
                k = j
                while k < len(r) and r[k].isdigit():
                    k += 1
                at += int(r[j:k])
                j = k
            else:
                if r[j] not in SEATS or r[j + 1] not in "KQRBNP":
                    raise OracleError("bad piece")
                st.board[cells[at]] = (SEATS.index(r[j]), r[j + 1])
                at += 1
                j += 2
        if at != len(cells):
            raise OracleError(f"row {LETTERS[y]} has {at} cells")
    st.turn = SEATS.index(f[1])
    if f[2] != "-":
        st.castling = {parse_cell(t) for t in f[2].split(",")}
    if f[3] != "-":
        for t in f[3].split(","):
            a, b = t.split("-")
            frm, to = parse_cell(a), parse_cell(b)
            for seat in range(3):
                for v in pawn_steps(seat):
                    if frm in start_line(seat) and add(frm, v, 2) == to:
                        st.ep[seat] = (frm, add(frm, v), to)
    st.halfmove = int(f[4])
    st.round = int(f[5])
    return st


def print_state(st):
    rows = []
    for y in range(12, -1, -1):
        row = ""
        run = 0
        for x in range(13):
            if not exists((x, y)):
                continue
            p = st.board.get((x, y))
            if p is None:
                run += 1
            else:
                if run:
                    row += str(run)
                    run = 0
                row += SEATS[p[0]] + p[1]
        if run:
            row += str(run)
        rows.append(row)
    castling = ",".join(name(c) for c in sorted(st.castling, key=order_key)) or "-"
    ep = ",".join(name(st.ep[s][0]) + "-" + name(st.ep[s][2]) for s in sorted(st.ep)) or "-"
    return " ".join(["/".join(rows), SEATS[st.turn], castling, ep, str(st.halfmove), str(st.round)])


def start_state():
    st = State()
    for seat in range(3):
        for c, k in zip(baseline(seat), WHITE_ROW):
            st.board[c] = (seat, k)
        for c in start_line(seat):
            st.board[c] = (seat, "P")
    st.castling = set(ROOK_HOME)
    return st


assert print_state(start_state()) == START


# --- sections 4 and 6: what a piece attacks, moves --------------------------------------

def attacks_of(board, c, seat, kind):
    """Every cell the piece on c attacks: could capture there, were an enemy there."""
    out = []
    if kind == "N":
        return [add(c, v) for v in KNIGHT if exists(add(c, v))]
    if kind == "P":
        return [add(c, v) for (i, v) in pawn_captures(seat) if exists(add(c, v)) and can_pass(board, c, i)]
    reach = 1 if kind == "K" else 13
    if kind in "RQK":
        for v in S:
            t = c
            for _ in range(reach):
                t = add(t, v)
                if not exists(t):
                    break
                out.append(t)
                if t in board:
                    break
    if kind in "BQK":
        for i, v in enumerate(D):
            p = c
            for _ in range(reach):
                t = add(p, v)
                if not exists(t) or not can_pass(board, p, i):
                    break
                out.append(t)
                if t in board:
                    break
                p = t
    return out


def is_attacked(board, target, by_seats):
    for c, (seat, kind) in board.items():
        if seat in by_seats and target in attacks_of(board, c, seat, kind):
            return True
    return False


def others(seat):
    return [s for s in range(3) if s != seat]


class Move:
    def __init__(self, frm, to, promo=None, special=None, side=None):
        self.frm, self.to, self.promo, self.special, self.side = frm, to, promo, special, side

    def text(self):
        return name(self.frm) + "-" + name(self.to) + ("=" + self.promo if self.promo else "")


def pseudo_moves(st, seat):
    b = st.board
    out = []

    def target_ok(t):
        p = b.get(t)
        return p is None or (p[0] != seat and p[1] != "K")

    def put(frm, to, special=None):
        if b[frm][1] == "P" and to in BASE_OF and BASE_OF[to] != seat:
            for k in "QRBN":
                out.append(Move(frm, to, k, special))
        else:
            out.append(Move(frm, to, None, special))

    for c, (s, kind) in list(b.items()):
        if s != seat:
            continue
        if kind == "P":
            for v in pawn_steps(seat):
                one = add(c, v)
                if exists(one) and one not in b:
                    put(c, one)
                    two = add(one, v)
                    if c in start_line(seat) and exists(two) and two not in b:
                        put(c, two, "double")
            for i, v in pawn_captures(seat):
                t = add(c, v)
                if not exists(t) or not can_pass(b, c, i):
                    continue
                if t in b:
                    if b[t][0] != seat and b[t][1] != "K":
                        put(c, t)
                else:
                    for e, (_, over, _) in st.ep.items():
                        if e != seat and over == t:
                            put(c, t, "ep")
        else:
            for t in attacks_of(b, c, seat, kind):
                if target_ok(t):
                    put(c, t)
    # section 5: castling
    for (side, kf, kt, rf, rt, between) in castlings(seat):
        if rf not in st.castling or b.get(kf) != (seat, "K") or b.get(rf) != (seat, "R"):
            continue
        if any(c in b for c in between):
            continue
        if any(is_attacked(b, c, others(seat)) for c in [kf] + between):
            continue
        out.append(Move(kf, kt, None, "castle", side))
    return out


def board_after(st, seat, mv):
    b = dict(st.board)
    piece = b.pop(mv.frm)
    if mv.special == "castle":
        (_, _, _, rf, rt, _) = castlings(seat)[mv.side]
        del b[rf]
        b[rt] = (seat, "R")
    if mv.special == "ep":
        for e, (_, over, to) in st.ep.items():
            if e != seat and over == mv.to:
                del b[to]
                break
    b[mv.to] = (seat, mv.promo) if mv.promo else piece
    return b


def legal_moves(st, seat):
    out = []
    for mv in pseudo_moves(st, seat):
        b = board_after(st, seat, mv)
        if not is_attacked(b, king_on(b, seat), others(seat)):
            out.append(mv)
    return out


def in_check(st, seat):
    return is_attacked(st.board, king_on(st.board, seat), others(seat))


# --- sections 3, 4, 5, 9: playing a move -------------------------------------------------

def play(st, mv, opts):
    seat = st.turn
    nxt = st.copy()
    moving = st.board[mv.frm]
    captured = mv.to in st.board or mv.special == "ep"
    nxt.board = board_after(st, seat, mv)
    if moving[1] == "K":
        nxt.castling -= {c[3] for c in castlings(seat)}
    nxt.castling -= {mv.frm, mv.to}
    nxt.halfmove = 0 if captured or moving[1] == "P" else st.halfmove + 1
    if seat == 2:
        nxt.round += 1
    after = (seat + 1) % 3
    if opts.en_passant == "next":
        nxt.ep = {}
    else:
        nxt.ep.pop(after, None)
    if mv.special == "double":
        over = ((mv.frm[0] + mv.to[0]) // 2, (mv.frm[1] + mv.to[1]) // 2)
        nxt.ep[seat] = (mv.frm, over, mv.to)
    for e in list(nxt.ep):
        (_, over, to) = nxt.ep[e]
        if over in nxt.board or nxt.board.get(to) != (e, "P"):
            del nxt.ep[e]
    nxt.turn = after
    return nxt


# --- section 7: the end --------------------------------------------------------------------

def mate_points(st, p):
    k = king_on(st.board, p)
    first = (p + 1) % 3
    winner = first if is_attacked(st.board, k, [first]) else (p + 2) % 3
    points = [1, 1, 1]
    points[p] = 0
    points[winner] = 3
    return points


def outcome(st, opts):
    """(points, reason) or None."""
    p = st.turn
    if not legal_moves(st, p):
        if in_check(st, p):
            return (mate_points(st, p), "checkmate")
        return ([1, 1, 1], "stalemate")
    if all(k == "K" for (_, k) in st.board.values()):
        return ([1, 1, 1], "insufficient material")
    if opts.no_progress is not None and st.halfmove >= opts.no_progress:
        return ([1, 1, 1], "no progress")
    return None


def outcome_json(o):
    return None if o is None else "-".join(str(p) for p in o[0])


def perft(st, depth, opts):
    if depth == 0:
        return 1
    moves = legal_moves(st, st.turn)
    if depth == 1:
        return len(moves)
    return sum(perft(play(st, mv, opts), depth - 1, opts) for mv in moves)


def find_move(st, text):
    for mv in legal_moves(st, st.turn):
        if mv.text() == text:
            return mv
    raise OracleError(f"{text} is not a legal move")


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["start", "legal", "play", "perft"])
    ap.add_argument("--state", default=START)
    ap.add_argument("--moves", default="")
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--en-passant", default="round")
    ap.add_argument("--no-progress", default="off")
    a = ap.parse_args(argv)
    opts = Options(a.en_passant, a.no_progress)
    if a.command == "start":
        print(json.dumps(START))
        return
    st = parse_state(a.state)
    if a.command == "legal":
        print(json.dumps(sorted(m.text() for m in legal_moves(st, st.turn))))
    elif a.command == "perft":
        print(perft(st, a.depth, opts))
    else:
        o = outcome(st, opts)
        for text in a.moves.split():
            if o is not None:
                raise OracleError("the game is over")
            st = play(st, find_move(st, text), opts)
            o = outcome(st, opts)
        print(json.dumps({"state": print_state(st), "outcome": outcome_json(o)}))


if __name__ == "__main__":
    main(sys.argv[1:])
