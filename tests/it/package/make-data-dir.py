#!/usr/bin/env python3
"""Writes a steward's data directory with a released binary, for the upgrade tests
(issue 36): `make-data-dir.py BINARY OUT.tar.gz`.

BINARY (an earlier version's `fairsteward`) serves a fresh data directory on
loopback with an SMTP server that does not answer, so that the mails it queues
stay in its outbox. One game of every variant is created over HTTP and each seat
to move plays its first legal move (the steward's own list) for two turns; then
the steward is stopped with SIGTERM and the directory packed, keys and all.
tests/it/package/mod.rs installs the package over it and checks that every game,
mail in the outbox and key is still there and every transcript verifies.
"""
import json, os, signal, socket, subprocess, sys, tarfile, tempfile, time, urllib.request

VARIANTS = ["chess", "fairschach", "vierschach", "dreierschach", "tri-d-chess", "trialectic-dame"]
SEATS = ["Ada", "Bo", "Cy", "Di"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base, method, path, token=None, body=None):
    req = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def main(binary, out):
    work = tempfile.mkdtemp()
    data = os.path.join(work, "data")
    port, closed = free_port(), free_port()
    config = os.path.join(work, "fairsteward.toml")
    with open(config, "w") as f:
        f.write(f'[http]\npublic_url = "https://games.club.example"\n'
                f'[mail]\nfrom = "Club <moves@club.example>"\n'
                f'[mail.smtp]\nhost = "127.0.0.1"\nport = {closed}\ntls = "none"\n')
    steward = subprocess.Popen([binary, "serve", "--config", config, "--data-dir", data, "--listen", f"127.0.0.1:{port}"],
                               stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(base + "/api/steward", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    operator = open(os.path.join(data, "operator-token")).read().strip()
    for variant in VARIANTS:
        for seats in (2, 3, 4):
            status, created = call(base, "POST", "/api/games", operator, {
                "variant": variant,
                "seats": [{"name": n, "email": f"{n.lower()}.{variant}@club.example"} for n in SEATS[:seats]]})
            if status == 201:
                break
        assert status == 201, (variant, created)
        game = created["game"]["id"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        for _ in range(2):
            status, legal = call(base, "GET", f"/api/games/{game}/legal")
            assert status == 200, legal
            for seat in legal["seats"]:
                if seat["owes_move"] and seat["moves"]:
                    status, taken = call(base, "POST", f"/api/games/{game}/moves", tokens[seat["seat"]],
                                         {"turn": legal["turn"], "move": seat["moves"][0]["canonical"]})
                    assert status == 200, (variant, taken)
    steward.send_signal(signal.SIGTERM)
    steward.wait(timeout=60)
    with tarfile.open(out, "w:gz") as tar:
        tar.add(data, arcname="data")


if __name__ == "__main__":
    main(*sys.argv[1:])
