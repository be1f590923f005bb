#!/usr/bin/env python3
"""Independent Python oracle for 3D chess (shared/rules/tri-d-chess.md).

Written from the rules text, standard library only, in a deliberately plain
style unlike the engine's: a square is a tuple (x, y, level) with the level's
name ("W", "N", "B", "QL1" ... "KL6"), the position is a dict from square to
(colour, kind), every move is played on a full copy, and a column is attacked
when some enemy piece, scanned one by one, reaches it by its own movement.

usage:
  oracle.py start
  oracle.py legal --state S
  oracle.py play  --state S --moves "m1 m2 ..."
  oracle.py perft --state S --depth N
  oracle.py games --seed N --games G --plies P
    seeded random games from the start and from random sparse positions
    (boards anywhere, a few pieces, corner pawns waiting to promote): one JSON
    line per ply with the state, its legal moves, the move chosen, the state
    after it and the outcome then (no history: repetition is not judged)
Moves are read in the canonical form only (section 10).
"""
from __future__ import annotations

import json
import sys

FILES = "zabcde"
START = ("nbbn/pppp/4/4/4/4/4/4/4/4/PPPP/NBBN "
         "wQL1:PP/RQ,wKL1:PP/KR,bQL6:rq/pp,bKL6:kr/pp w KQkq - - - 0 1")
MAIN = {"W": (1, 4), "N": (3, 6), "B": (5, 8)}           # level: (low rank, high rank)
PIN_LOW_RANK = {1: 0, 2: 4, 3: 2, 4: 6, 5: 4, 6: 8}        # section 1's table
PIN_NAMES = [f"{side}L{n}" for n in range(1, 7) for side in "QK"]  # pin order
SAME_SIDE = {1: (2, 3), 2: (1, 3, 4), 3: (1, 2, 4, 5), 4: (2, 3, 5, 6), 5: (3, 4, 6), 6: (4, 5)}
ORTHO = [(1, 0), (-1, 0), (0, 1), (0, -1)]
DIAG = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
KNIGHT = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
PROMOS = "QRBN"


class OracleError(ValueError):
    pass


# --- section 1: squares ----------------------------------------------------------

def pin_files(pin):
    return (0, 1) if pin[0] == "Q" else (4, 5)


def pin_ranks(pin):
    low = PIN_LOW_RANK[int(pin[2])]
    return (low, low + 1)


def square_exists(sq, pins):
    x, y, lvl = sq
    if lvl in MAIN:
        lo, hi = MAIN[lvl]
        return 1 <= x <= 4 and lo <= y <= hi
    return lvl in pins and x in pin_files(lvl) and y in pin_ranks(lvl)


def column_squares(x, y, pins):
    out = [(x, y, lvl) for lvl in "WNB" if square_exists((x, y, lvl), pins)]
    out += [(x, y, p) for p in PIN_NAMES if square_exists((x, y, p), pins)]
    return out


def name(sq):
    return FILES[sq[0]] + str(sq[1]) + sq[2]


def parse_square(text):
    if len(text) < 3 or text[0] not in FILES or not text[1].isdigit():
        raise OracleError(f"bad square {text!r}")
    lvl = text[2:]
    if lvl not in MAIN and lvl not in PIN_NAMES:
        raise OracleError(f"bad level in {text!r}")
    return (FILES.index(text[0]), int(text[1]), lvl)


# --- section 11: state string ------------------------------------------------------

class Pos:
    def __init__(self):
        self.board = {}        # square -> (colour 'w'|'b', kind 'KQRBNP')
        self.pins = {}         # pin name -> marking 'w'|'b'
        self.side = "w"
        self.castling = ""
        self.ep = None
        self.moved = set()
        self.pending = None
        self.half = 0
        self.full = 1

    def copy(self):
        p = Pos()
        p.board = dict(self.board)
        p.pins = dict(self.pins)
        p.side, p.castling, p.ep = self.side, self.castling, self.ep
        p.moved = set(self.moved)
        p.pending, p.half, p.full = self.pending, self.half, self.full
        return p


