#!/usr/bin/env python3
"""Independent Python oracle for the Fairschach rules (shared/rules/fairschach.md).

Written from the rules text only (not from the Rust source).  Own board code,
no chess library needed (python-chess is used, if installed, only to cross-check
the insufficient-material rule, which the rules text defines "as lichess and
python-chess define it").

Squares are 0..63, a1=0, b1=1, ..., h8=63.  Pieces are FEN letters, uppercase
White, lowercase Black, None for an empty square.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

FILES = "abcdefgh"
WHITE, BLACK = "white", "black"


class FenError(ValueError):
    pass


class MoveError(ValueError):
    pass


def sq_name(s: int) -> str:
    return FILES[s % 8] + str(s // 8 + 1)


def parse_sq(t: str) -> int:
    if len(t) != 2 or t[0] not in FILES or t[1] not in "12345678":
        raise FenError(f"bad square {t!r}")
    return FILES.index(t[0]) + 8 * (int(t[1]) - 1)


def color_of(p):
    if p is None:
        return None
    return WHITE if p.isupper() else BLACK


def other(c):
    return BLACK if c == WHITE else WHITE


def rank(s):
    return s // 8


def file(s):
    return s % 8


@dataclass
class State:
    board: list
    mode: str = "s"  # 's', 'w', 'b'
    castling: set = field(default_factory=set)  # subset of 'KQkq'
    ep: set = field(default_factory=set)  # squares
    paused: set = field(default_factory=set)  # squares
    halfmove: int = 0
    pair: int = 1

    def copy(self):
        return State(list(self.board), self.mode, set(self.castling), set(self.ep),
                     set(self.paused), self.halfmove, self.pair)


START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1"


# ---------------------------------------------------------------- FEN (§1)

def parse_fen(text: str) -> State:
    parts = text.split(" ")
    if len(parts) != 7:
        raise FenError("a Fairschach FEN has seven fields")
    place, mode, cas, ep, paused, hm, pr = parts
    rows = place.split("/")
    if len(rows) != 8:
        raise FenError("placement needs 8 ranks")
    board = [None] * 64
    for i, row in enumerate(rows):
        r = 7 - i
        f = 0
        for ch in row:
            if ch.isdigit():
                if ch == "0":
                    raise FenError("bad digit")
                f += int(ch)
            elif ch in "PNBRQKpnbrqk":
                if f > 7:
                    raise FenError("rank too long")
                board[r * 8 + f] = ch
                f += 1
            else:
                raise FenError(f"bad piece {ch!r}")
            if f > 8:
                raise FenError("rank too long")
        if f != 8:
            raise FenError("rank of wrong length")
    if mode not in ("s", "w", "b"):
        raise FenError("bad mode")
    if cas == "-":
        castling = set()
    else:
        if not cas or any(c not in "KQkq" for c in cas) or len(set(cas)) != len(cas):
            raise FenError("bad castling")
        castling = set(cas)

    def parse_list(t):
        if t == "-":
            return []
        items = t.split(",")
        return [parse_sq(x) for x in items]

    eps = parse_list(ep)
    ps = parse_list(paused)
    if len(set(eps)) != len(eps) or len(set(ps)) != len(ps):
        raise FenError("duplicate square in list")
    if not hm.isdigit() or not pr.isdigit():
        raise FenError("bad counters")
    halfmove, pair = int(hm), int(pr)
    if pair < 1:
        raise FenError("pair must be >= 1")
    # consistency
    wk = sum(1 for p in board if p == "K")
    bk = sum(1 for p in board if p == "k")
    if wk != 1 or bk != 1:
        raise FenError("need exactly one king per side")
    # not in the rules' list, but plainly inconsistent (the Rust reader refuses them too)
    if any(board[s] in ("P", "p") for s in list(range(8)) + list(range(56, 64))):
        raise FenError("pawns on the first or eighth rank")
    for right, ksq, rsq, k, r in (("K", 4, 7, "K", "R"), ("Q", 4, 0, "K", "R"),
                                  ("k", 60, 63, "k", "r"), ("q", 60, 56, "k", "r")):
        if right in castling and (board[ksq] != k or board[rsq] != r):
            raise FenError(f"castling right {right} without king and rook at home")
    seen_for = set()
    for s in eps:
        if rank(s) == 2:  # rank 3: White pawn double-stepped, on rank 4
            if board[s + 8] != "P":
                raise FenError("ep square without the pawn")
            side = BLACK  # usable by Black
        elif rank(s) == 5:
            if board[s - 8] != "p":
                raise FenError("ep square without the pawn")
            side = WHITE
        else:
            raise FenError("ep square on a wrong rank")
        if side in seen_for:
            raise FenError("more than one ep square per side")
        seen_for.add(side)
    if mode != "s" and any(rank(s) != (5 if mode == "w" else 2) for s in eps):
        raise FenError("normal mode keeps only the ep square of the side to move")
    for s in ps:
        if board[s] is None or board[s] in "Kk":
            raise FenError("paused square empty or king")
    if mode != "s" and ps:
        raise FenError("pauses in normal mode")
    return State(board, mode, castling, set(eps), set(ps), halfmove, pair)


def sort_squares(sqs):
    return sorted(sqs)  # index order is rank then file


def fen_of(st: State) -> str:
    rows = []
    for r in range(7, -1, -1):
        row = ""
        e = 0
        for f in range(8):
            p = st.board[r * 8 + f]
            if p is None:
                e += 1
            else:
                if e:
                    row += str(e)
                    e = 0
                row += p
        if e:
            row += str(e)
        rows.append(row)
    cas = "".join(c for c in "KQkq" if c in st.castling) or "-"
    ep = ",".join(sq_name(s) for s in sort_squares(st.ep)) or "-"
    pa = ",".join(sq_name(s) for s in sort_squares(st.paused)) or "-"
    return f"{'/'.join(rows)} {st.mode} {cas} {ep} {pa} {st.halfmove} {st.pair}"


def key_of_fen(fen: str) -> str:
    """Fields 1-5 of the canonical form (history lines may list squares or
    castling letters in any order)."""
    try:
        fen = fen_of(parse_fen(fen))
    except FenError:
        pass
    return " ".join(fen.split(" ")[:5])


# ---------------------------------------------------------------- attacks

KN = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
KG = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
ROOK_D = [(1, 0), (-1, 0), (0, 1), (0, -1)]
BISHOP_D = [(1, 1), (1, -1), (-1, 1), (-1, -1)]


def on(f, r):
    return 0 <= f < 8 and 0 <= r < 8


def attacked(board, s, by):
    """Is square s attacked by a piece of colour `by` (attack map as for check)."""
    f, r = file(s), rank(s)
    up = by == WHITE
    pawn = "P" if up else "p"
    knight, bishop, rook, queen, king = ("NBRQK" if up else "nbrqk")
    # pawns attack diagonally forward: a White pawn on (f±1, r-1) attacks s
    pr = r - 1 if up else r + 1
    for df in (-1, 1):
        if on(f + df, pr) and board[pr * 8 + f + df] == pawn:
            return True
    for df, dr in KN:
        if on(f + df, r + dr) and board[(r + dr) * 8 + f + df] == knight:
            return True
    for df, dr in KG:
        if on(f + df, r + dr) and board[(r + dr) * 8 + f + df] == king:
            return True
    for dirs, pcs in ((ROOK_D, (rook, queen)), (BISHOP_D, (bishop, queen))):
        for df, dr in dirs:
            ff, rr = f + df, r + dr
            while on(ff, rr):
                p = board[rr * 8 + ff]
                if p is not None:
                    if p in pcs:
                        return True
                    break
                ff += df
                rr += dr
    return False


def king_sq(board, c):
    k = "K" if c == WHITE else "k"
    for i, p in enumerate(board):
        if p == k:
            return i
    return None


def in_check(board, c):
    k = king_sq(board, c)
    return k is not None and attacked(board, k, other(c))


# ---------------------------------------------------------------- moves
# a move is (from, to, promo) with promo None or one of 'qrbn'


def uci(m):
    return sq_name(m[0]) + sq_name(m[1]) + (m[2] or "")


def parse_uci(t):
    if len(t) not in (4, 5):
        raise MoveError("bad uci")
    promo = t[4] if len(t) == 5 else None
    if promo is not None and promo not in "qrbn":
        raise MoveError("bad promo")
    try:
        return (parse_sq(t[:2]), parse_sq(t[2:4]), promo)
    except FenError as e:
        raise MoveError(str(e))


def ep_square_for(st: State, c):
    """X's ep square: for White a square on rank 6, for Black on rank 3."""
    want = 5 if c == WHITE else 2
    for s in st.ep:
        if rank(s) == want:
            return s
    return None


