#!/usr/bin/env python3
"""Independent Python oracle for the Vierschach rules (shared/rules/vierschach.md).

Written from the rules text, standard library only, in a deliberately plain
style: squares are (x, y) tuples, the board is a dict from square to
(seat, kind), every position is copied instead of made and unmade, and every
seat's geometry is South's rotated by rho(x, y) = (y, 13 - x) (section 3).

usage:
  oracle.py start
  oracle.py legal --state S [options]
  oracle.py play  --state S --moves "m1 m2 ..." [options]
  oracle.py perft --state S --depth N [options]
options: --mode teams|ffa --mated freeze|remove --partner-capture on|off
         --pawn-jump on|off --ally-promotion on|off --no-progress off|N
Moves are read in the canonical form only (<from>-<to>[=Q|R|B|N]).
"""
from __future__ import annotations

import json
import sys

SEATS = "swne"  # south, west, north, east: clockwise turn order (section 3)
FILES = "abcdefghijklmn"
START = (
    "nRnNnBnKnQnBnNnR/nPnPnPnPnPnPnPnP/8/wRwP10ePeR/wNwP10ePeN/wBwP10ePeB/"
    "wQwP10ePeK/wKwP10ePeQ/wBwP10ePeB/wNwP10ePeN/wRwP10ePeR/8/sPsPsPsPsPsPsPsP/"
    "sRsNsBsQsKsBsNsR s d1,k1,a4,n4,a11,n11,d14,k14 - aaaa 0 1"
)


class OracleError(ValueError):
    pass


# --- section 1: board and coordinates ------------------------------------------------

def exists(x, y):
    if not (0 <= x <= 13 and 0 <= y <= 13):
        return False
    return not (x in (0, 1, 2, 11, 12, 13) and y in (0, 1, 2, 11, 12, 13))


ALL_SQUARES = [(x, y) for y in range(14) for x in range(14) if exists(x, y)]  # square order
assert len(ALL_SQUARES) == 160


def name(sq):
    return FILES[sq[0]] + str(sq[1] + 1)


def parse_square(text):
    if len(text) < 2 or text[0] not in FILES or not text[1:].isdigit() or text[1] == "0":
        raise OracleError(f"bad square {text!r}")
    sq = (FILES.index(text[0]), int(text[1:]) - 1)
    if not exists(*sq):
        raise OracleError(f"no square {text!r}")
    return sq


def order_key(sq):
    return (sq[1], sq[0])


# --- section 3: seats by rotation ----------------------------------------------------

def rot(sq, k):
    x, y = sq
    for _ in range(k):
        x, y = y, 13 - x
    return (x, y)


def rotv(v, k):
    dx, dy = v
    for _ in range(k):
        dx, dy = dy, -dx
    return (dx, dy)


def forward(seat):
    return rotv((0, 1), seat)


def capture_steps(seat):
    return [rotv((-1, 1), seat), rotv((1, 1), seat)]


def back_rank(seat):
    return {rot((x, 0), seat) for x in range(3, 11)}


def start_line(seat):
    return {rot((x, 1), seat) for x in range(3, 11)}


SOUTH_ROW = ["R", "N", "B", "Q", "K", "B", "N", "R"]  # d1 .. k1

# Castling for South (section 5); rotated for the others.
# (name, king from, king to, rook from, rook to, must be empty, king passes/lands)
SOUTH_CASTLING = [
    ("O-O", (7, 0), (9, 0), (10, 0), (8, 0), [(8, 0), (9, 0)], [(8, 0), (9, 0)]),
    ("O-O-O", (7, 0), (5, 0), (3, 0), (6, 0), [(4, 0), (5, 0), (6, 0)], [(6, 0), (5, 0)]),
]


def castlings(seat):
    out = []
    for (n, kf, kt, rf, rt, empty, path) in SOUTH_CASTLING:
        out.append((n, rot(kf, seat), rot(kt, seat), rot(rf, seat), rot(rt, seat),
                    [rot(s, seat) for s in empty], [rot(s, seat) for s in path]))
    return out


ROOK_SQUARES = {}  # rook start square -> seat
for _seat in range(4):
    for _c in castlings(_seat):
        ROOK_SQUARES[_c[3]] = _seat


