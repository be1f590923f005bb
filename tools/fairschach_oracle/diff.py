#!/usr/bin/env python3
"""Differential driver: random Fairschach games, oracle.py vs the Rust CLI.

usage: python3 tools/fairschach_oracle/diff.py [--bin target/debug/fairsteward]
           [--games N] [--pairs N] [--seed S] [--jobs 2] [--out FILE]

For every pair it asks the Rust CLI for both legal lists and for the
resolution (with --history), compares with the oracle, and logs every
disagreement as one JSON line in --out (default /tmp/fairschach_diff.jsonl).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from multiprocessing import Pool

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle as O  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BIN = os.path.join(HERE, "..", "..", "target", "debug", "fairsteward")

VARIED = [
    O.START_FEN,
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R s KQkq - - 0 1",
    "r3k2r/p1pp1ppp/1n3n2/4p3/1b2P3/1N3N2/P1PP1PPP/R3K2R s KQkq - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R s KQkq - - 0 1",
    "4k3/1P4P1/8/8/8/8/1p4p1/4K3 s - - - 0 1",
    "4k3/3p4/8/4P3/2p5/8/3P4/4K3 s - - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR s KQkq f6 - 0 3",
    "4k3/8/8/3pP3/2Pp4/8/8/4K3 s - c3,d6 - 0 5",
    "4k3/8/8/1B6/8/8/8/r3K3 s - - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 s - - - 0 1",
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR s KQkq - e4,e5 0 2",
    "7k/8/8/8/8/6p1/6P1/6BK s - - g1 0 9",
    "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR s KQkq - - 2 3",
    "4k3/8/8/8/8/8/4q3/4K3 s - - - 0 1",
    "2k5/8/8/8/8/8/1Q6/K7 s - - - 0 7",
    "8/8/4k3/8/3PpP2/8/8/4K3 s - d3 - 0 20",
    "r3k3/1P6/8/8/8/8/8/4K2R s Kq - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 s - - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 s kq - - 0 1",
    "4k3/4r3/8/8/8/8/4R3/4K3 s - - - 0 1",
    "3k4/8/8/8/8/8/3QK3/8 s - - - 0 1",
    "k7/p7/P7/8/1N6/6pp/7P/6BK s - - - 0 30",
    "6rk/6pp/8/4N3/8/6pp/7P/6BK s - - - 0 30",
    "8/5p2/8/4k3/8/8/3P4/4K3 s - - - 3 20",
    "3rk3/8/3P4/5q2/8/8/8/7K s - - - 0 30",
    "4k3/8/8/8/8/8/8/R3K3 s - - - 45 20",
    "4k3/8/8/6K1/3pP3/8/5B2/2q5 s - e3 - 0 5",
    "4k3/8/8/5n2/3pP3/6K1/8/8 s - e3 - 0 5",
    "rnbqkbnr/pp1p1ppp/8/2pPp3/8/8/PPP1PPPP/RNBQKBNR s KQkq e6 - 0 3",
    "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR s KQkq e3 - 0 3",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - - 10 30",
    "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 s - - - 0 1",
    "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 b - - - 0 1",
]

# Hand-built pairs (label, fen, white, black, pause, normal_below, history): the
# rules' corner cases (run with --cases).  Each is compared like a random pair.
CASES = [
    ["A1 ep, passed pawn moved away", "4k3/8/8/3pP3/8/8/8/4K3 s - d6 - 0 5", "e5d6", "d5d4", "moved", None, []],
    ["A2 ep normal", "4k3/8/8/3pP3/8/8/8/4K3 s - d6 - 0 5", "e5d6", "e8d7", "moved", None, []],
    ["A3 ep capturer beaten by Q at target", "3qk3/8/8/3pP3/8/8/8/4K3 s - d6 - 0 5", "e5d6", "d8d6", "moved", None, []],
    ["A5 ep pawn vs pawn on target", "4k3/3p4/8/3pP3/8/8/8/4K3 s - d6 - 0 5", "e5d6", "d7d6", "moved", None, []],
    ["A6 no ep", "4k3/8/8/3pP3/8/8/8/4K3 s - d6 - 0 5", "e5e6", "d5d4", "moved", None, []],
    ["A7 black ep, pawn moved", "4k3/8/8/8/2pP4/8/8/4K3 s - d3 - 0 5", "d4d5", "c4d3", "moved", None, []],
    ["B1 ep becomes ordinary capture", "4k3/8/8/6K1/3pP3/8/5B2/2q5 s - e3 - 0 5", "f2e3", "d4e3", "moved", None, []],
    ["B2 ep pawn moved by A -> struck", "4k3/8/8/5n2/3pP3/6K1/8/8 s - e3 - 0 5", "e4f5", "d4e3", "moved", None, []],
    ["B4 ep from P used by B", "4k3/8/8/5n2/3pP3/6K1/8/8 s - e3 - 0 5", "g3h3", "d4e3", "moved", None, []],
    ["B5 B knight moves", "4k3/8/8/5n2/3pP3/6K1/8/8 s - e3 - 0 5", "g3h3", "f5e3", "moved", None, []],
    ["B7 A first, B double step -> ep d6", "4k3/3p4/8/4P3/8/8/8/4K2r s - - - 0 5", "e1e2", "d7d5", "moved", None, []],
    ["B8 black in check? no", "4k3/3p4/8/4P3/8/8/8/R3K3 s - - - 0 5", "e5e6", "e8f8", "moved", None, []],
    ["B9 simultaneous castling vs rook capture", "r3k3/3p4/8/4P3/8/8/8/R3K3 s Qq - - 0 5", "a1a8", "e8c8", "moved", None, []],
    ["B10 castle illegal in check", "4k3/3p4/8/4P3/8/8/8/R3K2b s Q - - 0 5", "e1c1", "d7d5", "moved", None, []],
    ["D0 A captures", "4k3/8/8/8/8/8/4r3/R3K3 s - - - 0 5", "e1e2", "e8d8", "moved", None, []],
    ["D1 A=white king steps; black plays", "4k3/8/8/8/8/8/8/R3K2r s - - - 0 5", "e1e2", "e8d7", "moved", None, []],
    ["D2 B's rook checks -> played", "4k3/8/8/8/8/8/8/R3K2r s - - - 0 5", "e1d2", "h1h2", "moved", None, []],
    ["D3 A=? both?", "4k3/8/8/8/8/8/3r4/R3K3 s - - - 0 5", "a1a8", "e8e7", "moved", None, []],
    ["D6", "4k3/8/8/8/8/8/2n5/R3K3 s - - - 0 5", "e1d1", "e8e7", "moved", None, []],
    ["D7", "3rk3/8/8/8/8/8/8/R2K4 s - - - 0 5", "d1e2", "e8e7", "moved", None, []],
    ["D9", "4k3/8/8/8/1b6/8/8/R3K3 s - - - 0 5", "e1f2", "b4a3", "moved", None, []],
    ["D10", "4k3/8/8/8/1b6/8/8/R3K3 s - - - 0 5", "e1e2", "e8d7", "moved", None, []],
    ["D11", "4k3/8/8/8/1b6/8/8/R3K3 s - - - 0 5", "e1e2", "b4c5", "moved", None, []],
    ["D12 A blocks by interposition", "3k4/8/8/8/1b6/8/8/3RK3 s - - - 0 5", "d1d2", "d8e8", "moved", None, []],
    ["D13 A captures checker, B move", "4k3/8/8/8/1b6/8/8/1R2K3 s - - - 0 5", "b1b4", "e8d7", "moved", None, []],
    ["D14 B's piece captured -> struck", "4k3/8/8/8/1b6/8/8/1R2K3 s - - - 0 5", "b1b4", "b4a5", "moved", None, []],
    ["E1 swap mutual mate", "r5k1/5ppp/8/8/8/8/5PPP/R5K1 s - - - 0 1", "a1a8", "a8a1", "moved", None, []],
    ["E2 mutual mate", "r5k1/5ppp/8/8/8/8/5PPP/1R4K1 s - - - 0 1", "b1b8", "a8a1", "moved", None, []],
    ["E3 white mates", "r5k1/5ppp/8/8/8/8/5PPP/1R4K1 s - - - 0 1", "b1b8", "a8a7", "moved", None, []],
    ["E4 mate", "6k1/5ppp/8/8/8/8/8/1R4K1 s - - - 0 1", "b1b8", "g8h8", "moved", None, []],
    ["J0 promote capture", "1b2k3/P7/8/8/8/8/8/4K3 s - - - 0 5", "a7b8n", "e8d7", "moved", None, []],
    ["J1 promote N vs ... not same", "4k3/P7/8/8/8/8/8/4K1b1 s - - - 0 5", "a7a8n", "g1a7", "moved", None, []],
    ["J2", "4k3/P7/8/8/8/8/8/b3K3 s - - - 0 5", "a7a8n", "a1h8", "moved", None, []],
    ["J3 aim moved away", "4k3/1P6/8/8/8/8/8/4K2b s - - - 0 5", "b7b8n", "h1b7", "moved", None, []],
    ["J4", "4k3/1P6/8/8/8/8/8/3bK3 s - - - 0 5", "b7b8n", "d1h5", "moved", None, []],
    ["J5", "4k3/1P6/8/8/8/b7/8/4K3 s - - - 0 5", "b7b8q", "e8d8", "moved", None, []],
    ["J6 N vs R same target", "r3k3/1P6/8/8/8/8/8/4K3 s q - - 0 5", "b7b8n", "a8b8", "moved", None, []],
    ["J7 Q vs R same target", "r3k3/1P6/8/8/8/8/8/4K3 s q - - 0 5", "b7b8q", "a8b8", "moved", None, []],
    ["J8 R vs R same target", "r3k3/1P6/8/8/8/8/8/4K3 s q - - 0 5", "b7b8r", "a8b8", "moved", None, []],
    ["J9", "4k3/1P6/8/8/8/3b4/8/4K3 s - - - 0 5", "b7b8b", "d3b5", "moved", None, []],
    ["J10", "4k3/1P6/8/8/4b3/8/8/4K3 s - - - 0 5", "b7b8b", "e4b7", "moved", None, []],
    ["J13", "4k3/1P6/8/8/4n3/8/8/4K3 s - - - 0 5", "b7b8q", "e4d6", "moved", None, []],
    ["K1 king vs pawn push same target", "8/8/4k3/8/8/4p3/8/4K3 s - - - 0 5", "e1e2", "e3e2", "moved", None, []],
    ["K3", "8/4p3/8/4k3/8/8/8/4K3 s - - - 0 5", "e1e2", "e5e4", "moved", None, []],
    ["K4 black king vs pawn push", "8/8/8/8/4k3/8/3P4/4K3 s - - - 0 5", "d2d3", "e4d3", "moved", None, []],
    ["K5 double step vs king", "8/8/8/8/2k5/8/3P4/4K3 s - - - 0 5", "d2d4", "c4d4", "moved", None, []],
    ["M3 aimed at moved away", "4k3/8/8/8/8/8/r7/R3K3 s - - - 7 5", "a1a2", "a2b2", "moved", None, []],
    ["M4 pawn played by B", "4k3/p7/8/8/8/8/8/4K2r s - - - 7 5", "e1d2", "a7a5", "moved", None, []],
    ["J11 N vs B same target", "4k3/1P6/3b4/8/8/8/8/4K3 s - - - 0 5", "b7b8n", "d6b8", "moved", None, []],
    ["J12 B vs B", "4k3/1P6/3b4/8/8/8/8/4K3 s - - - 0 5", "b7b8b", "d6b8", "moved", None, []],
    ["J14 N to b7 moved away", "4k3/1P6/3n4/8/8/8/8/4K3 s - - - 0 5", "b7b8q", "d6b7", "moved", None, []],
    ["I2 ", "3rk3/8/8/8/8/8/8/3RK3 s - - - 0 5", "d1d4", "e8e7", "capturable", None, []],
    ["I3 attacked by pinned? ", "4k3/8/8/4b3/8/8/8/R3K3 s - - - 0 5", "a1a5", "e8f8", "capturable", None, []],
    ["I5", "4k3/8/3K4/8/8/8/8/7r s - - - 0 5", "d6d5", "h1h5", "capturable", None, []],
    ["I6 ep-capturable only", "4k3/8/8/8/2p5/8/3P4/4K3 s - - - 0 5", "d2d4", "e8d8", "capturable", None, []],
    ["I7 attacked by pawn", "4k3/8/8/8/2p5/8/3P4/4K3 s - - - 0 5", "d2d3", "e8d8", "capturable", None, []],
    ["I8 attacked by king? e7", "4k3/3p4/8/8/8/8/8/3QK3 s - - - 0 5", "d1d6", "e8f8", "capturable", None, []],
    ["I9 castle", "4k3/8/8/8/8/8/8/R3K2R s KQ - - 0 5", "e1g1", "e8d8", "capturable", None, []],
    ["I2 ", "3rk3/8/8/8/8/8/8/3RK3 s - - - 0 5", "d1d4", "e8e7", "moved", None, []],
    ["I3 attacked by pinned? ", "4k3/8/8/4b3/8/8/8/R3K3 s - - - 0 5", "a1a5", "e8f8", "moved", None, []],
    ["I5", "4k3/8/3K4/8/8/8/8/7r s - - - 0 5", "d6d5", "h1h5", "moved", None, []],
    ["I6 ep-capturable only", "4k3/8/8/8/2p5/8/3P4/4K3 s - - - 0 5", "d2d4", "e8d8", "moved", None, []],
    ["I7 attacked by pawn", "4k3/8/8/8/2p5/8/3P4/4K3 s - - - 0 5", "d2d3", "e8d8", "moved", None, []],
    ["I8 attacked by king? e7", "4k3/3p4/8/8/8/8/8/3QK3 s - - - 0 5", "d1d6", "e8f8", "moved", None, []],
    ["I9 castle", "4k3/8/8/8/8/8/8/R3K2R s KQ - - 0 5", "e1g1", "e8d8", "moved", None, []],
    ["I2 ", "3rk3/8/8/8/8/8/8/3RK3 s - - - 0 5", "d1d4", "e8e7", "off", None, []],
    ["I3 attacked by pinned? ", "4k3/8/8/4b3/8/8/8/R3K3 s - - - 0 5", "a1a5", "e8f8", "off", None, []],
    ["I5", "4k3/8/3K4/8/8/8/8/7r s - - - 0 5", "d6d5", "h1h5", "off", None, []],
    ["I6 ep-capturable only", "4k3/8/8/8/2p5/8/3P4/4K3 s - - - 0 5", "d2d4", "e8d8", "off", None, []],
    ["I7 attacked by pawn", "4k3/8/8/8/2p5/8/3P4/4K3 s - - - 0 5", "d2d3", "e8d8", "off", None, []],
    ["I8 attacked by king? e7", "4k3/3p4/8/8/8/8/8/3QK3 s - - - 0 5", "d1d6", "e8f8", "off", None, []],
    ["I9 castle", "4k3/8/8/8/8/8/8/R3K2R s KQ - - 0 5", "e1g1", "e8d8", "off", None, []],
    ["I11 attacked by pinned knight", "4k3/3n3p/8/1B6/8/8/8/2R1K3 s - - - 0 5", "c1c5", "h7h6", "capturable", None, []],
    ["I12 not attacked", "4k3/3n3p/8/1B6/8/8/8/2R1K3 s - - - 0 5", "c1c4", "h7h6", "capturable", None, []],
    ["S1 switch", "4k3/8/8/8/8/8/8/R3K3 s - - - 10 20", "a1a8", "e8d8", "moved", None, []],
    ["S2 switch keeps ep", "8/5p2/8/4k3/8/8/3P4/4K3 s - - - 3 20", "d2d4", "f7f5", "moved", None, []],
    ["S3 switch + mate", "6k1/5ppp/8/8/8/8/8/1R4K1 s - - - 0 1", "b1b8", "g8h8", "moved", None, []],
    ["S4 switch vs stalemate of other", "3rk3/8/3P4/5q2/8/8/8/7K s - - - 0 30", "d6d7", "f5f2", "moved", None, []],
    ["S5 switch + fifty", "4k3/8/8/8/8/8/8/R3K3 s - - - 49 20", "a1a8", "e8d8", "moved", None, []],
    ["S5b", "4k3/8/8/8/8/8/8/R3K3 s - - - 48 20", "a1a8", "e8d8", "moved", None, []],
    ["S5c fifty no switch", "4k3/8/8/8/8/8/8/R3K3 s - - - 49 20", "a1a2", "e8d8", "moved", None, []],
    ["S5d", "4k3/8/8/8/8/8/8/R3K3 s - - - 48 20", "a1a2", "e8d8", "moved", None, []],
    ["S6 no check", "4k3/8/8/8/8/8/8/R3K3 s - - - 10 20", "a1a8", "e8e7", "moved", None, []],
    ["S1 switch", "4k3/8/8/8/8/8/8/R3K3 s - - - 10 20", "a1a8", "e8d8", "moved", 3, []],
    ["S2 switch keeps ep", "8/5p2/8/4k3/8/8/3P4/4K3 s - - - 3 20", "d2d4", "f7f5", "moved", 3, []],
    ["S3 switch + mate", "6k1/5ppp/8/8/8/8/8/1R4K1 s - - - 0 1", "b1b8", "g8h8", "moved", 3, []],
    ["S4 switch vs stalemate of other", "3rk3/8/3P4/5q2/8/8/8/7K s - - - 0 30", "d6d7", "f5f2", "moved", 3, []],
    ["S5 switch + fifty", "4k3/8/8/8/8/8/8/R3K3 s - - - 49 20", "a1a8", "e8d8", "moved", 3, []],
    ["S5b", "4k3/8/8/8/8/8/8/R3K3 s - - - 48 20", "a1a8", "e8d8", "moved", 3, []],
    ["S5c fifty no switch", "4k3/8/8/8/8/8/8/R3K3 s - - - 49 20", "a1a2", "e8d8", "moved", 3, []],
    ["S5d", "4k3/8/8/8/8/8/8/R3K3 s - - - 48 20", "a1a2", "e8d8", "moved", 3, []],
    ["S6 no check", "4k3/8/8/8/8/8/8/R3K3 s - - - 10 20", "a1a8", "e8e7", "moved", 3, []],
    ["S1 switch", "4k3/8/8/8/8/8/8/R3K3 s - - - 10 20", "a1a8", "e8d8", "moved", 8, []],
    ["S2 switch keeps ep", "8/5p2/8/4k3/8/8/3P4/4K3 s - - - 3 20", "d2d4", "f7f5", "moved", 8, []],
    ["S3 switch + mate", "6k1/5ppp/8/8/8/8/8/1R4K1 s - - - 0 1", "b1b8", "g8h8", "moved", 8, []],
    ["S4 switch vs stalemate of other", "3rk3/8/3P4/5q2/8/8/8/7K s - - - 0 30", "d6d7", "f5f2", "moved", 8, []],
    ["S5 switch + fifty", "4k3/8/8/8/8/8/8/R3K3 s - - - 49 20", "a1a8", "e8d8", "moved", 8, []],
    ["S5b", "4k3/8/8/8/8/8/8/R3K3 s - - - 48 20", "a1a8", "e8d8", "moved", 8, []],
    ["S5c fifty no switch", "4k3/8/8/8/8/8/8/R3K3 s - - - 49 20", "a1a2", "e8d8", "moved", 8, []],
    ["S5d", "4k3/8/8/8/8/8/8/R3K3 s - - - 48 20", "a1a2", "e8d8", "moved", 8, []],
    ["S6 no check", "4k3/8/8/8/8/8/8/R3K3 s - - - 10 20", "a1a8", "e8e7", "moved", 8, []],
    ["N1 ep recorded", "4k3/8/8/8/8/8/3P4/4K3 w - - - 10 40", "d2d4", None, "moved", None, []],
    ["N1b", "4k3/8/8/8/8/8/3P4/4K3 w - - - 10 40", "e1e2", None, "moved", None, []],
    ["N2 black -> pair+1", "4k3/3p4/8/8/8/8/8/4K3 b - - - 10 40", None, "d7d5", "moved", None, []],
    ["N3 fifty 99", "4k3/3p4/8/8/8/8/8/4K3 b - - - 98 40", None, "e8e7", "moved", None, []],
    ["N3 fifty 100", "4k3/3p4/8/8/8/8/8/4K3 b - - - 99 40", None, "e8e7", "moved", None, []],
    ["N6 ep normal", "4k3/8/8/8/2pP4/8/8/4K3 b - d3 - 10 40", None, "c4d3", "moved", None, []],
    ["N7 ep normal white", "4k3/8/8/2Pp4/8/8/8/4K3 w - d6 - 10 40", "c5d6", None, "moved", None, []],
    ["CR1 both corner captures (aimed at standing? no, both moved)", "r3k2r/8/8/8/8/8/8/R3K2R s KQkq - - 0 5", "a1a8", "h8h1", "moved", None, []],
    ["CR2 rook captured on corner", "r3k2r/8/8/8/8/8/8/R3K2R s KQkq - - 0 5", "a1a8", "e8d8", "moved", None, []],
    ["CR3 black rook to a1 after rook left", "r3k2r/8/8/8/8/8/8/R3K2R s KQkq - - 0 5", "a1a7", "a8a1", "moved", None, []],
    ["CR4", "r3k2r/8/8/8/8/8/8/R3K2R s KQkq - - 0 5", "a1b1", "h8h7", "moved", None, []],
    ["CR5 both castle", "r3k2r/8/8/8/8/8/8/R3K2R s KQkq - - 0 5", "e1g1", "e8c8", "moved", None, []],
    ["CR6 castle long vs rook to a1", "r3k2r/8/8/8/8/8/8/R3K2R s KQkq - - 0 5", "e1c1", "a8a1", "moved", None, []],
    ["CR7", "r3k2r/8/8/8/8/8/8/R3K2R s KQkq - - 0 5", "e1c1", "a8d8", "moved", None, []],
    ["CR8 both long: rooks d1/d8", "r3k2r/8/8/8/8/8/8/R3K2R s KQkq - - 0 5", "e1c1", "e8c8", "moved", None, []],
    ["F1 white mated, black stalemated", "k7/p7/P7/8/1N6/6pp/7P/6BK s - - - 0 30", "b4c6", "g3g2", "moved", None, []],
    ["E5 both checkmated", "6rk/6pp/8/4N3/8/6pp/7P/6BK s - - - 0 30", "e5f7", "g3g2", "moved", None, []],
    ["IM KN v KN", "4k3/8/8/8/8/8/8/1N2K1n1 s - - - 0 5", "e1d2", "e8d7", "moved", None, []],
    ["IM KB v KB c1 dark f1 light", "4k3/8/8/8/8/8/8/2B1Kb2 s - - - 0 5", "e1d2", "e8d7", "moved", None, []],
    ["IM KNN v K", "4k3/8/8/8/8/8/8/1NN1K3 s - - - 0 5", "e1d2", "e8d7", "moved", None, []],
    ["IM KB v KN", "4k3/8/8/8/8/8/8/2B1K1n1 s - - - 0 5", "e1d2", "e8d7", "moved", None, []],
    ["IM KBB diff colour v K", "4k3/8/8/8/8/8/4B3/2B1K3 s - - - 0 5", "e1d2", "e8d7", "moved", None, []],
    ["IM KQ v K", "4k3/8/8/8/8/8/8/4K1q1 s - - - 0 5", "e1d2", "e8d7", "moved", None, []],
    ["IM KN v KQ", "4k3/8/8/8/8/8/8/1N2K1q1 s - - - 0 5", "e1d2", "e8d7", "moved", None, []],
    ["IM KB v KQ", "4k3/8/8/8/8/8/8/2B1K1q1 s - - - 0 5", "e1d2", "e8d7", "moved", None, []],
    ["TR1 history with castling letters in other order", "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R s KQkq - - 3 4", "f3g1", "f6g8", "off", None, ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1", "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R s KQkq - - 1 2", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s qkQK - - 2 3"]],
    ["TR2 history differing counters", "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R s KQkq - - 3 4", "f3g1", "f6g8", "off", None, ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1", "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R s KQkq - - 1 2", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 22 3"]],
    ["TR3", "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R s KQkq - - 3 4", "f3g1", "f6g8", "off", None, ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1", "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R s KQkq - - 1 2", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1"]],
    ["TR4 paused differs (g1,g8 paused)", "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R s KQkq - - 3 4", "f3g1", "f6g8", "moved", None, ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1", "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R s KQkq - - 1 2", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1"]],
    ["TR5 paused list reversed order in history", "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R s KQkq - - 3 4", "f3g1", "f6g8", "moved", None, ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - g8,g1 2 3", "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R s KQkq - - 1 2", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - g8,g1 2 3"]],
    ["a0", "r3k2r/8/8/8/8/8/8/R3K3 s Qkq - - 0 5", "a1a8", "e8g8", "moved", None, []],
    ["a1 B castles after A king move", "r3k2r/8/8/8/8/8/8/1R2K1r1 s kq - - 0 5", "e1d2", "e8g8", "moved", None, []],
    ["a5", "r3k2r/8/8/8/8/8/8/3BK1r1 s kq - - 0 5", "e1e2", "e8c8", "moved", None, []],
    ["a6 white king steps, black long castle", "r3k2r/8/8/8/8/8/8/R3K2r s Qkq - - 0 5", "e1d2", "e8c8", "moved", None, []],
    ["a7 A interposes (Bf1)", "r3k2r/8/8/8/8/8/6B1/4K2r s kq - - 0 5", "g2f1", "e8g8", "moved", None, []],
    ["b0", "4k3/8/8/8/8/8/8/r3K2r s - - - 0 5", "e1e2", "a1d1", "moved", None, []],
    ["b1 ", "3rk3/8/8/8/8/8/8/r2NK3 s - - - 0 5", "e1f2", "d8d1", "moved", None, []],
    ["b2 A interposes Bd1? black to c1", "4k3/8/8/8/8/8/2B5/r3K3 s - - - 0 5", "c2d1", "a1c1", "moved", None, []],
    ["b3", "4k3/8/8/8/8/8/2B5/r3K3 s - - - 0 5", "c2d1", "a1b1", "moved", None, []],
    ["b5 B's queen captures interposer on d1", "3qk3/8/8/8/8/8/2B5/r3K3 s - - - 0 5", "c2d1", "d8d1", "moved", None, []],
    ["b6 A king adjacent", "3qk3/8/8/8/8/8/8/r3K3 s - - - 0 5", "e1e2", "d8d2", "moved", None, []],
    ["b7 B queen checks", "3qk3/8/8/8/8/8/8/r3K3 s - - - 0 5", "e1f2", "d8d2", "moved", None, []],
    ["b8", "4k3/8/8/8/8/8/4K3/r6q s - - - 0 5", "e2e3", "h1e4", "moved", None, []],
    ["c0", "4k3/4p3/8/8/8/8/8/r3K3 s - - - 0 5", "e1e2", "e7e5", "moved", None, []],
    ["c3", "4k3/4p3/8/8/8/8/4K2r/8 s - - - 0 5", "e2e3", "e7e5", "moved", None, []],
    ["c4", "4k3/4p3/8/8/1B6/8/8/r3K3 s - - - 0 5", "e1d2", "e7e5", "moved", None, []],
    ["c6", "4k3/4p3/8/8/8/1N6/8/4K2r s - - - 0 5", "e1d2", "e7e5", "moved", None, []],
    ["c7", "4k3/4p3/8/8/8/8/8/4K2r s - - - 0 5", "e1e2", "e7e6", "moved", None, []],
    ["c9 knight to e6", "4k3/4p3/8/8/3N4/8/7r/4K3 s - - - 0 5", "d4e6", "e7e5", "moved", None, []],
    ["r0", "4k3/8/8/8/8/8/4P3/4K1n1 s - - - 0 5", "e2e4", "g1f3", "moved", None, []],
    ["r1", "4k3/8/8/8/8/8/4P3/4K3 s - - - 0 5", "e2e4", "e8d8", "moved", None, []],
    ["r3 knight to e2? moved away", "4k3/8/8/8/8/8/4P3/4K1n1 s - - - 0 5", "e2e4", "g1e2", "moved", None, []],
    ["r4", "4k3/8/8/8/8/8/4P3/1n2K3 s - - - 0 5", "e2e4", "b1d2", "moved", None, []],
    ["r5", "4k3/8/8/8/8/8/4P3/4K3 s - - - 0 5", "e2e4", "e8e7", "moved", None, []],
    ["r6 knight to e4 same target vs pawn double", "4k3/8/8/8/8/6n1/4P3/4K3 s - - - 0 5", "e2e4", "g3e4", "moved", None, []],
    ["(b) pawn capture of moved-away piece struck", "4k3/8/8/4p3/3N4/8/4q3/4K3 s - - - 0 5", "d4e2", "e5d4", "moved", None, []],
    ["(b) A double step captured by B: no ep", "4k3/8/8/q7/8/8/1P6/4K3 s - - - 0 5", "b2b4", "a5b4", "moved", None, []],
    ["(b) B double step blocked by interposer: struck", "8/k7/8/3n4/8/8/4P3/4K1B1 s - - - 0 5", "e2e4", "d5e3", "moved", None, []],
    ["ep square recorded though occupied", "4k3/8/8/8/8/8/4P3/4Kn2 s - - - 0 5", "e2e4", "f1e3", "moved", None, []],
    ["double ep", "4k3/8/8/3pP3/2Pp4/8/8/4K3 s - c3,d6 - 0 5", "e5d6", "d4c3", "moved", None, []],
    ["ep, passed pawn moved", "4k3/8/8/3pP3/2Pp4/8/8/4K3 s - c3,d6 - 0 5", "c4c5", "d4c3", "moved", None, []],
    ["ep, passed pawn captured away", "4k3/8/8/3pP3/2Pp4/8/8/4K3 s - c3,d6 - 0 5", "e5d6", "d5c4", "moved", None, []],
    ["both capture", "4k3/8/8/3pP3/2Pp4/8/8/4K3 s - c3,d6 - 0 5", "c4d5", "d4c3", "moved", None, []],
]


OPTIONS = [
    ("moved", None), ("capturable", None), ("off", None),
    ("moved", 8), ("capturable", 8), ("off", 8),
    ("moved", 12), ("capturable", 12), ("off", 12),
]


def random_position(rng: random.Random) -> str:
    """A random consistent s-mode position (kings not adjacent, no pawns on
    the first/last rank, checks allowed)."""
    while True:
        board = [None] * 64
        empties = list(range(64))
        rng.shuffle(empties)
        wk, bk = empties.pop(), empties.pop()
        if abs(O.file(wk) - O.file(bk)) <= 1 and abs(O.rank(wk) - O.rank(bk)) <= 1:
            continue
        board[wk], board[bk] = "K", "k"
        n = rng.randint(1, 12)
        for _ in range(n):
            p = rng.choice("PPPPNNBBRRQ")
            p = p if rng.random() < 0.5 else p.lower()
            s = empties.pop()
            if p in "Pp" and O.rank(s) in (0, 7):
                continue
            board[s] = p
        st = O.State(board, "s", set(), set(), set(), rng.randint(0, 10), rng.randint(1, 40))
        # castling rights where they fit
        for right, ksq, rsq, k, r in (("K", 4, 7, "K", "R"), ("Q", 4, 0, "K", "R"),
                                      ("k", 60, 63, "k", "r"), ("q", 60, 56, "k", "r")):
            if board[ksq] == k and board[rsq] == r:
                st.castling.add(right)
        if not O.legal_moves(st, O.WHITE) or not O.legal_moves(st, O.BLACK):
            continue
        if O.end_of_game(st) is not None:
            continue
        return O.fen_of(st)


def gives_check(st, m):
    c = O.color_of(st.board[m[0]])
    b, _, _ = O.apply_single(st.board, st.castling, m, O.ep_square_for(st, c))
    return O.in_check(b, O.other(c))


def pick(rng, wl, bl, st):
    """Pick a White and a Black move, biased towards interesting meetings."""
    def prefer(lst):
        r = rng.random()
        caps = [m for m in lst if st.board[m[1]] is not None or
                (st.board[m[0]] in "Pp" and O.file(m[0]) != O.file(m[1]))]
        special = [m for m in lst if O.is_castling(st.board, m) or m[2] is not None or
                   (st.board[m[0]] in "Pp" and O.file(m[0]) != O.file(m[1]) and st.board[m[1]] is None)]
        checks = [m for m in lst if gives_check(st, m)]
        if checks and r < 0.2:
            return rng.choice(checks)
        if special and r < 0.35:
            return rng.choice(special)
        if caps and r < 0.6:
            return rng.choice(caps)
        return rng.choice(lst)
    w = prefer(wl)
    r = rng.random()
    meet = [m for m in bl if m[1] in (w[1], w[0])]
    if meet and r < 0.35:
        b = rng.choice(meet)
    else:
        b = prefer(bl)
    if rng.random() < 0.5:  # sometimes let Black lead instead
        meet = [m for m in wl if m[1] in (b[1], b[0])]
        if meet and rng.random() < 0.35:
            w = rng.choice(meet)
    return w, b


def events(st, w, b):
    """Names of the interesting things a pair exercises (for coverage counts)."""
    ev = []
    if st.mode != "s":
        ev.append("normal-move")
        return ev
    cw, cb = O.in_check(st.board, O.WHITE), O.in_check(st.board, O.BLACK)
    ev.append("both-in-check" if cw and cb else "one-in-check" if cw or cb else "no-check")
    for c, m in ((O.WHITE, w), (O.BLACK, b)):
        if O.is_castling(st.board, m):
            ev.append("castling")
        if m[2]:
            ev.append("promotion")
        if O.is_ep_capture(st.board, m, O.ep_square_for(st, c)):
            ev.append("ep-capture")
        if st.paused and st.board[m[0]] is not None and m[0] in st.paused:
            ev.append("paused-piece-moved")
    if not (cw ^ cb):
        if w[1] == b[1]:
            ev.append("same-target")
        if w[1] == b[0] and b[1] == w[0]:
            ev.append("swap")
        elif w[1] == b[0] or b[1] == w[0]:
            ev.append("aim-at-moved-away")
    return ev


def run(binp, args):
    p = subprocess.run([binp, "rules", "fairschach"] + args, capture_output=True, text=True)
    return p.returncode, p.stdout.strip(), p.stderr.strip()


def play_game(task):
    binp, seed, start, pause, nb, max_pairs = task
    rng = random.Random(seed)
    stats = {"pairs": 0, "pairs_ok": 0, "legal": 0, "legal_ok": 0, "games": 1,
             "outcomes": {}, "switches": 0, "first": 0, "struck": 0, "events": {}}
    issues = []
    opts = ["--pause", pause]
    ropts = opts + (["--normal-below", str(nb)] if nb is not None else [])
    fen = start
    history = []  # earlier FENs, start first, current excluded
    fd, hpath = tempfile.mkstemp(prefix="fsdiff", suffix=".txt")
    os.close(fd)
    try:
        for _ in range(max_pairs):
            st = O.parse_fen(fen)
            lists = {}
            for side in (O.WHITE, O.BLACK):
                mine = sorted(O.uci(m) for m in O.legal_moves(st, side, pause))
                rc, out, err = run(binp, ["legal", "--fen", fen, "--side", side] + opts)
                stats["legal"] += 1
                theirs = json.loads(out) if rc == 0 else ("ERR", rc, err)
                if theirs == mine:
                    stats["legal_ok"] += 1
                else:
                    issues.append({"kind": "legal", "fen": fen, "side": side, "pause": pause,
                                   "rust": theirs, "oracle": mine,
                                   "only_rust": sorted(set(theirs) - set(mine)) if isinstance(theirs, list) else None,
                                   "only_oracle": sorted(set(mine) - set(theirs)) if isinstance(theirs, list) else None})
                lists[side] = [m for m in mine if not isinstance(theirs, list) or m in theirs]
            if st.mode == "s":
                if not lists[O.WHITE] or not lists[O.BLACK]:
                    break
                wl = [O.parse_uci(m) for m in lists[O.WHITE]]
                bl = [O.parse_uci(m) for m in lists[O.BLACK]]
                w, b = pick(rng, wl, bl, st)
                margs = ["--white", O.uci(w), "--black", O.uci(b)]
            else:
                side = O.WHITE if st.mode == "w" else O.BLACK
                if not lists[side]:
                    break
                mv = O.parse_uci(rng.choice(lists[side]))
                w, b = (mv, None) if side == O.WHITE else (None, mv)
                margs = ["--white" if side == O.WHITE else "--black", O.uci(mv)]
            with open(hpath, "w") as fh:
                fh.write("".join(h + "\n" for h in history))
            res = O.resolve(st, w, b, pause, nb, history + [fen]).as_dict()
            rc, out, err = run(binp, ["resolve", "--fen", fen] + margs + ropts + ["--history", hpath])
            stats["pairs"] += 1
            for e in events(st, w, b) if st.mode == "s" else ["normal-move"]:
                stats["events"][e] = stats["events"].get(e, 0) + 1
            theirs = json.loads(out) if rc == 0 else ("ERR", rc, err)
            if theirs == res:
                stats["pairs_ok"] += 1
            else:
                issues.append({"kind": "resolve", "fen": fen, "moves": margs, "pause": pause,
                               "normal_below": nb, "history_len": len(history),
                               "rust": theirs, "oracle": res})
                break
            if "first" in (res["white"], res["black"]):
                stats["first"] += 1
            if "struck" in (res["white"], res["black"]):
                stats["struck"] += 1
            if st.mode == "s" and res["fen"].split(" ")[1] != "s":
                stats["switches"] += 1
            history.append(fen)
            fen = res["fen"]
            if res["outcome"]:
                k = res["outcome"]["reason"]
                stats["outcomes"][k] = stats["outcomes"].get(k, 0) + 1
                break
    finally:
        os.unlink(hpath)
    return stats, issues


def run_cases(binp):
    ok = 0
    bad = []
    fd, hpath = tempfile.mkstemp(prefix="fscase", suffix=".txt")
    os.close(fd)
    try:
        for label, fen, w, b, pause, nb, hist in CASES:
            st = O.parse_fen(fen)
            want = O.resolve(st, O.parse_uci(w) if w else None, O.parse_uci(b) if b else None,
                             pause, nb, list(hist) + [fen]).as_dict()
            args = ["resolve", "--fen", fen, "--pause", pause]
            args += (["--white", w] if w else []) + (["--black", b] if b else [])
            args += ["--normal-below", str(nb)] if nb is not None else []
            with open(hpath, "w") as fh:
                fh.write("".join(h + "\n" for h in hist))
            args += ["--history", hpath]
            rc, out, err = run(binp, args)
            got = json.loads(out) if rc == 0 else ("ERR", rc, err)
            if got == want:
                ok += 1
            else:
                bad.append({"label": label, "args": args, "rust": got, "oracle": want})
            for side in (O.WHITE, O.BLACK):
                mine = sorted(O.uci(m) for m in O.legal_moves(st, side, pause))
                rc, out, err = run(binp, ["legal", "--fen", fen, "--side", side, "--pause", pause])
                got = json.loads(out) if rc == 0 else ("ERR", rc, err)
                if got == mine:
                    ok += 1
                else:
                    bad.append({"label": label + " legal " + side, "rust": got, "oracle": mine})
    finally:
        os.unlink(hpath)
    for x in bad:
        print(json.dumps(x))
    print(f"cases: {ok} agreed, {len(bad)} disagreed")
    return not bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=DEFAULT_BIN)
    ap.add_argument("--games", type=int, default=20, help="games per (option, start kind)")
    ap.add_argument("--pairs", type=int, default=80)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="/tmp/fairschach_diff.jsonl")
    ap.add_argument("--options", default=None,
                    help="comma list of pause:normal_below, e.g. moved:off,off:32")
    ap.add_argument("--cases", action="store_true", help="run only the hand-built cases")
    a = ap.parse_args()
    if a.cases:
        sys.exit(0 if run_cases(os.path.abspath(a.bin)) else 1)
    options = OPTIONS
    if a.options:
        options = []
        for item in a.options.split(","):
            pz, nb = item.split(":")
            options.append((pz, None if nb == "off" else int(nb)))
    rng = random.Random(a.seed)
    binp = os.path.abspath(a.bin)
    tasks = []
    for pause, nb in options:
        for g in range(a.games):
            kind = g % 3
            if kind == 0:
                start = O.START_FEN
            elif kind == 1:
                start = VARIED[rng.randrange(len(VARIED))]
            else:
                start = random_position(rng)
            tasks.append((binp, rng.randrange(1 << 30), start, pause, nb, a.pairs))
    total = {"pairs": 0, "pairs_ok": 0, "legal": 0, "legal_ok": 0, "games": 0,
             "outcomes": {}, "switches": 0, "first": 0, "struck": 0, "events": {}}
    n_issues = 0
    with open(a.out, "w") as out, Pool(a.jobs) as pool:
        for stats, issues in pool.imap_unordered(play_game, tasks):
            for k, v in stats.items():
                if k in ("outcomes", "events"):
                    for r, c in v.items():
                        total[k][r] = total[k].get(r, 0) + c
                else:
                    total[k] += v
            for i in issues:
                out.write(json.dumps(i) + "\n")
                n_issues += 1
    print(json.dumps(total, indent=1))
    print(f"{n_issues} discrepancies written to {a.out}")
    sys.exit(1 if n_issues else 0)


if __name__ == "__main__":
    main()