def pseudo_moves(board, castling, c, ep_sq):
    """Standard chess pseudo-legal moves of colour c (castling fully checked
    except rule 2, which the caller checks)."""
    out = []
    mine = (lambda p: p is not None and p.isupper()) if c == WHITE else (
        lambda p: p is not None and p.islower())
    theirs = (lambda p: p is not None and p.islower()) if c == WHITE else (
        lambda p: p is not None and p.isupper())
    for s in range(64):
        p = board[s]
        if not mine(p):
            continue
        t = p.upper()
        f, r = file(s), rank(s)
        if t == "P":
            d = 1 if c == WHITE else -1
            last = 7 if c == WHITE else 0
            start = 1 if c == WHITE else 6
            r1 = r + d
            if not on(f, r1):
                continue

            def add(to):
                if rank(to) == last:
                    for pr in "qrbn":
                        out.append((s, to, pr))
                else:
                    out.append((s, to, None))

            one = r1 * 8 + f
            if board[one] is None:
                add(one)
                if r == start and board[(r + 2 * d) * 8 + f] is None:
                    out.append((s, (r + 2 * d) * 8 + f, None))
            for df in (-1, 1):
                if on(f + df, r1):
                    to = r1 * 8 + f + df
                    if theirs(board[to]) or (to == ep_sq and board[to] is None):
                        add(to)
        elif t in "NK":
            for df, dr in (KN if t == "N" else KG):
                if on(f + df, r + dr):
                    to = (r + dr) * 8 + f + df
                    if not mine(board[to]):
                        out.append((s, to, None))
        else:
            dirs = ROOK_D if t == "R" else BISHOP_D if t == "B" else ROOK_D + BISHOP_D
            for df, dr in dirs:
                ff, rr = f + df, r + dr
                while on(ff, rr):
                    to = rr * 8 + ff
                    if mine(board[to]):
                        break
                    out.append((s, to, None))
                    if board[to] is not None:
                        break
                    ff += df
                    rr += dr
    # castling (FIDE)
    home = 0 if c == WHITE else 56
    kchar, rchar = ("K", "R") if c == WHITE else ("k", "r")
    opp = other(c)
    if board[home + 4] == kchar:
        for right, rook_sq, between, kpath, kto in (
            ("K" if c == WHITE else "k", home + 7, (home + 5, home + 6), (home + 4, home + 5, home + 6), home + 6),
            ("Q" if c == WHITE else "q", home + 0, (home + 1, home + 2, home + 3), (home + 4, home + 3, home + 2), home + 2),
        ):
            if right not in castling or board[rook_sq] != rchar:
                continue
            if any(board[x] is not None for x in between):
                continue
            if any(attacked(board, x, opp) for x in kpath):
                continue
            out.append((home + 4, kto, None))
    return out


