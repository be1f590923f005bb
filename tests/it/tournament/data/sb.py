#!/usr/bin/env python3
"""An independent table for tests/it/tournament/standings.rs.

Reads JSON from stdin: {"players": n, "games": [{"players": [p, ...], "scores": [s, ...]}]}
with scores in points (numbers, 0.5 for a half). Prints JSON: per player the points,
the Sonneborn-Berger score and the wins, as exact fractions written "a/b" or "a".

Sonneborn-Berger as the FIDE handbook words it for two players: the sum of the
scores of the opponents a player beat, plus half the scores of the opponents the
player drew with; every game counts, so a double round robin counts each opponent
twice. A game of more seats is read as pairwise encounters: an opponent who scored
less in that game counts as beaten, one who scored the same as drawn.
"""
import json
import sys
from fractions import Fraction


def main():
    data = json.load(sys.stdin)
    n = data["players"]
    games = [(g["players"], [Fraction(str(s)) for s in g["scores"]]) for g in data["games"]]
    points = [Fraction(0)] * n
    wins = [0] * n
    for players, scores in games:
        top = max(scores)
        at_top = scores.count(top)
        for p, s in zip(players, scores):
            points[p] += s
            if s == top and 2 * at_top <= len(scores):
                wins[p] += 1
    sb = [Fraction(0)] * n
    for players, scores in games:
        for p, mine in zip(players, scores):
            for o, theirs in zip(players, scores):
                if o == p:
                    continue
                if mine > theirs:
                    sb[p] += points[o]
                elif mine == theirs:
                    sb[p] += points[o] / 2
    out = [{"points": str(points[p]), "sb": str(sb[p]), "wins": wins[p]} for p in range(n)]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