def read_row(text, width):
    out = []
    for c in text:
        if c.isdigit():
            out += [None] * int(c)
        elif c.upper() in "KQRBNP":
            out.append(("w" if c.isupper() else "b", c.upper()))
        else:
            raise OracleError(f"bad row {text!r}")
    if len(out) != width:
        raise OracleError(f"row {text!r} is not {width} wide")
    return out


def parse_state(text):
    f = text.split(" ")
    if len(f) != 9:
        raise OracleError("nine fields")
    p = Pos()
    rows = f[0].split("/")
    if len(rows) != 12:
        raise OracleError("twelve rows")
    ranks = [("B", r) for r in (8, 7, 6, 5)] + [("N", r) for r in (6, 5, 4, 3)] + [("W", r) for r in (4, 3, 2, 1)]
    for (lvl, y), row in zip(ranks, rows):
        for i, piece in enumerate(read_row(row, 4)):
            if piece:
                p.board[(i + 1, y, lvl)] = piece
    for b in f[1].split(","):
        head, rows = b.split(":")
        pin = head[1:]
        p.pins[pin] = head[0]
        hi, lo = rows.split("/")
        xs = pin_files(pin)
        ylo, yhi = pin_ranks(pin)
        for y, row in ((yhi, hi), (ylo, lo)):
            for i, piece in enumerate(read_row(row, 2)):
                if piece:
                    p.board[(xs[i], y, pin)] = piece
    p.side = f[2]
    p.castling = "" if f[3] == "-" else f[3]
    p.ep = None if f[4] == "-" else parse_square(f[4])
    p.moved = set() if f[5] == "-" else {parse_square(s) for s in f[5].split(",")}
    p.pending = None if f[6] == "-" else parse_square(f[6])
    p.half, p.full = int(f[7]), int(f[8])
    return p


def write_row(pieces):
    out, run = "", 0
    for pc in pieces:
        if pc is None:
            run += 1
            continue
        if run:
            out += str(run)
            run = 0
        out += pc[1] if pc[0] == "w" else pc[1].lower()
    return out + (str(run) if run else "")


def write_state(p):
    rows = []
    for lvl, ys in (("B", (8, 7, 6, 5)), ("N", (6, 5, 4, 3)), ("W", (4, 3, 2, 1))):
        for y in ys:
            rows.append(write_row([p.board.get((x, y, lvl)) for x in (1, 2, 3, 4)]))
    boards = []
    for pin in PIN_NAMES:
        if pin in p.pins:
            xs = pin_files(pin)
            ylo, yhi = pin_ranks(pin)
            hi = write_row([p.board.get((x, yhi, pin)) for x in xs])
            lo = write_row([p.board.get((x, ylo, pin)) for x in xs])
            boards.append(f"{p.pins[pin]}{pin}:{hi}/{lo}")
    moved = ",".join(sorted(name(s) for s in p.moved)) or "-"
    return " ".join([
        "/".join(rows), ",".join(boards), p.side, p.castling or "-",
        name(p.ep) if p.ep else "-", moved, name(p.pending) if p.pending else "-",
        str(p.half), str(p.full),
    ])


# --- sections 4, 5, 8: movement and attacks ---------------------------------------

def col_has_piece(p, x, y):
    return any(sq[0] == x and sq[1] == y for sq in p.board)


def inside(x, y):
    return 0 <= x <= 5 and 0 <= y <= 9


def forward(colour):
    return 1 if colour == "w" else -1


def reaches(p, sq, kind, colour, tx, ty):
    """Whether a piece of `kind` on `sq` could capture in column (tx, ty)."""
    x, y, _ = sq
    dx, dy = tx - x, ty - y
    if dx == 0 and dy == 0:
        return False
    if kind == "P":
        return dy == forward(colour) and abs(dx) == 1
    if kind == "N":
        return (dx, dy) in KNIGHT
    if kind == "K":
        return max(abs(dx), abs(dy)) == 1
    dirs = {"R": ORTHO, "B": DIAG, "Q": ORTHO + DIAG}[kind]
    for ux, uy in dirs:
        cx, cy = x + ux, y + uy
        while inside(cx, cy):
            if (cx, cy) == (tx, ty):
                return True
            if col_has_piece(p, cx, cy):
                break
            cx, cy = cx + ux, cy + uy
    return False