def is_castling(board, m):
    p = board[m[0]]
    return p is not None and p in "Kk" and abs(m[1] - m[0]) == 2


def castle_rook(m):
    """(rook_from, rook_to) of a castling king move."""
    home = m[0] - 4
    if m[1] == home + 6:
        return home + 7, home + 5
    return home + 0, home + 3


def is_ep_capture(board, m, ep_sq):
    p = board[m[0]]
    return (p is not None and p in "Pp" and file(m[0]) != file(m[1])
            and board[m[1]] is None and m[1] == ep_sq)


def apply_single(board, castling, m, ep_sq):
    """Play one move alone by standard chess.  Returns (board, castling, removed)
    where removed is the number of pieces that left the board."""
    b = list(board)
    cas = set(castling)
    fr, to, pr = m
    p = b[fr]
    removed = 0
    if is_castling(b, m):
        rf, rt = castle_rook(m)
        b[rt] = b[rf]
        b[rf] = None
    elif is_ep_capture(b, m, ep_sq):
        cap = to - 8 if p == "P" else to + 8
        b[cap] = None
        removed += 1
    if b[to] is not None:
        removed += 1
    b[to] = (pr.upper() if p.isupper() else pr) if pr else p
    b[fr] = None
    update_castling(cas, [fr, to] + (list(castle_rook(m)) if is_castling(board, m) else []))
    return b, cas, removed


CORNER_RIGHT = {0: "Q", 7: "K", 56: "q", 63: "k"}


