// The scorekeeper's rounds saved without a connection. Loaded by game.html on the
// scorekeeper's page only, after app.js, whose helpers it uses (window.blitzboard).
//
// A round saved while offline is checked against the rules on the round form (Dutch Blitz, Nerts,
// Ligretto), kept in IndexedDB ("rounds", oldest first), listed as not sent, and counted in the
// standings' totals (marked "pending"). When the connection is back they are sent oldest first, each
// with its own request id (the form's Idempotency-Key: a retry never counts twice) and the version the
// game will be at (the form's If-Match: a change from another phone in between is seen). The queue
// outlives the tab and the browser; two tabs send it one at a time (Web Locks).
// - A change from another phone meanwhile: the game as it now is replaces the page's, these rounds
//   stay listed, and the scorekeeper chooses: save them after it, or discard them. A round the server
//   refuses (the game is over, a key that stopped working): said with the reason; edit it (back in
//   the form, same place in the queue) or discard it.
// - Decided (docs/usage.md, "Offline, and on the home screen"): corrections, deletions, rule changes and the
//   hand games' rounds (Dutch, 31: the server scores each hand) need the connection; offline they are
//   refused at once with a message, and nothing is sent.
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
  var pending = [], problem = null, editing = null;

  function names() {
    var out = {};
    document.querySelectorAll("#scoreboard li.standing[data-player-id]").forEach(function (li) {
      var name = li.querySelector(".name bdi");
      out[li.dataset.playerId] = name ? name.textContent : li.dataset.playerId;
    });
    return out;
  }
  function serverRounds() { return Number(game().dataset.rounds || 0); }

  // The standings with the rounds not sent yet: each total with their points, marked "pending".
  function standings() {
    var sums = {};
    pending.forEach(function (entry) {
      Object.keys(entry.points).forEach(function (id) { sums[id] = (sums[id] || 0) + entry.points[id]; });
    });
    document.querySelectorAll("#scoreboard li.standing[data-player-id]").forEach(function (li) {
      var total = li.querySelector("[data-total]");
      if (!total) return;
      if (total.dataset.served === undefined) total.dataset.served = total.textContent;
      li.classList.toggle("pending", pending.length > 0);
      if (!pending.length) {
        total.textContent = total.dataset.served;
        return;
      }
      // The total with the rounds not sent, and the mark inside it (the standing is a grid of its parts).
      total.textContent = B.number(Number(total.dataset.total) + (sums[li.dataset.playerId] || 0));
      var mark = document.createElement("span");
      mark.className = "pending-mark";
      mark.textContent = B.phrase("pending_mark");
      total.appendChild(mark);
    });
    var heading = document.querySelector("#round-entry h2");
    if (roundForm(document.querySelector("#round-entry form")) && heading && pending.length && editing === null) {
      heading.textContent = B.phrase("round_n", { n: serverRounds() + pending.length + 1 });
    }
  }

  function button(text, action) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "secondary";
    b.dataset.queueAction = action;
    b.textContent = text;
    return b;
  }

  // The list of rounds not sent yet, with what is happening to them, above the game.
  function panel() {
    var box = document.getElementById("offline-queue");
    if (!pending.length) {
      if (box) box.remove();
      return;
    }
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
    status.className = problem ? "form-error" : "muted";
    status.id = "offline-queue-status";
    status.textContent = problem ? problem.text : B.phrase(navigator.onLine ? "pending_sending" : "pending_waiting");
    box.appendChild(title);
    box.appendChild(status);
    var list = document.createElement("ol"), who = names(), first = serverRounds() + 1;
    list.className = "pending-rounds";
    pending.forEach(function (entry, at) {
      var item = document.createElement("li");
      item.dataset.queueId = String(entry.id);
      if (problem && problem.id === entry.id) item.className = "refused";
      var parts = Object.keys(entry.points).map(function (id) { return (who[id] || "?") + " " + B.signed(entry.points[id]); });
      item.textContent = B.phrase("round_n", { n: first + at }) + ": " + parts.join(" · ");
      list.appendChild(item);
    });
    box.appendChild(list);
    if (problem && problem.kind === "conflict") {
      box.appendChild(button(B.phrase("keep_both"), "keep-both"));
      box.appendChild(button(B.phrase("discard_mine"), "discard-all"));
    } else if (problem && problem.kind === "refused") {
      if (roundForm(document.querySelector("#round-entry form"))) box.appendChild(button(B.phrase("edit_round"), "edit"));
      box.appendChild(button(B.phrase("discard_round"), "discard-one"));
    }
  }

  function show() {
    return queued().then(function (rows) {
      pending = rows;
      standings();
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
      [[d, dOk], [b, bOk]].forEach(function (pair) {
        if (pair[1]) pair[0].removeAttribute("aria-invalid");
        else pair[0].setAttribute("aria-invalid", "true");
      });
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
    var read = readCounts(form);
    if (read.error) {
      B.requestError(read.error);
      read.field.focus();
      return;
    }
    var entry = {
      game: GAME,
      action: form.getAttribute("action"),
      csrf: form.elements.csrf.value,
      request_id: sent ? form.elements.request_id.value : newId(),
      fields: read.fields,
      timing: sent ? {} : timing(),
      points: read.points,
      kept_at: Date.now(),
    };
    var sentVersion = Number(form.elements.version.value), edited = editing;
    form.elements.request_id.value = newId();  // the next round is another request
    form.querySelectorAll("input.num").forEach(function (input) {
      input.value = "";
      input.removeAttribute("aria-invalid");
    });
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
        problem = null;
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

  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (!elt || elt.id === "live-refresh") return;
    var form = roundForm(elt);
    var cards = form && form.dataset.dutchPoints !== undefined;
    if (form && cards && (!navigator.onLine || pending.length || editing !== null)) {
      event.preventDefault();
      keepRound(form, false);
    } else if (!navigator.onLine) {
      event.preventDefault();
      B.requestError(B.phrase(form ? "offline_hands" : "offline_other"));
    }
  });
  // Sent, and no answer (the Wi-Fi dropped on the way): kept as it was sent.
  document.addEventListener("htmx:sendError", function (event) {
    var form = roundForm(event.detail.elt);
    if (form && form.dataset.dutchPoints !== undefined) keepRound(form, true);
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
    var run = function () { return sendAll(); };
    var locked = navigator.locks ? navigator.locks.request("blitzboard-rounds-" + GAME, run) : run();
    Promise.resolve(locked).catch(noop).then(function () {
      sending = false;
      return show();
    }).then(function () {
      // A round kept while these were being sent: its own sync found this one busy.
      if (pending.length && !problem && !retryTimer) sync();
    });
  }

  // The keeper's choice after a conflict or a refusal.
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
    } else if (what === "discard-one" && problem) {
      // The refused round is the first: those after it now expect the game one version earlier.
      var gone = problem.id;
      rewrite(function (rows, s) {
        rows.forEach(function (entry) {
          if (entry.id === gone) {
            s["delete"](entry.id);
          } else {
            entry.version -= 1;
            s.put(entry);
          }
        });
      }).then(function () {
        problem = null;
        sync();
        return show();
      }, noop);
    } else if (what === "edit" && problem) {
      var entry = pending.filter(function (e) { return e.id === problem.id; })[0];
      var form = roundForm(document.querySelector("#round-entry form"));
      if (!entry || !form) return;
      editing = entry;
      Object.keys(entry.fields).forEach(function (name) {
        if (form.elements[name]) form.elements[name].value = entry.fields[name];
      });
      form.elements[Object.keys(entry.fields)[0]].dispatchEvent(new Event("input", { bubbles: true }));
      problem = { kind: "editing", id: entry.id, text: B.phrase("editing") };
      panel();
      form.querySelector("input.num").focus();
    }
  });

  // --- when things happen -----------------------------------------------------------------------------
  document.addEventListener("htmx:afterSettle", function (event) {
    if (event.detail.elt && event.detail.elt.id === "game") {
      keepState();
      standings();
      panel();
    }
  });
  window.addEventListener("online", sync);
  window.addEventListener("offline", panel);
  show().then(sync);
})();