def column_attacked(p, tx, ty, by):
    return any(c == by and reaches(p, sq, k, c, tx, ty) for sq, (c, k) in p.board.items())


def king_square(p, colour):
    for sq, (c, k) in p.board.items():
        if c == colour and k == "K":
            return sq
    raise OracleError(f"no {colour} king")


def in_check(p, colour):
    x, y, _ = king_square(p, colour)
    return column_attacked(p, x, y, "b" if colour == "w" else "w")


def promotion_rank(p, colour, x):
    if colour == "w":
        if x in (2, 3):
            return 8
        if x in (0, 5):
            return 9
        corner = "QL6" if x == 1 else "KL6"
        return 9 if corner in p.pins else 8
    if x in (2, 3):
        return 1
    if x in (0, 5):
        return 0
    corner = "QL1" if x == 1 else "KL1"
    return 0 if corner in p.pins else 1


ORIGINAL = {
    "w": {("z1QL1"), "a1QL1", "d1KL1", "e1KL1", "a2W", "b2W", "c2W", "d2W"},
    "b": {"z8QL6", "a8QL6", "d8KL6", "e8KL6", "a7B", "b7B", "c7B", "d7B"},
}


def is_original(sq, colour):
    return name(sq) in ORIGINAL[colour]


# --- pseudo moves -------------------------------------------------------------------
# A move is a dict: kind piece|ep|double|castle|board, squares or pins, promo.

def targets_in_column(p, x, y, colour):
    out = []
    for sq in column_squares(x, y, p.pins):
        occ = p.board.get(sq)
        if occ is None or occ[0] != colour:
            out.append(sq)
    return out


def pseudo_piece_moves(p):
    us = p.side
    out = []
    for sq, (c, k) in list(p.board.items()):
        if c != us:
            continue
        x, y, _ = sq
        if k == "P":
            fw = forward(us)
            if inside(x, y + fw):
                for t in column_squares(x, y + fw, p.pins):
                    if t not in p.board:
                        out.append({"kind": "piece", "from": sq, "to": t})
                if is_original(sq, us) and sq not in p.moved and inside(x, y + 2 * fw) \
                        and not col_has_piece(p, x, y + fw):
                    for t in column_squares(x, y + 2 * fw, p.pins):
                        if t not in p.board:
                            out.append({"kind": "double", "from": sq, "to": t})
            for dx in (-1, 1):
                if inside(x + dx, y + fw):
                    for t in column_squares(x + dx, y + fw, p.pins):
                        occ = p.board.get(t)
                        if occ and occ[0] != us:
                            out.append({"kind": "piece", "from": sq, "to": t})
            if p.ep is not None:
                ex, ey, _ = p.ep
                if ey == y and abs(ex - x) == 1:
                    for t in column_squares(ex, ey + fw, p.pins):
                        if t not in p.board:
                            out.append({"kind": "ep", "from": sq, "to": t})
        elif k in "NK":
            offs = KNIGHT if k == "N" else ORTHO + DIAG
            for dx, dy in offs:
                if inside(x + dx, y + dy):
                    for t in targets_in_column(p, x + dx, y + dy, us):
                        out.append({"kind": "piece", "from": sq, "to": t})
        else:
            dirs = {"R": ORTHO, "B": DIAG, "Q": ORTHO + DIAG}[k]
            for ux, uy in dirs:
                cx, cy = x + ux, y + uy
                while inside(cx, cy):
                    for t in targets_in_column(p, cx, cy, us):
                        out.append({"kind": "piece", "from": sq, "to": t})
                    if col_has_piece(p, cx, cy):
                        break
                    cx, cy = cx + ux, cy + uy
    return out