def update_castling(cas, squares):
    for s in squares:
        if s == 4:
            cas.discard("K"); cas.discard("Q")
        elif s == 60:
            cas.discard("k"); cas.discard("q")
        elif s in CORNER_RIGHT:
            cas.discard(CORNER_RIGHT[s])


def legal_std(board, castling, c, ep_sq):
    """Section 2 rules 1 and 2, standard chess, no pause."""
    out = []
    for m in pseudo_moves(board, castling, c, ep_sq):
        tgt = board[m[1]]
        if tgt is not None and tgt in "Kk":
            continue  # rule 1
        b, _, _ = apply_single(board, castling, m, ep_sq)
        if in_check(b, c):
            continue  # rule 2
        out.append(m)
    return out


def legal_moves(st: State, c, pause="moved"):
    """Moves side c may enter in st (section 2 incl. pauses and lifting).
    Choice: with the option pause=off the paused list (which a game under
    that option never has) is ignored, as the Rust program does."""
    if st.mode != "s":
        if (st.mode == "w") != (c == WHITE):
            return []
        return legal_std(st.board, st.castling, c, ep_square_for(st, c))
    std = legal_std(st.board, st.castling, c, ep_square_for(st, c))
    if in_check(st.board, c) or not st.paused or pause == "off":
        return std
    paused = [m for m in std if m[0] not in st.paused]
    if not paused and std:
        return std  # Decision: pause lifted
    return paused


# ---------------------------------------------------------------- resolution

STRENGTH = {"K": 5, "Q": 4, "R": 3, "B": 2, "N": 2, "P": 1}


def is_pawn_move(board, m):
    p = board[m[0]]
    return p is not None and p in "Pp"


def double_step_ep(board_before, m, c):
    """Square passed over if m is a pawn double step of colour c, else None."""
    p = board_before[m[0]]
    if p is None or p not in "Pp":
        return None
    if abs(rank(m[1]) - rank(m[0])) == 2:
        return (m[0] + m[1]) // 2
    return None


class Result:
    def __init__(self, state, white, black, outcome):
        self.state, self.white, self.black, self.outcome = state, white, black, outcome

    def as_dict(self):
        return {"fen": fen_of(self.state), "white": self.white, "black": self.black,
                "outcome": self.outcome}


def resolve(st: State, wm, bm, pause="moved", normal_below=None, history=()):
    """Work one pair (or, in normal mode, one move) into st.
    wm / bm are (from, to, promo) tuples or None.  history: the game's FENs
    before the resulting one, start first, the current one last."""
    prev = history[:-1] if history and key_of_fen(history[-1]) == key_of_fen(fen_of(st)) else history
    if end_of_game(st, prev, pause) is not None:
        raise MoveError("the game is already over")
    if st.mode != "s":
        mover = WHITE if st.mode == "w" else BLACK
        m = wm if mover == WHITE else bm
        o = bm if mover == WHITE else wm
        if m is None:
            raise MoveError("the side to move must give a move")
        if o is not None:
            raise MoveError("the side not to move has no move")
        if m not in legal_moves(st, mover, pause):
            raise MoveError("illegal move")
        ns = play_normal(st, m, mover)
        res = Result(ns, "played" if mover == WHITE else None,
                     "played" if mover == BLACK else None, None)
    else:
        if wm is None or bm is None:
            raise MoveError("both sides must move")
        if wm not in legal_moves(st, WHITE, pause):
            raise MoveError("illegal white move")
        if bm not in legal_moves(st, BLACK, pause):
            raise MoveError("illegal black move")
        cw, cb = in_check(st.board, WHITE), in_check(st.board, BLACK)
        if cw != cb:
            ns, ws, bs = first_move_right(st, wm, bm, WHITE if cw else BLACK, pause)
        else:
            ns, ws, bs = simultaneous(st, wm, bm, pause)
        ns.pair = st.pair + 1
        if normal_below is not None:
            maybe_switch(ns, normal_below)
        res = Result(ns, ws, bs, None)
    res.outcome = end_of_game(res.state, history, pause)
    return res


def play_normal(st, m, mover):
    ep_sq = ep_square_for(st, mover)
    b, cas, removed = apply_single(st.board, st.castling, m, ep_sq)
    ns = State(b, "b" if mover == WHITE else "w", cas, set(), set(), st.halfmove + 1,
               st.pair + (1 if mover == BLACK else 0))
    if removed or is_pawn_move(st.board, m):
        ns.halfmove = 0
    d = double_step_ep(st.board, m, mover)
    if d is not None:
        ns.ep.add(d)  # recorded whether or not it can be used (section 1)
    return ns


