// Fairsteward's page script: plain JavaScript, no framework, nothing fetched
// from elsewhere. Every form works without it; it adds four things:
//  1. the private link of a board mail (#sign-in=<seat>.<key>): the key is
//     taken out of the address bar at once and posted, and the answer sets the
//     session cookie;
//  2. times in the browser's own time zone;
//  3. click-to-move: click a piece, then a highlighted cell (a path through
//     several cells for multi-jumps; a choice where one path has several
//     moves, such as promotions; a single click for a stone placed, or a
//     choice of the moves taken hold of at a cell whose path is not on the
//     board), from the variant's own legal moves;
//  4. live updates (issue 34): the game page follows the game's event stream
//     (/api/games/<id>/events) and, when a turn resolves, a seat moves, a draw
//     is offered or the game ends, fetches the page anew and redraws its main
//     part without a reload; without EventSource, or when the stream is
//     refused, the page stays as loaded.
"use strict";

(function () {
  // 1. Sign in with the private link, leaving no key in the address bar or the
  // history; also when the link only changes the fragment of the page shown.
  function signInFromHash() {
    var hash = window.location.hash;
    if (hash.indexOf("#sign-in=") !== 0) return false;
    history.replaceState(null, "", window.location.pathname + window.location.search);
    var form = document.getElementById("link-sign-in");
    var value = decodeURIComponent(hash.slice("#sign-in=".length));
    var dot = value.lastIndexOf(".");
    if (!form || dot <= 0) return false;
    form.elements.seat.value = value.slice(0, dot);
    form.elements.key.value = value.slice(dot + 1);
    form.submit();
    return true;
  }
  window.addEventListener("hashchange", signInFromHash);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", signInFromHash);
  } else {
    signInFromHash();
  }

  document.addEventListener("DOMContentLoaded", function () {
    localTimes();
    clickToMove();
    liveEvents();
  });

  // 4. Live updates.
  function liveEvents() {
    var el = document.getElementById("live-events");
    if (!el || !window.EventSource || !window.fetch || !window.DOMParser) return;
    var source;
    try {
      source = new EventSource(el.getAttribute("data-src"));
    } catch (e) {
      return;
    }
    var busy = false;
    var again = false;
    // A player in the middle of a move (a piece taken, a form being filled
    // in) is not interrupted: a note offers the redraw instead.
    function playerIsBusy() {
      if (document.querySelector("#board .hit.selected, #board .hit.chosen")) return true;
      var input = document.getElementById("move-input");
      if (input && input.value) return true;
      var f = document.activeElement;
      return !!(f && f.form && (f.tagName === "TEXTAREA" || (f.tagName === "INPUT" && f.type !== "hidden" && f.value)));
    }
    function offer() {
      var main = document.getElementById("main");
      if (!main || document.getElementById("live-note")) return;
      var note = document.createElement("p");
      note.id = "live-note";
      note.className = "note";
      note.setAttribute("role", "status");
      note.appendChild(document.createTextNode("The game has changed since this page was drawn. "));
      var b = document.createElement("button");
      b.type = "button";
      b.className = "link";
      b.textContent = "Show it";
      b.addEventListener("click", function () { redraw(true); });
      note.appendChild(b);
      main.insertBefore(note, main.firstChild);
    }
    function redraw(asked) {
      if (!asked && playerIsBusy()) {
        offer();
        return;
      }
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      fetch(window.location.pathname + window.location.search, { credentials: "same-origin" })
        .then(function (r) {
          if (!r.ok) throw new Error("status " + r.status);
          return r.text();
        })
        .then(function (html) {
          var doc = new DOMParser().parseFromString(html, "text/html");
          var fresh = doc.getElementById("main");
          var main = document.getElementById("main");
          if (!fresh || !main) return;
          // A move being typed survives the redraw.
          var input = document.getElementById("move-input");
          var typed = input ? input.value : "";
          main.innerHTML = fresh.innerHTML;
          document.title = doc.title;
          var now = document.getElementById("move-input");
          if (typed && now) now.value = typed;
          localTimes();
          clickToMove();
          main.setAttribute("data-live", String(Number(main.getAttribute("data-live") || 0) + 1));
        })
        .catch(function () {})
        .then(function () {
          busy = false;
          if (again) {
            again = false;
            redraw(false);
          }
        });
    }
    // Every stream starts with `state`. The first one is redrawn when the
    // game moved on between drawing the page and opening the stream (its
    // transcript entry is not the page's); one after a break always is, for
    // what the break missed.
    var opened = false;
    source.addEventListener("state", function (e) {
      var seq = "";
      try {
        var s = JSON.parse(e.data).transcript_seq;
        seq = s === null || s === undefined ? "" : String(s);
      } catch (err) {}
      var shown = document.getElementById("live-events");
      if (opened || !shown || shown.getAttribute("data-seq") !== seq) redraw(false);
      opened = true;
    });
    ["turn", "moved", "draw", "end"].forEach(function (name) {
      source.addEventListener(name, function () {
        if (name === "end") source.close();
        redraw(false);
      });
    });
  }

  // 2. Local times.
  function localTimes() {
    var format;
    try {
      format = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
    } catch (e) {
      return;
    }
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "local time";
    document.querySelectorAll("time[datetime]").forEach(function (t) {
      var d = new Date(t.getAttribute("datetime"));
      if (!isNaN(d.getTime())) {
        t.textContent = format.format(d);
        t.title = t.getAttribute("datetime") + " (UTC); shown in " + zone;
      }
    });
  }

  // 3. Click-to-move.
  function clickToMove() {
    var data = document.getElementById("legal-moves");
    var input = document.getElementById("move-input");
    var board = document.getElementById("board");
    if (!data || !input || !board) return;
    var moves;
    try {
      moves = JSON.parse(data.textContent);
    } catch (e) {
      return;
    }
    if (!moves.length) return;
    var choices = document.getElementById("choices");
    var send = document.getElementById("send-move");
    var hits = {};
    board.querySelectorAll(".hit[data-cell]").forEach(function (el) {
      hits[el.getAttribute("data-cell")] = el;
      el.addEventListener("click", function () { clicked(el.getAttribute("data-cell")); });
      el.addEventListener("keydown", function (ev) {
        if (ev.key === "Enter" || ev.key === " ") {
          ev.preventDefault();
          clicked(el.getAttribute("data-cell"));
        }
      });
    });
    // A selection in progress: the cells clicked so far, and the moves whose
    // path fits them, each with the index in its path of the last click.
    var clicks = [];
    var candidates = [];

    function last(move) { return move.path[move.path.length - 1]; }

    // The moves chosen by clicking one cell: a path of one cell (a stone
    // placed), or a move taken hold of there (its path is not on the board).
    function heldAt(cell) {
      return moves.filter(function (m) {
        return (m.path.length === 1 && m.path[0] === cell) || (m.grip && m.grip.indexOf(cell) >= 0);
      });
    }

    // The moves whose path starts at `cell` and goes on.
    function startingAt(cell) {
      return moves.filter(function (m) { return m.path.length > 1 && m.path[0] === cell; });
    }

    function mark(cell, cls, on) {
      var el = hits[cell];
      if (!el) return;
      el.classList.toggle(cls, on);
    }

    function clearMarks() {
      Object.keys(hits).forEach(function (c) {
        ["from", "selected", "via", "target", "chosen"].forEach(function (k) { mark(c, k, false); });
        hits[c].removeAttribute("tabindex");
        hits[c].removeAttribute("role");
        hits[c].removeAttribute("aria-label");
      });
    }

    function focusable(cell, label) {
      var el = hits[cell];
      if (!el) return;
      el.setAttribute("tabindex", "0");
      el.setAttribute("role", "button");
      el.setAttribute("aria-label", label);
    }

    function showStarts() {
      clearMarks();
      clicks = [];
      candidates = [];
      choices.textContent = "";
      moves.forEach(function (m) {
        if (m.path.length) {
          mark(m.path[0], "from", true);
          focusable(m.path[0], (m.path.length === 1 ? "cell " : "piece on ") + m.path[0]);
        }
        (m.grip || []).forEach(function (c) {
          mark(c, "from", true);
          focusable(c, "cell " + c);
        });
      });
    }

    function showTargets() {
      clearMarks();
      clicks.forEach(function (c) { mark(c, "selected", true); });
      candidates.forEach(function (k) {
        var m = k.move;
        var end = last(m);
        mark(end, "target", true);
        focusable(end, "to " + end);
        // Cells a longer path passes on the way (multi-jump landings).
        for (var i = k.at + 1; i < m.path.length - 1; i++) {
          mark(m.path[i], "via", true);
          focusable(m.path[i], "through " + m.path[i]);
        }
      });
      focusable(clicks[0], "selected piece on " + clicks[0] + "; again to choose another");
    }

    function choose(move) {
      input.value = move.text;
      choices.textContent = "";
      clearMarks();
      move.path.forEach(function (c) { mark(c, "chosen", true); });
      (move.grip || []).forEach(function (c) { mark(c, "chosen", true); });
      var note = document.createElement("p");
      note.className = "small";
      note.id = "chosen-move";
      note.textContent = "Chosen: " + move.notation + ". Send it, or click the board to choose again.";
      choices.appendChild(note);
      clicks = [];
      candidates = [];
      if (send) send.focus();
    }

    // Buttons for `list` under `question`; `focus` moves the keyboard there.
    function offer(list, question, focus) {
      choices.textContent = "";
      var label = document.createElement("p");
      label.className = "small";
      label.textContent = question;
      choices.appendChild(label);
      list.forEach(function (m) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = "choice";
        b.textContent = m.notation;
        b.setAttribute("data-move", m.text);
        b.addEventListener("click", function () { choose(m); });
        choices.appendChild(b);
      });
      if (focus) choices.querySelector("button").focus();
    }

    // The candidates that `cell` continues: it lies further along their path.
    // A path that reaches it next wins over one that would skip cells on the
    // way (two jump sequences over the same cells in another order).
    function continuing(cell) {
      var next = [];
      candidates.forEach(function (k) {
        var at = k.move.path.indexOf(cell, k.at + 1);
        if (at > k.at) next.push({ move: k.move, at: at, direct: at === k.at + 1 });
      });
      var direct = next.filter(function (k) { return k.direct; });
      return direct.length ? direct : next;
    }

    // A first click on `cell`: its piece's moves, or what is chosen there.
    function select(cell) {
      var starts = startingAt(cell);
      var held = heldAt(cell);
      if (!starts.length && !held.length) { showStarts(); return; }
      if (!starts.length && held.length === 1) { choose(held[0]); return; }
      showStarts();
      if (starts.length) {
        clicks = [cell];
        candidates = starts.map(function (m) { return { move: m, at: 0 }; });
        showTargets();
      } else {
        mark(cell, "selected", true);
      }
      if (held.length) offer(held, starts.length ? "Or:" : "Which move?", !starts.length);
    }

    function clicked(cell) {
      if (clicks.length === 1 && cell === clicks[0]) {
        showStarts(); // the same piece again: choose another
        return;
      }
      var next = clicks.length ? continuing(cell) : [];
      if (!next.length) { select(cell); return; }
      clicks.push(cell);
      candidates = next;
      var ending = candidates.filter(function (k) { return k.at === k.move.path.length - 1; });
      var going = candidates.filter(function (k) { return k.at < k.move.path.length - 1; });
      var movesOf = function (list) { return list.map(function (k) { return k.move; }); };
      if (ending.length && !going.length) {
        if (ending.length === 1) choose(ending[0].move); else offer(movesOf(ending), "Which move?", true);
      } else if (ending.length) {
        offer(movesOf(candidates), "Which move?", true); // end here, or go on along a longer path
        showTargets();
      } else {
        showTargets(); // a multi-jump: go on to its next landing
      }
    }

    input.addEventListener("input", function () { if (choices.querySelector("#chosen-move")) choices.textContent = ""; });
    showStarts();
  }
})();