def expand_promotions(p, moves):
    out = []
    for m in moves:
        c, k = p.board[m["from"]]
        if k == "P" and m["to"][1] == promotion_rank(p, c, m["to"][0]):
            for q in PROMOS:
                out.append(dict(m, promo=q))
        else:
            out.append(m)
    return out


def board_neighbours(pin):
    side, n = pin[0], int(pin[2])
    return [f"{side}L{m}" for m in SAME_SIDE[n]] + [f"{'K' if side == 'Q' else 'Q'}L{n}"]


def board_moves(p):
    out = []
    for pin, mark in p.pins.items():
        cargo = [sq for sq in p.board if sq[2] == pin]
        if len(cargo) > 1:
            continue
        owner = p.board[cargo[0]][0] if cargo else mark
        if owner != p.side:
            continue
        for dest in board_neighbours(pin):
            if dest in p.pins:
                continue
            a, b = PIN_LOW_RANK[int(pin[2])], PIN_LOW_RANK[int(dest[2])]
            sideways = pin[2] == dest[2]
            fwd = b > a if p.side == "w" else b < a
            if cargo and not (sideways or fwd):
                continue
            out.append({"kind": "board", "from": pin, "to": dest})
    return out


# --- playing a move ------------------------------------------------------------------

LOSE_RIGHTS = {"d0KL1": "KQ", "e0KL1": "K", "z0QL1": "Q", "d9KL6": "kq", "e9KL6": "k", "z9QL6": "q"}


def drop_rights(p, sq):
    for r in LOSE_RIGHTS.get(name(sq), ""):
        p.castling = p.castling.replace(r, "")


def translate(sq, dest):
    """A board square moved to pin `dest` (same place on the board)."""
    x, y, pin = sq
    i = pin_files(pin).index(x)
    j = pin_ranks(pin).index(y)
    return (pin_files(dest)[i], pin_ranks(dest)[j], dest)


def corners_uncovered(pin):
    return {"QL1": [((1, 1, "W"), "b")], "KL1": [((4, 1, "W"), "b")],
            "QL6": [((1, 8, "B"), "w")], "KL6": [((4, 8, "B"), "w")]}.get(pin, [])


def apply_body(p, m):
    """Plays a move (no prefix) on a copy; returns the copy and, for a board
    move, the pawn squares that promote now: (own, pending)."""
    q = p.copy()
    us = p.side
    q.ep = None
    reset = False
    own_promo, pending = None, None
    if m["kind"] == "castle":
        if m["side"] == "short":
            k, r = m["from"], m["rook"]
            q.board[k], q.board[r] = q.board[r], q.board[k]
        else:
            k, r, t = m["from"], m["rook"], m["to"]
            q.board[t] = q.board.pop(k)
            q.board[k] = q.board.pop(r)
        drop_rights(q, m["from"])
        drop_rights(q, m["rook"])
    elif m["kind"] == "board":
        src, dest = m["from"], m["to"]
        cargo = [sq for sq in p.board if sq[2] == src]
        q.pins[dest] = q.pins.pop(src)
        for sq in cargo:
            piece = q.board.pop(sq)
            t = translate(sq, dest)
            q.board[t] = piece
            q.moved.discard(sq)
            drop_rights(q, sq)
            if piece[1] == "P":
                if is_original(t, piece[0]):
                    q.moved.add(t)
                if t[1] == promotion_rank(q, piece[0], t[0]):
                    own_promo = t
        for sq, colour in corners_uncovered(src):
            if q.board.get(sq) == (colour, "P") and sq[1] == promotion_rank(q, colour, sq[0]):
                if colour == us:
                    own_promo = sq
                else:
                    pending = sq
    else:
        src, t = m["from"], m["to"]
        piece = q.board.pop(src)
        if t in q.board:
            reset = True
            q.moved.discard(t)
        if m["kind"] == "ep":
            del q.board[p.ep]
            q.moved.discard(p.ep)
            reset = True
        if piece[1] == "P":
            reset = True
            q.moved.discard(src)
        if m.get("promo"):
            piece = (us, m["promo"])
        q.board[t] = piece
        if piece[1] == "P" and is_original(t, us):
            q.moved.add(t)
        if m["kind"] == "double":
            q.ep = t
        drop_rights(q, src)
        drop_rights(q, t)
    return q, reset, own_promo, pending