def first_move_right(st, wm, bm, A, pause):
    B = other(A)
    am, bmv = (wm, bm) if A == WHITE else (bm, wm)
    b1, cas1, rem_a = apply_single(st.board, st.castling, am, ep_square_for(st, A))
    # B's ep square from P, if the pawn that made it still stands
    bep = ep_square_for(st, B)
    if bep is not None:
        pawn_sq = bep + 8 if B == BLACK else bep - 8  # A's pawn stands in front
        apawn = "P" if A == WHITE else "p"
        if b1[pawn_sq] != apawn:
            bep = None
    played_b = bmv in legal_std(b1, cas1, B, bep)
    removed = rem_a
    pawn = is_pawn_move(st.board, am)
    movers = [(A, am, st.board)]
    if played_b:
        b2, cas2, rem_b = apply_single(b1, cas1, bmv, bep)
        removed += rem_b
        pawn = pawn or is_pawn_move(b1, bmv)
        movers.append((B, bmv, b1))
    else:
        b2, cas2 = b1, cas1
    ns = State(b2, "s", cas2, set(), set(), 0 if (removed or pawn) else st.halfmove + 1, st.pair)
    for c, m, before in movers:
        d = double_step_ep(before, m, c)
        if d is not None and color_of(b2[m[1]]) == c and b2[m[1]] in "Pp":
            ns.ep.add(d)
    ns.paused = compute_pauses(b2, [(c, m, before[m[0]]) for c, m, before in movers], pause)
    sa = "first"
    sb = "played" if played_b else "struck"
    return ns, (sa if A == WHITE else sb), (sb if A == WHITE else sa)


def compute_pauses(board, movers, pause):
    """movers: (colour, move, piece_before).  Kings (and castling rooks,
    which are not listed as movers) are not paused."""
    out = set()
    if pause == "off":
        return out
    for c, m, p in movers:
        if p in "Kk":
            continue
        to = m[1]
        if color_of(board[to]) != c:
            continue  # does not still stand on its target
        if pause == "capturable" and not attacked(board, to, other(c)):
            continue
        out.add(to)
    return out


def simultaneous(st, wm, bm, pause):
    P = st.board
    # movers: (colour, from, to, arriving piece, is_main)
    movers = []
    for c, m in ((WHITE, wm), (BLACK, bm)):
        p = P[m[0]]
        arr = (m[2].upper() if c == WHITE else m[2]) if m[2] else p
        movers.append((c, m[0], m[1], arr, True))
        if is_castling(P, m):
            rf, rt = castle_rook(m)
            movers.append((c, rf, rt, P[rf], False))
    b = list(P)
    froms = {mv[1] for mv in movers}
    for mv in movers:
        b[mv[1]] = None  # 1. lift
    removed = 0
    # 6. en passant (decided on P: the passed pawn is removed only if it did not move)
    for c, m in ((WHITE, wm), (BLACK, bm)):
        if is_ep_capture(P, m, ep_square_for(st, c)):
            cap = m[1] - 8 if c == WHITE else m[1] + 8
            if cap not in froms and b[cap] is not None and b[cap] in "Pp" and color_of(b[cap]) != c:
                b[cap] = None
                removed += 1
    targets = {}
    for mv in movers:
        targets.setdefault(mv[2], []).append(mv)
    for t, arr in targets.items():
        if len(arr) == 2:
            assert arr[0][0] != arr[1][0], "same-colour arrivals"
            assert b[t] is None, "standing piece on a double-arrival square"
            s0, s1 = STRENGTH[arr[0][3].upper()], STRENGTH[arr[1][3].upper()]
            if s0 > s1:
                b[t] = arr[0][3]; removed += 1
            elif s1 > s0:
                b[t] = arr[1][3]; removed += 1
            else:
                b[t] = None; removed += 2
            for a in arr:
                if a[3] in "Kk" and b[t] != a[3]:
                    raise AssertionError("king captured")
        else:
            (c, fr, to, piece, _main), = arr
            if b[t] is not None:
                if color_of(b[t]) == c:
                    raise AssertionError("own standing piece on target")
                if b[t] in "Kk":
                    raise AssertionError("king captured")
                removed += 1
            b[t] = piece
    cas = set(st.castling)
    update_castling(cas, [x for mv in movers for x in (mv[1], mv[2])])
    pawn = is_pawn_move(P, wm) or is_pawn_move(P, bm)
    ns = State(b, "s", cas, set(), set(), 0 if (removed or pawn) else st.halfmove + 1, st.pair)
    for c, m in ((WHITE, wm), (BLACK, bm)):
        d = double_step_ep(P, m, c)
        if d is not None and b[m[1]] == ("P" if c == WHITE else "p"):
            ns.ep.add(d)
    ns.paused = compute_pauses(b, [(WHITE, wm, P[wm[0]]), (BLACK, bm, P[bm[0]])], pause)
    return ns, "played", "played"