class Options:
    def __init__(self, mode="teams", mated=None, partner_capture="off", pawn_jump="on",
                 ally_promotion="on", no_progress="off"):
        self.mode = mode
        self.mated = mated or ("freeze" if mode == "teams" else "remove")
        self.partner_capture = partner_capture == "on"
        self.pawn_jump = pawn_jump == "on"
        self.ally_promotion = ally_promotion == "on"
        self.no_progress = None if no_progress == "off" else int(no_progress)

    def enemy(self, a, b):
        if a == b:
            return False
        if self.mode == "ffa":
            return True
        return (a % 2) != (b % 2)

    def partner(self, a):
        return (a + 2) % 4 if self.mode == "teams" else None


# --- section 10: the state string ----------------------------------------------------

class State:
    def __init__(self):
        self.board = {}
        self.turn = 0
        self.castling = set()  # rook start squares
        self.ep = {}  # seat -> skipped square
        self.status = ["a", "a", "a", "a"]
        self.halfmove = 0
        self.round = 1

    def copy(self):
        s = State()
        s.board = dict(self.board)
        s.turn = self.turn
        s.castling = set(self.castling)
        s.ep = dict(self.ep)
        s.status = list(self.status)
        s.halfmove = self.halfmove
        s.round = self.round
        return s

    def king(self, seat):
        for sq, (s, k) in self.board.items():
            if s == seat and k == "K":
                return sq
        return None


def parse_state(text):
    f = text.split(" ")
    if len(f) != 7:
        raise OracleError("need 7 fields")
    st = State()
    ranks = f[0].split("/")
    if len(ranks) != 14:
        raise OracleError("need 14 ranks")
    for i, r in enumerate(ranks):
        y = 13 - i
        squares = [(x, y) for x in range(14) if exists(x, y)]
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
                seat = SEATS.index(r[j])
                kind = r[j + 1]
                if kind not in "KQRBNP":
                    raise OracleError("bad piece")
                st.board[squares[at]] = (seat, kind)
                at += 1
                j += 2
        if at != len(squares):
            raise OracleError(f"rank {y + 1} has {at} squares")
    st.turn = SEATS.index(f[1])
    if f[2] != "-":
        st.castling = {parse_square(t) for t in f[2].split(",")}
    if f[3] != "-":
        for t in f[3].split(","):
            sq = parse_square(t)
            for seat in range(4):
                fx, fy = forward(seat)
                if (sq[0] - fx, sq[1] - fy) in start_line(seat):
                    st.ep[seat] = sq
    st.status = list(f[4])
    st.halfmove = int(f[5])
    st.round = int(f[6])
    return st


def print_state(st):
    rows = []
    for y in range(13, -1, -1):
        row = ""
        run = 0
        for x in range(14):
            if not exists(x, y):
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
    castling = ",".join(name(s) for s in sorted(st.castling, key=order_key)) or "-"
    ep = ",".join(name(s) for s in sorted(st.ep.values(), key=order_key)) or "-"
    return " ".join([
        "/".join(rows), SEATS[st.turn], castling, ep, "".join(st.status), str(st.halfmove), str(st.round)
    ])


# --- sections 4 and 6: attacks and moves ---------------------------------------------

ROOK_DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1)]
BISHOP_DIRS = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
KNIGHT = [(1, 2), (1, -2), (-1, 2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1)]


def active(st, seat):
    """Pieces of `seat` are active unless its status is m (frozen)."""
    return st.status[seat] != "m"


def attacked_squares_of_piece(board, sq, seat, kind):
    """The squares the piece on `sq` attacks (could capture on), pinned or not."""
    out = []
    x, y = sq
    if kind == "P":
        for dx, dy in capture_steps(seat):
            if exists(x + dx, y + dy):
                out.append((x + dx, y + dy))
        return out
    if kind == "N":
        for dx, dy in KNIGHT:
            if exists(x + dx, y + dy):
                out.append((x + dx, y + dy))
        return out
    if kind == "K":
        for dx, dy in ROOK_DIRS + BISHOP_DIRS:
            if exists(x + dx, y + dy):
                out.append((x + dx, y + dy))
        return out
    dirs = {"R": ROOK_DIRS, "B": BISHOP_DIRS, "Q": ROOK_DIRS + BISHOP_DIRS}[kind]
    for dx, dy in dirs:
        cx, cy = x + dx, y + dy
        while exists(cx, cy):
            out.append((cx, cy))
            if (cx, cy) in board:
                break
            cx, cy = cx + dx, cy + dy
    return out


def count_attackers(st, board, target, victim_seat, opts):
    """How many active enemy pieces (enemies of victim_seat) attack `target`."""
    n = 0
    for sq, (seat, kind) in board.items():
        if not opts.enemy(victim_seat, seat) or not active(st, seat):
            continue
        if target in attacked_squares_of_piece(board, sq, seat, kind):
            n += 1
    return n