def finish(p, q, reset):
    q.half = 0 if reset else p.half + 1
    if p.side == "b":
        q.full += 1
    q.side = "b" if p.side == "w" else "w"
    return q


# --- legal moves ----------------------------------------------------------------------

def castling_moves(p):
    us = p.side
    out = []
    if p.full == 1 or in_check(p, us):
        return out
    home = 0 if us == "w" else 9
    king = (4, home, "KL1" if us == "w" else "KL6")
    short_rook = (5, home, king[2])
    long_rook = (0, home, "QL1" if us == "w" else "QL6")
    target = (1, home, long_rook[2])
    if (("K" if us == "w" else "k") in p.castling and p.board.get(king) == (us, "K")
            and p.board.get(short_rook) == (us, "R")):
        if not column_attacked(p, 5, home, other(us)):
            out.append({"kind": "castle", "side": "short", "from": king, "to": short_rook, "rook": short_rook})
    if (("Q" if us == "w" else "q") in p.castling and p.board.get(king) == (us, "K")
            and p.board.get(long_rook) == (us, "R") and square_exists(target, p.pins)
            and not any(col_has_piece(p, x, home) for x in (1, 2, 3))):
        if not column_attacked(p, 1, home, other(us)):
            out.append({"kind": "castle", "side": "long", "from": king, "to": target, "rook": long_rook})
    return out


def other(c):
    return "b" if c == "w" else "w"


def text_of(m, prefix=None):
    head = f"{name(prefix[0])}={prefix[1]};" if prefix else ""
    if m["kind"] == "board":
        body = f"{m['from']}-{m['to']}"
    else:
        body = f"{name(m['from'])}-{name(m['to'])}"
    if m.get("promo"):
        body += "=" + m["promo"]
    return head + body


def legal_body(p):
    """Legal moves without a pending prefix: (text, next position) pairs."""
    us = p.side
    out = []
    for m in expand_promotions(p, pseudo_piece_moves(p)) + castling_moves(p):
        q, reset, _, _ = apply_body(p, m)
        if not in_check(q, us):
            out.append((text_of(m), finish(p, q, reset)))
    for m in board_moves(p):
        q, reset, own, pending = apply_body(p, m)
        if in_check(q, us):
            continue
        if pending is not None:
            bad = False
            for piece in PROMOS:
                r = q.copy()
                r.board[pending] = (other(us), piece)
                if in_check(r, us):
                    bad = True
            if bad:
                continue
            q.pending = pending
            reset = True
        if own is not None:
            for piece in PROMOS:
                r = q.copy()
                r.board[own] = (us, piece)
                r.moved.discard(own)
                out.append((text_of(dict(m, promo=piece)), finish(p, r, True)))
        else:
            out.append((text_of(m), finish(p, q, reset)))
    return out


def legal(p):
    if p.pending is None:
        return legal_body(p)
    out = []
    for piece in PROMOS:
        q = p.copy()
        q.board[p.pending] = (p.side, piece)
        q.pending = None
        for text, nxt in legal_body(q):
            nxt.half = 0
            out.append((f"{name(p.pending)}={piece};{text}", nxt))
    return out


# --- section 9: outcome (without history) ---------------------------------------------

def outcome(p):
    if not legal(p):
        if in_check(p, p.side):
            return "0-1" if p.side == "w" else "1-0"
        return "1/2-1/2"
    rest = [k for (c, k) in p.board.values() if k != "K"]
    if not rest or (len(rest) == 1 and rest[0] in "BN"):
        return "1/2-1/2"
    if p.half >= 100:
        return "1/2-1/2"
    return None