def maybe_switch(ns, n):
    count = sum(1 for p in ns.board if p is not None)
    cw, cb = in_check(ns.board, WHITE), in_check(ns.board, BLACK)
    if count <= n and cw != cb:
        side = WHITE if cw else BLACK
        ns.mode = "w" if side == WHITE else "b"
        ns.paused = set()
        keep = ep_square_for(ns, side)
        ns.ep = {keep} if keep is not None else set()
        ns.halfmove *= 2


# ---------------------------------------------------------------- end of game (§6)

LIGHT = lambda s: (file(s) + rank(s)) % 2 == 1  # noqa: E731  a1 is dark


def side_insufficient(board, c):
    mine = [(s, p) for s, p in enumerate(board) if p and color_of(p) == c]
    theirs = [(s, p) for s, p in enumerate(board) if p and color_of(p) != c]
    if any(p.upper() in "PRQ" for _, p in mine):
        return False
    if any(p.upper() == "N" for _, p in mine):
        return len(mine) <= 2 and not any(p.upper() not in "KQ" for _, p in theirs)
    if any(p.upper() == "B" for _, p in mine):
        bs = [s for s, p in enumerate(board) if p and p.upper() == "B"]
        same = all(LIGHT(s) for s in bs) or not any(LIGHT(s) for s in bs)
        return same and not any(p and p.upper() in "PN" for p in board)
    return True


def insufficient(board):
    return side_insufficient(board, WHITE) and side_insufficient(board, BLACK)


def end_of_game(st: State, history=(), pause="moved"):
    sides = [WHITE, BLACK] if st.mode == "s" else [WHITE if st.mode == "w" else BLACK]
    mated = []
    stale = []
    for c in sides:
        if not legal_moves(st, c, pause):
            (mated if in_check(st.board, c) else stale).append(c)
    if len(mated) == 2:
        return {"result": "1/2-1/2", "reason": "both checkmated"}
    if mated:
        return {"result": "0-1" if mated[0] == WHITE else "1-0", "reason": "checkmate"}
    if stale:
        return {"result": "1/2-1/2", "reason": "stalemate"}
    if insufficient(st.board):
        return {"result": "1/2-1/2", "reason": "insufficient material"}
    k = key_of_fen(fen_of(st))
    if sum(1 for h in history if key_of_fen(h) == k) + 1 >= 3:
        return {"result": "1/2-1/2", "reason": "threefold repetition"}
    if st.halfmove >= (50 if st.mode == "s" else 100):
        return {"result": "1/2-1/2", "reason": "fifty-move rule"}
    return None


# ---------------------------------------------------------------- tiny CLI

def main(argv):
    import argparse
    import json
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("legal")
    a.add_argument("--fen", required=True)
    a.add_argument("--side", required=True, choices=[WHITE, BLACK])
    a.add_argument("--pause", default="moved")
    r = sub.add_parser("resolve")
    r.add_argument("--fen", required=True)
    r.add_argument("--white")
    r.add_argument("--black")
    r.add_argument("--pause", default="moved")
    r.add_argument("--normal-below", type=int)
    r.add_argument("--history")
    ns = ap.parse_args(argv)
    try:
        st = parse_fen(ns.fen)
        if ns.cmd == "legal":
            print(json.dumps(sorted(uci(m) for m in legal_moves(st, ns.side, ns.pause))))
        else:
            hist = []
            if ns.history:
                with open(ns.history) as fh:
                    hist = [line.strip() for line in fh if line.strip()]
            res = resolve(st, parse_uci(ns.white) if ns.white else None,
                          parse_uci(ns.black) if ns.black else None,
                          ns.pause, ns.normal_below, hist)
            print(json.dumps(res.as_dict()))
    except (FenError, MoveError) as e:
        print(e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