def is_capturable(st, mover, piece, opts):
    seat, kind = piece
    if kind == "K" or not active(st, seat) or seat == mover:
        return False
    if opts.enemy(mover, seat):
        return True
    return opts.partner_capture and opts.partner(mover) == seat


def promotes(mover, sq, opts):
    for other in range(4):
        if other == mover or sq not in back_rank(other):
            continue
        if opts.enemy(mover, other):
            return True
        if opts.ally_promotion and opts.partner(mover) == other:
            return True
    return False


class Move:
    def __init__(self, frm, to, promo=None, special=None):
        self.frm, self.to, self.promo, self.special = frm, to, promo, special

    def text(self):
        return name(self.frm) + "-" + name(self.to) + ("=" + self.promo if self.promo else "")


def pseudo_moves(st, mover, opts):
    b = st.board
    out = []

    def add(frm, to, special=None, pawn=False):
        if pawn and promotes(mover, to, opts):
            for p in "QRBN":
                out.append(Move(frm, to, p, special))
        else:
            out.append(Move(frm, to, None, special))

    for sq, (seat, kind) in list(b.items()):
        if seat != mover:
            continue
        x, y = sq
        if kind == "P":
            fx, fy = forward(mover)
            one = (x + fx, y + fy)
            two = (x + 2 * fx, y + 2 * fy)
            if exists(*one) and one not in b:
                add(sq, one, None, True)
                if sq in start_line(mover) and exists(*two) and two not in b:
                    add(sq, two, "double", True)
            if (opts.mode == "teams" and opts.pawn_jump and exists(*one) and one in b
                    and b[one] == (opts.partner(mover), "P") and exists(*two) and two not in b):
                add(sq, two, "jump", True)
            for dx, dy in capture_steps(mover):
                t = (x + dx, y + dy)
                if not exists(*t):
                    continue
                if t in b:
                    if is_capturable(st, mover, b[t], opts):
                        add(sq, t, None, True)
                else:
                    for d, m in st.ep.items():
                        if m == t and opts.enemy(mover, d):
                            add(sq, t, "ep", True)
        else:
            for t in attacked_squares_of_piece(b, sq, mover, kind):
                if t not in b or is_capturable(st, mover, b[t], opts):
                    add(sq, t)
    # castling (section 5)
    king = st.king(mover)
    for (cname, kf, kt, rf, rt, empty, path) in castlings(mover):
        if rf not in st.castling or king != kf or b.get(rf) != (mover, "R"):
            continue
        if any(s in b for s in empty):
            continue
        if any(count_attackers(st, b, s, mover, opts) for s in [kf] + path):
            continue
        out.append(Move(kf, kt, None, cname))
    return out


def board_after(st, mover, mv):
    b = dict(st.board)
    piece = b.pop(mv.frm)
    if mv.special in ("O-O", "O-O-O"):
        for (cname, kf, kt, rf, rt, empty, path) in castlings(mover):
            if cname == mv.special:
                del b[rf]
                b[rt] = (mover, "R")
                b[kt] = piece
        return b
    if mv.special == "ep":
        for d, m in st.ep.items():
            if m == mv.to:
                fx, fy = forward(d)
                del b[(m[0] + fx, m[1] + fy)]
    b[mv.to] = (mover, mv.promo) if mv.promo else piece
    return b


def king_on(board, seat):
    for sq, (s, k) in board.items():
        if s == seat and k == "K":
            return sq
    return None


def legal_moves(st, mover, opts):
    out = []
    partner = opts.partner(mover)
    rule2 = opts.mode == "teams" and opts.mated == "freeze" and partner is not None
    pk = st.king(partner) if rule2 else None
    before = count_attackers(st, st.board, pk, partner, opts) if pk else 0
    for mv in pseudo_moves(st, mover, opts):
        b = board_after(st, mover, mv)
        k = king_on(b, mover)
        if k is not None and count_attackers(st, b, k, mover, opts) > 0:
            continue
        if pk is not None and count_attackers(st, b, pk, partner, opts) > before:
            continue
        out.append(mv)
    return out


def in_check(st, seat, opts):
    k = st.king(seat)
    return k is not None and count_attackers(st, st.board, k, seat, opts) > 0


# --- sections 7 and 8: the turn procedure and the end ---------------------------------

def down(s):
    return s in "mx"