def perft(p, depth):
    if depth == 0:
        return 1
    moves = legal(p)
    if depth == 1:
        return len(moves)
    return sum(perft(q, depth - 1) for _, q in moves)


def random_position(rng):
    """A random sparse position that play could reach in every way the rules
    judge: kings apart, no pawn on its back rank or promotion rank, the side
    not to move not in check."""
    while True:
        p = Pos()
        corner = None
        if rng.random() < 0.5:
            # A pawn on a corner that its opponent's board covers: when that
            # board leaves, the promotion is pending (section 5).
            corner = rng.choice([("w", (1, 8, "B"), "QL6"), ("w", (4, 8, "B"), "KL6"),
                                 ("b", (1, 1, "W"), "QL1"), ("b", (4, 1, "W"), "KL1")])
        while True:
            pins = rng.sample(PIN_NAMES, 4)
            if corner is None or corner[2] not in pins:
                break
        if corner is not None:
            pins[rng.choice((0, 1)) if corner[0] == "b" else rng.choice((2, 3))] = corner[2]
        for i, pin in enumerate(pins):
            p.pins[pin] = "w" if i < 2 else "b"
        squares = [(x, y, lvl) for x in range(6) for y in range(10) for lvl in list(MAIN) + pins
                   if square_exists((x, y, lvl), p.pins)]
        rng.shuffle(squares)
        if corner is not None:
            squares.remove(corner[1])
            p.board[corner[1]] = (corner[0], "P")
        p.board[squares.pop()] = ("w", "K")
        p.board[squares.pop()] = ("b", "K")
        for _ in range(rng.randint(1, 7)):
            colour = rng.choice("wb")
            kind = rng.choice("QRBNPPP")
            sq = squares.pop()
            if kind == "P" and (sq[1] == (0 if colour == "w" else 9)
                                or sq[1] == promotion_rank(p, colour, sq[0])):
                continue
            p.board[sq] = (colour, kind)
        p.side = other(corner[0]) if corner and rng.random() < 0.7 else rng.choice("wb")
        p.full = rng.randint(2, 40)
        if any(k == "P" and c == col and sq[1] == promotion_rank(p, c, sq[0])
               for sq, (c, k) in p.board.items() for col in "wb"):
            continue
        if not in_check(p, other(p.side)) and outcome(p) is None:
            return p


def games(seed, count, plies):
    import random
    rng = random.Random(seed)
    for g in range(count):
        p = parse_state(START) if g == 0 else random_position(rng)
        for _ in range(plies):
            moves = sorted(legal(p), key=lambda m: m[0])
            if not moves:
                break
            text, nxt = rng.choice(moves)
            print(json.dumps({"state": write_state(p), "legal": [t for t, _ in moves], "move": text,
                              "next": write_state(nxt), "outcome": outcome(nxt)}))
            p = nxt
            if outcome(p) is not None:
                break


def arg(args, key, default=None):
    if key in args:
        return args[args.index(key) + 1]
    return default


def main(argv):
    cmd, args = argv[0], argv[1:]
    state = arg(args, "--state", START)
    if cmd == "start":
        print(json.dumps(START))
    elif cmd == "legal":
        print(json.dumps(sorted(t for t, _ in legal(parse_state(state)))))
    elif cmd == "play":
        p = parse_state(state)
        for text in arg(args, "--moves", "").split():
            found = dict(legal(p))
            if text not in found:
                raise OracleError(f"illegal {text}")
            p = found[text]
        print(json.dumps({"state": write_state(p), "outcome": outcome(p)}))
    elif cmd == "games":
        games(int(arg(args, "--seed", "1")), int(arg(args, "--games", "1")), int(arg(args, "--plies", "100")))
    elif cmd == "perft":
        print(perft(parse_state(state), int(arg(args, "--depth"))))
    else:
        raise OracleError(f"unknown command {cmd}")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except (OracleError, IndexError, ValueError, KeyError) as e:
        print(f"oracle: {e}", file=sys.stderr)
        sys.exit(2)
