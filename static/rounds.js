// The scorekeeper's rounds saved without a connection. Loaded by game.html on the
// scorekeeper's page only, after app.js, whose helpers it uses (window.blitzboard).
// Past the ~400 lines the style sets, on purpose: one keeper-only file is one request on a table's
// flaky Wi-Fi, and its parts share the queue's state. It is split by section instead: the store, what
// is shown, keeping a round, sending the line, the keeper's choices.
//
// A round saved while offline (any game: card counts, or Dutch's and 31's hands) is checked as far as
// the form can (whole numbers in the fields' bounds; a card round's "someone went out"), kept in
// IndexedDB ("rounds", oldest first) and listed as not sent, each with Edit (back in the form, same
// place in the queue) and Discard. When the connection is back they are sent oldest first, each with
// its own request id (the form's Idempotency-Key: a retry never counts twice) and the version the game
// will be at (the form's If-Match: a change from another phone in between is seen); once the queue is
// empty the page says how many went ("2 rounds sent"). The queue outlives the tab and the browser; two
// tabs send it one at a time (Web Locks).
// - What the page's numbers say while rounds wait (decided): every number is the server's, none
//   includes a waiting round: totals, "to go", bars, ranks, "what it takes", the chart and "after
//   round N" in the title stay the game as the server last said, and the title adds "not sent yet: 2".
//   The waiting rounds are listed apart (a card round with its points, which the form's rules give
//   exactly; a hand round with its hands only: the server scores hands, the page invents nothing), and
//   the form's "Round N" is the round after them. One rule for every kind of game, and the only
//   numbers the page can vouch for: a waiting round may still be refused or meet another phone's.
// - A change from another phone meanwhile: the game as it now is replaces the page's, these rounds
//   stay listed, and the scorekeeper chooses: save them after it, or discard them. A round the server
//   refuses (the game is over, a key that stopped working): said with the reason; edit it (back in
//   the form, same place in the queue) or discard it.
// - Decided (docs/usage.md, "Offline, and on the home screen"): corrections, deletions and rule changes
//   need the connection; offline they are refused at once with a message, and nothing is sent.
(function () {
  "use strict";
  var app = window.blitzboard;
  var live = document.getElementById("live");
  var GAME = (location.pathname.match(/^\/g\/([^/]+)\/score$/) || [])[1];
  if (!app || !live || !GAME || !document.getElementById("game")) return;
  var heardNow = app.heardNow;
  function noop() {}

  // This file's words (game.html's "offline-text" meta) are read by app.js with its own: B.phrase says them.
  var B = app;

  // --- IndexedDB: "rounds", the queue ----------------------------------------------------------------
  var opened = null;
  function db() {
    opened = opened || new Promise(function (resolve, reject) {
      if (!window.indexedDB) { reject(new Error("no IndexedDB")); return; }
      var request = indexedDB.open("blitzboard", 1);
      request.onupgradeneeded = function () {
        request.result.createObjectStore("rounds", { keyPath: "id", autoIncrement: true }).createIndex("game", "game");
      };
      request.onsuccess = function () { resolve(request.result); };
      request.onerror = function () { reject(request.error); };
    });
    return opened;
  }
  // One transaction: `work` gets the store and may return a request, whose result the promise gives.
  function store(name, mode, work) {
    return db().then(function (database) {
      return new Promise(function (resolve, reject) {
        var tx = database.transaction(name, mode), result;
        var request = work(tx.objectStore(name));
        if (request) request.onsuccess = function () { result = request.result; };
        tx.oncomplete = function () { resolve(result); };
        tx.onerror = tx.onabort = function () { reject(tx.error); };
      });
    });
  }

  // --- the page ---------------------------------------------------------------------------------------
  function game() { return document.getElementById("game"); }
  function version() { return Number(game().dataset.version); }
  // The state this page shows, for the service worker to open it with offline (a save's answer is a
  // post, which the worker does not read).
  function keepState() {
    var worker = navigator.serviceWorker && navigator.serviceWorker.controller;
    if (worker) worker.postMessage({ latest: location.pathname, html: game().outerHTML });
  }

  function queued() {
    return store("rounds", "readonly", function (s) { return s.index("game").getAll(GAME); })
      .then(function (rows) { return (rows || []).sort(function (a, b) { return a.id - b.id; }); });
  }

  // --- the keeper's queue: what is shown ------------------------------------------------------------
  // problem: what stops the queue ({kind: "conflict" | "refused" | "editing", id, text}); editing: the
  // waiting round back in the form (with the problem it had before, for Cancel).
  var pending = [], problem = null, editing = null, sentCount = 0, sentToSay = 0;

  function names() {
    var out = {};
    document.querySelectorAll("#scoreboard li.standing[data-player-id]").forEach(function (li) {
      var name = li.querySelector(".name bdi");
      out[li.dataset.playerId] = name ? name.textContent : li.dataset.playerId;
    });
    return out;
  }
  function serverRounds() { return Number(game().dataset.rounds || 0); }
  function numberOf(entry) {
    for (var at = 0; at < pending.length; at++) if (pending[at].id === entry.id) return serverRounds() + at + 1;
    return serverRounds() + pending.length + 1;
  }

  // The page's numbers agree (see the top): the standings are the server's as they came; the title
  // counts the rounds waiting; the form's heading is the round it will keep.
  function agree() {
    var title = document.querySelector("#game .game-title"), count = document.getElementById("waiting-count");
    if (title && pending.length) {
      if (!count) {
        count = document.createElement("span");
        count.id = "waiting-count";
        count.className = "muted";
        title.appendChild(count);
      }
      count.textContent = " · " + B.phrase("waiting_count", { n: pending.length });
    } else if (count) {
      count.remove();
    }
    var heading = document.querySelector("#round-entry h2");
    if (!roundForm(document.querySelector("#round-entry form")) || !heading) return;
    if (heading.dataset.served === undefined) heading.dataset.served = heading.textContent;
    heading.textContent = editing ? B.phrase("round_n", { n: numberOf(editing) })
      : pending.length ? B.phrase("round_n", { n: serverRounds() + pending.length + 1 }) : heading.dataset.served;
  }

  function button(text, action, small) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = small ? "secondary small" : "secondary";
    b.dataset.queueAction = action;
    b.textContent = text;
    return b;
  }

  // A waiting round in words: a card round's points, a hand round's hands (the server scores them).
  function roundLine(entry, who) {
    var n = numberOf(entry);
    if (entry.hands) {
      var hands = Object.keys(entry.hands).map(function (id) { return (who[id] || "?") + " " + entry.hands[id]; });
      return B.phrase("round_n", { n: n }) + ": " + B.phrase("hands_line", { hands: hands.join(" · ") });
    }
    var parts = Object.keys(entry.points).map(function (id) { return (who[id] || "?") + " " + B.signed(entry.points[id]); });
    return B.phrase("round_n", { n: n }) + ": " + parts.join(" · ");
  }

  // "2 rounds sent", once the queue is empty after sending; gone with the next round the keeper saves.
  function sentNote(n) {
    var note = document.getElementById("offline-sent");
    if (!n) {
      sentToSay = 0;
      if (note) note.remove();
      return;
    }
    if (!note) {
      note = document.createElement("p");
      note.id = "offline-sent";
      note.className = "muted";
      note.setAttribute("role", "status");
      live.insertAdjacentElement("beforebegin", note);
    }
    var form = "other";
    try { form = new Intl.PluralRules(document.documentElement.lang || "en").select(n); } catch (e) { /* "other" */ }
    var count = { n: B.number(n) };
    note.textContent = form === "one" ? B.phrase("sent_one", count) : form === "few" ? B.phrase("sent_few", count)
      : form === "many" ? B.phrase("sent_many", count) : B.phrase("sent_other", count);
  }

  // Said once the line is empty and the page shows the game the last of them left (the refresh after
  // sending), so "2 rounds sent" never sits above the game as it was before them.
  function sayWhatWasSent() {
    if (sentToSay && !pending.length && version() >= lastSaved) {
      sentNote(sentToSay);
      sentToSay = 0;
    }
  }

  // The list of rounds not sent yet, with what is happening to them, above the game.
  function panel() {
    var box = document.getElementById("offline-queue");
    if (!pending.length) {
      if (box) box.remove();
      return;
    }
    sentNote(0);
    if (!box) {
      box = document.createElement("section");
      box.id = "offline-queue";
      box.className = "card offline-queue";
      box.setAttribute("aria-live", "polite");
      live.insertAdjacentElement("beforebegin", box);
    }
    box.textContent = "";
    var title = document.createElement("h2");
    title.textContent = B.phrase("pending_title");
    var status = document.createElement("p");
    status.className = problem && problem.kind !== "editing" ? "form-error" : "muted";
    status.id = "offline-queue-status";
    status.textContent = problem ? problem.text : navigator.onLine ? B.phrase("pending_sending") : B.phrase("pending_waiting");
    box.appendChild(title);
    box.appendChild(status);
    var list = document.createElement("ol"), who = names(), form = roundForm(document.querySelector("#round-entry form"));
    list.className = "pending-rounds";
    pending.forEach(function (entry) {
      var item = document.createElement("li"), line = document.createElement("span");
      item.dataset.queueId = String(entry.id);
      if (problem && problem.id === entry.id && problem.kind === "refused") item.className = "refused";
      line.className = "round-line";
      line.textContent = roundLine(entry, who);
      item.appendChild(line);
      // Edit and Discard: on each round while nothing is being sent, on the refused one after a refusal.
      if (!sending && (!problem || problem.kind === "refused" && problem.id === entry.id)) {
        if (form) item.appendChild(button(B.phrase("edit_round"), "edit", true));
        item.appendChild(button(B.phrase("discard_round"), "discard-one", true));
      }
      list.appendChild(item);
    });
    box.appendChild(list);
    if (problem && problem.kind === "conflict") {
      box.appendChild(button(B.phrase("keep_both"), "keep-both"));
      box.appendChild(button(B.phrase("discard_mine"), "discard-all"));
    } else if (problem && problem.kind === "editing") {
      box.appendChild(button(B.phrase("cancel_edit"), "cancel-edit"));
    }
  }

  function show() {
    return queued().then(function (rows) {
      pending = rows;
      agree();
      panel();
    }, noop);
  }

  // --- the keeper's queue: keeping a round ------------------------------------------------------------
  function roundForm(elt) {
    return elt && elt.matches && elt.matches("#round-entry form.round-form") &&
      /\/rounds$/.test(elt.getAttribute("action") || "") ? elt : null;
  }
  function newId() {
    var bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  function mark(field, ok) {
    if (ok) field.removeAttribute("aria-invalid");
    else field.setAttribute("aria-invalid", "true");
  }

  // The counts as typed, checked as the server will (whole numbers in the fields' bounds, at most the
  // deck, someone out where the rules say so); the first field in error is marked and focused.
  function readCounts(form) {
    var fields = {}, points = {}, wrong = null, anyOut = false;
    var dp = Number(form.dataset.dutchPoints), bp = Number(form.dataset.blitzPoints);
    form.querySelectorAll(".player-entry[data-player-id]").forEach(function (entry) {
      var id = entry.dataset.playerId;
      var d = entry.querySelector("[name='dutch-" + id + "']"), b = entry.querySelector("[name='blitz-" + id + "']");
      var dv = d.value.trim(), bv = b.value.trim();
      var dOk = /^\d+$/.test(dv) && Number(dv) <= Number(d.dataset.max);
      var bOk = /^\d+$/.test(bv) && Number(bv) <= Number(b.dataset.max) && (!dOk || Number(dv) + Number(bv) <= Number(d.dataset.max));
      mark(d, dOk);
      mark(b, bOk);
      wrong = wrong || (!dOk ? d : !bOk ? b : null);
      fields[d.name] = dv;
      fields[b.name] = bv;
      if (bOk && Number(bv) === 0) anyOut = true;
      points[id] = Number(dv) * dp + Number(bv) * bp;
    });
    if (wrong) return { error: B.phrase("offline_counts"), field: wrong };
    if (form.dataset.mustGoOut === "1" && !anyOut) {
      return { error: B.phrase("offline_nobody_out"), field: form.querySelector("input[name^='blitz-']") };
    }
    return { fields: fields, points: points };
  }

  // Dutch's and 31's hands as typed (the players still in: the form asks no others) and who called or
  // knocked; each hand a whole number in its field's bounds, or (31's house rule, data-half) 30½ typed
  // "30.5", "30,5" or "30½", kept as typed. The server scores them once sent.
  function readHands(form) {
    var fields = {}, hands = {}, wrong = null;
    form.querySelectorAll("fieldset.player-entry[data-player-id]").forEach(function (entry) {
      var field = entry.querySelector("input.num"), v = field.value.trim();
      var half = field.dataset.half === "1" && /^30\s*([.,]5|½)$/.test(v);
      var ok = half || (/^\d+$/.test(v) && Number(v) <= Number(field.dataset.max));
      mark(field, ok);
      wrong = wrong || (ok ? null : field);
      fields[field.name] = v;
      hands[entry.dataset.playerId] = half ? v : Number(v);
    });
    var caller = form.querySelector("input[name='caller']:checked");
    fields.caller = caller ? caller.value : "";
    if (wrong) {
      var bounds = { max: wrong.dataset.max };
      var said = wrong.dataset.half === "1" ? B.phrase("offline_hand_half", bounds) : B.phrase("offline_hand", bounds);
      return { error: said, field: wrong };
    }
    return { fields: fields, hands: hands };
  }

  // What is wrong, said beside the field (as the server's answer would), which gets the focus.
  function fieldError(field, text) {
    document.querySelectorAll("#round-entry .offline-error").forEach(function (old) { old.remove(); });
    if (!field) return;
    var said = document.getElementById(field.name + "-error");
    if (said) said.remove();
    var p = document.createElement("p");
    p.className = "field-error offline-error";
    p.id = field.name + "-error";
    p.textContent = text;
    (field.closest(".count") || field.parentNode).appendChild(p);
    field.setAttribute("aria-describedby", p.id);
    field.focus();
  }

  // One read-write transaction over this game's queue (so two tabs never write from stale copies):
  // `change(rows, store)` puts or deletes.
  function rewrite(change) {
    return store("rounds", "readwrite", function (s) {
      var request = s.index("game").getAll(GAME);
      request.onsuccess = function () {
        change((request.result || []).sort(function (a, b) { return a.id - b.id; }), s);
      };
    });
  }

  // The version the game is at as far as this page knows: what it shows, or what the last round it
  // sent left (its answer comes before the page's refresh does).
  var lastSaved = 0;
  function known() { return Math.max(version(), lastSaved); }

  // When the round being kept started and how long it took, from the page's round timer (app.js):
  // sent with it, so its time is the table's, not that of its arrival.
  function timing() {
    var start = app.roundStart && app.roundStart();
    if (!start || Date.now() < start.local) return {};
    app.endRound();  // the next round starts with its own "Start round"
    return { started_at_ms: String(start.at), duration_s: String(Math.floor((Date.now() - start.local) / 1000)) };
  }

  // Keep the form's round in the queue. `sent`: it was sent and no answer came (it may have arrived):
  // kept with the request id and version it was sent with, so sending it again can't count it twice.
  // The form is cleared at once (a second tap can't keep the same round twice); the rounds are kept one
  // after the other, each expecting the version after the one before it.
  var keeping = Promise.resolve();
  function keepRound(form, sent) {
    var read = form.dataset.dutchPoints !== undefined ? readCounts(form) : readHands(form);
    if (read.error) {  // nothing kept, what was typed stays
      fieldError(read.field, read.error);
      return;
    }
    fieldError(null);
    sentNote(0);
    var edited = editing;
    var entry = {
      game: GAME,
      action: form.getAttribute("action"),
      csrf: form.elements.csrf.value,
      request_id: sent ? form.elements.request_id.value : newId(),
      fields: read.fields,
      // An edited round keeps its own time; a new one takes the round timer's.
      timing: edited ? edited.timing || {} : sent ? {} : timing(),
      kept_at: Date.now(),
    };
    if (read.points) entry.points = read.points;
    else entry.hands = read.hands;
    var sentVersion = Number(form.elements.version.value);
    form.elements.request_id.value = newId();  // the next round is another request
    clearForm(form);
    if (edited) putBack(form, edited.typed);
    form.querySelectorAll("[data-points]").forEach(function (out) { out.textContent = ""; });
    var error = document.getElementById("round-error");
    if (error) error.remove();
    keeping = keeping.then(function () {
      return rewrite(function (rows, s) {
        if (edited) {  // an edited round goes back to its place in the queue, first
          entry.id = edited.id;
          entry.version = edited.version;
        } else {
          entry.version = sent ? sentVersion : rows.length ? rows[rows.length - 1].version + 1 : known();
        }
        s.put(entry);
      });
    }).then(function () {
      if (edited) {
        editing = null;
        problem = null;  // a refused round edited is sent again
      }
      B.requestError("");
      return show();
    }).then(function () {
      var first = form.querySelector("input.num");
      if (first && form.isConnected) first.focus();
      sync();
    }, function () {
      // IndexedDB refused (private mode, storage full): nothing kept, the counts back in the form.
      Object.keys(entry.fields).forEach(function (name) {
        if (form.elements[name]) form.elements[name].value = entry.fields[name];
      });
      B.requestError(B.phrase("offline"));
    });
  }

  // What the form holds (a round half typed when Edit was tapped), to put back after the edit.
  function typedIn(form) {
    var out = {};
    form.querySelectorAll("input.num").forEach(function (input) { out[input.name] = input.value; });
    var caller = form.querySelector("input[name='caller']:checked");
    if (caller) out.caller = caller.value;
    return out;
  }
  function putBack(form, values) {
    Object.keys(values || {}).forEach(function (name) {
      if (form.elements[name]) form.elements[name].value = values[name];
    });
  }

  function clearForm(form) {
    form.querySelectorAll("input.num").forEach(function (input) {
      input.value = "";
      input.removeAttribute("aria-invalid");
    });
    var nobody = form.querySelector("input[name='caller'][value='']");
    if (nobody) nobody.checked = true;
    fieldError(null);
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (!elt || elt.id === "live-refresh") return;
    sentNote(0);
    var form = roundForm(elt);
    if (form && (!navigator.onLine || pending.length || editing !== null)) {
      event.preventDefault();
      keepRound(form, false);
    } else if (!navigator.onLine) {
      event.preventDefault();
      B.requestError(B.phrase("offline_other"));
    }
  });
  // Sent, and no answer (the Wi-Fi dropped on the way): kept as it was sent.
  document.addEventListener("htmx:sendError", function (event) {
    var form = roundForm(event.detail.elt);
    if (form) keepRound(form, true);
  });

  // --- the keeper's queue: sending it -----------------------------------------------------------------
  var sending = false, retryTimer = null, retryMs = 2000;

  function later() {
    if (retryTimer) return;
    retryTimer = setTimeout(function () { retryTimer = null; sync(); }, retryMs);
    retryMs = Math.min(retryMs * 2, 30000);
  }

  // Why the server refused a round: the message its answer shows, else the generic one.
  function reason(html, status) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var said = doc.querySelector("#round-error, .problem .error-detail, .error-detail, .problem");
    return said ? said.textContent.trim().replace(/\s+/g, " ") : B.phrase("failed", { status: status });
  }
  function answeredVersion(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var g = doc.getElementById("game");
    return g ? Number(g.dataset.version) : null;
  }

  function sendOne(entry) {
    var body = new URLSearchParams();
    body.set("csrf", entry.csrf);
    body.set("version", String(entry.version));
    body.set("request_id", entry.request_id);
    Object.keys(entry.fields).forEach(function (name) { body.set(name, entry.fields[name]); });
    Object.keys(entry.timing || {}).forEach(function (name) { body.set(name, entry.timing[name]); });
    // A request that hangs gives up (and is sent again later: the request id makes that safe).
    var abort = window.AbortController ? new AbortController() : null;
    var timer = abort && setTimeout(function () { abort.abort(); }, 20000);
    return fetch(entry.action, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "HX-Request": "true" },
      signal: abort ? abort.signal : undefined,
    }).then(function (response) {
      return response.text().then(function (html) {
        clearTimeout(timer);
        return { status: response.status, html: html, redirected: response.redirected };
      });
    }, function (error) {
      clearTimeout(timer);
      throw error;
    });
  }

  // Oldest first, one at a time; stops at the first that can't go (no connection, a conflict, a
  // refusal). The page then asks for the game as it now is (app.js's refresh, which keeps a round
  // being typed and never goes back to an older game).
  function sendAll() {
    var sent = false;
    function next() {
      return queued().then(function (rows) {
        pending = rows;
        if (!rows.length || problem) return;
        var entry = rows[0];
        return sendOne(entry).then(function (answer) {
          var now = answeredVersion(answer.html);
          if (answer.status === 200 && !answer.redirected && now !== null) {
            heardNow();
            sent = true;
            sentCount += 1;
            lastSaved = Math.max(lastSaved, now);
            retryMs = 2000;
            return store("rounds", "readwrite", function (s) { return s["delete"](entry.id); }).then(next);
          }
          if (answer.status >= 500 || answer.status === 429 || now === null && answer.status < 400) {
            later();  // busy, or not our answer (a proxy's page): the same request goes again later
            return;
          }
          heardNow();
          sent = true;
          if (now !== null && now !== entry.version) {
            problem = { kind: "conflict", id: entry.id, now: now, text: B.phrase("conflict") };
          } else {
            problem = { kind: "refused", id: entry.id, text: B.phrase("refused", { reason: reason(answer.html, answer.status) }) };
          }
        }, function () {
          later();  // no answer: the same request id goes again
        });
      });
    }
    return next().then(function () {
      if (sent) app.refresh();
    });
  }

  function sync() {
    if (sending || problem || editing !== null || !navigator.onLine) return;
    sending = true;
    panel();  // no Edit or Discard while a round may be on its way
    var run = function () { return sendAll(); };
    var locked = navigator.locks ? navigator.locks.request("blitzboard-rounds-" + GAME, run) : run();
    Promise.resolve(locked).catch(noop).then(function () {
      sending = false;
      return show();
    }).then(function () {
      if (!pending.length && sentCount) {
        sentToSay += sentCount;
        sentCount = 0;
        sayWhatWasSent();
      }
      // A round kept while these were being sent: its own sync found this one busy.
      if (pending.length && !problem && !retryTimer) sync();
    });
  }

  // The keeper's choice: after a conflict, or for one waiting round (edit it, discard it).
  document.addEventListener("click", function (event) {
    var action = event.target.closest("[data-queue-action]");
    if (!action) return;
    var what = action.dataset.queueAction;
    if (what === "keep-both" && problem) {
      // Mine after theirs: each round gets the version the game will be at, and a new request id.
      var base = Math.max(known(), problem.now || 0);
      rewrite(function (rows, s) {
        rows.forEach(function (entry, at) {
          entry.version = base + at;
          entry.request_id = newId();
          s.put(entry);
        });
      }).then(function () { problem = null; sync(); }, noop);
    } else if (what === "discard-all") {
      rewrite(function (rows, s) {
        rows.forEach(function (entry) { s["delete"](entry.id); });
      }).then(function () { problem = null; return show(); }, noop);
    } else if (what === "discard-one" && !sending && editing === null) {
      // One round out of the line: those after it now expect the game one version earlier.
      var gone = Number(action.closest("[data-queue-id]").dataset.queueId), after = false;
      rewrite(function (rows, s) {
        rows.forEach(function (entry) {
          if (entry.id === gone) {
            s["delete"](entry.id);
            after = true;
          } else if (after) {
            entry.version -= 1;
            s.put(entry);
          }
        });
      }).then(function () {
        if (problem && problem.id === gone) problem = null;
        sync();
        return show();
      }, noop);
    } else if (what === "edit" && !sending && editing === null) {
      // Back in the form as it was typed; saved again, it takes its own place in the line.
      var id = Number(action.closest("[data-queue-id]").dataset.queueId);
      var entry = pending.filter(function (e) { return e.id === id; })[0];
      var form = roundForm(document.querySelector("#round-entry form"));
      if (!entry || !form) return;
      entry.typed = typedIn(form);
      clearForm(form);
      putBack(form, entry.fields);
      if (entry.points) form.querySelector("input.num").dispatchEvent(new Event("input", { bubbles: true }));
      editing = entry;
      entry.before = problem;
      problem = { kind: "editing", id: entry.id, text: B.phrase("editing") };
      agree();
      panel();
      form.querySelector("input.num").focus();
    } else if (what === "cancel-edit" && editing !== null) {
      // Left as it was: the form as it was before Edit (empty, or the next round half typed).
      var form2 = roundForm(document.querySelector("#round-entry form"));
      if (form2) {
        clearForm(form2);
        putBack(form2, editing.typed);
      }
      problem = editing.before;
      editing = null;
      agree();
      panel();
      sync();
    }
  });

  // --- when things happen -----------------------------------------------------------------------------
  document.addEventListener("htmx:afterSettle", function (event) {
    if (event.detail.elt && event.detail.elt.id === "game") {
      keepState();
      agree();
      panel();
      sayWhatWasSent();
    }
  });
  window.addEventListener("online", sync);
  window.addEventListener("offline", panel);
  show().then(sync);
})();