def game_end(st, opts):
    s = st.status
    if opts.mode == "teams":
        for a, b in ((0, 2), (1, 3)):
            if down(s[a]) and down(s[b]):
                return ("win", sorted({0, 1, 2, 3} - {a, b}))
        for a, b in ((0, 2), (1, 3)):
            if (down(s[a]) and s[b] == "s") or (down(s[b]) and s[a] == "s"):
                return ("draw", [0, 1, 2, 3])
    else:
        up = [i for i in range(4) if not down(s[i])]
        if len(up) == 1:
            return ("win", up)
    if "a" not in s:
        return ("draw", [i for i in range(4) if s[i] in "as"] if opts.mode == "ffa" else [0, 1, 2, 3])
    return None


def outcome(st, opts):
    if st.status[st.turn] != "a":
        return game_end(st, opts)
    if opts.no_progress is not None and st.halfmove >= opts.no_progress:
        return ("draw", [i for i in range(4) if st.status[i] in "as"] if opts.mode == "ffa" else [0, 1, 2, 3])
    return None


def play(st, mv, opts):
    mover = st.turn
    nxt = st.copy()
    moving = st.board[mv.frm]
    capture = mv.to in st.board or mv.special == "ep"
    nxt.board = board_after(st, mover, mv)
    # castling rights: king or rook moved, rook captured
    if moving[1] == "K":
        for c in castlings(mover):
            nxt.castling.discard(c[3])
    nxt.castling.discard(mv.frm)
    nxt.castling.discard(mv.to)
    nxt.halfmove = 0 if (capture or moving[1] == "P") else st.halfmove + 1
    if mv.special == "double":
        fx, fy = forward(mover)
        nxt.ep[mover] = (mv.frm[0] + fx, mv.frm[1] + fy)
    clean_ep(nxt)
    p = mover
    while True:
        if p == 3:
            nxt.round += 1
        p = (p + 1) % 4
        if nxt.status[p] == "x":
            continue
        nxt.ep.pop(p, None)
        if legal_moves(nxt, p, opts):
            nxt.status[p] = "a"
            nxt.turn = p
            return nxt
        if in_check(nxt, p, opts):
            if opts.mated == "freeze":
                nxt.status[p] = "m"
            else:
                nxt.board = {sq: pc for sq, pc in nxt.board.items() if pc[0] != p}
                nxt.status[p] = "x"
                nxt.halfmove = 0
                for c in castlings(p):
                    nxt.castling.discard(c[3])
                clean_ep(nxt)
        else:
            nxt.status[p] = "s"
        if game_end(nxt, opts):
            nxt.turn = p
            return nxt


def clean_ep(st):
    for d, m in list(st.ep.items()):
        fx, fy = forward(d)
        q = (m[0] + fx, m[1] + fy)
        if m in st.board or st.board.get(q) != (d, "P"):
            del st.ep[d]


def legal_texts(st, opts):
    return sorted(m.text() for m in legal_moves(st, st.turn, opts))


def find_move(st, text, opts):
    for m in legal_moves(st, st.turn, opts):
        if m.text() == text:
            return m
    raise OracleError(f"{text} is not legal in {print_state(st)}")


def perft(st, depth, opts):
    if depth == 0:
        return 1
    moves = legal_moves(st, st.turn, opts)
    if depth == 1:
        return len(moves)
    return sum(perft(play(st, m, opts), depth - 1, opts) for m in moves)


def outcome_json(o):
    if o is None:
        return None
    kind, seats = o
    scores = []
    for i in range(4):
        if i in seats:
            scores.append("1" if kind == "win" else "1/2")
        else:
            scores.append("0")
    return "-".join(scores)


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["start", "legal", "play", "perft"])
    ap.add_argument("--state", default=START)
    ap.add_argument("--moves", default="")
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--mode", default="teams")
    ap.add_argument("--mated")
    ap.add_argument("--partner-capture", default="off")
    ap.add_argument("--pawn-jump", default="on")
    ap.add_argument("--ally-promotion", default="on")
    ap.add_argument("--no-progress", default="off")
    a = ap.parse_args(argv)
    opts = Options(a.mode, a.mated, a.partner_capture, a.pawn_jump, a.ally_promotion, a.no_progress)
    st = parse_state(a.state)
    if a.command == "start":
        print(json.dumps(START))
    elif a.command == "legal":
        print(json.dumps(legal_texts(st, opts)))
    elif a.command == "perft":
        print(perft(st, a.depth, opts))
    else:
        for t in a.moves.split():
            st = play(st, find_move(st, t, opts), opts)
        print(json.dumps({"state": print_state(st), "outcome": outcome_json(outcome(st, opts))}))


if __name__ == "__main__":
    main(sys.argv[1:])
