// Blitzboard's script for every page (the scorekeeper's page adds static/entry.js, its round form, and
// static/rounds.js, its rounds kept offline; the service worker is static/sw.js). No inline scripts
// anywhere: it runs under a CSP of script-src 'self'. Everything here is an enhancement; the pages
// work as plain forms without it.
// One file past the ~400 lines the style guide sets, on purpose: every page needs all of it (what only
// the scorekeeper's round form needs is in entry.js, so spectators don't download it), and one
// file is one request on a table's flaky Wi-Fi (served minified, about 5 KiB gzip: app/http/assets.py).
// It is split by job into sections instead: the page's language, copy and share, the live view, failed
// requests, offline (the notice, what rounds.js uses, the service worker), what just happened, the
// scorekeeper's live page, the round timer, and the correction log's local times.
(function () {
  "use strict";
  document.documentElement.classList.remove("no-js");
  document.documentElement.classList.add("js");

  // --- the page's language: what this script says, and its numbers ----------------------------------
  // base.html writes the words in the page's language as JSON into <meta name="js-text"> (data, never
  // run: the CSP allows it); "{name}" in them marks where a value goes. Every page this script runs on
  // comes from base.html, so the words are always there: the catalogs are their only copy. The
  // scorekeeper's page adds rounds.js's words the same way (game.html, <meta name="offline-text">).
  var TEXT = {};
  document.querySelectorAll("meta[name='js-text'], meta[name='offline-text']").forEach(function (meta) {
    try {
      Object.assign(TEXT, JSON.parse(meta.content));
    } catch (e) { /* unreadable: say nothing rather than break */ }
  });
  var LANG = document.documentElement.lang || "en";

  function phrase(key, values) {
    return (TEXT[key] || "").replace(/\{(\w+)\}/g, function (whole, name) {
      return values && Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }

  // Round points with their sign, as the server's `signed` filter writes them: "+12", "−5" (a real
  // minus sign, U+2212), "0"; digits grouped the page language's way.
  var numberFormat = null;
  try { numberFormat = new Intl.NumberFormat(LANG); } catch (e) { /* an unknown tag: plain digits */ }
  function signed(points) {
    var digits = numberFormat ? numberFormat.format(Math.abs(points)) : String(Math.abs(points));
    return (points > 0 ? "+" : points < 0 ? "\u2212" : "") + digits;
  }
  // A total as the server's `num` filter writes it ("−5", "1,234": a real minus, as `signed` has).
  function number(value) {
    return (value < 0 ? "\u2212" : "") + (numberFormat ? numberFormat.format(Math.abs(value)) : String(Math.abs(value)));
  }

  // --- copy and share (the share box, _share.html) -------------------------------------------------
  document.addEventListener("click", function (event) {
    var copy = event.target.closest("[data-copy]");
    if (copy) {
      var field = document.getElementById(copy.dataset.copy);
      field.select();
      var label = copy.dataset.label || (copy.dataset.label = copy.textContent);  // "Copy", in the page's language
      var done = function () { copy.textContent = phrase("copied"); setTimeout(function () { copy.textContent = label; }, 2000); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); });
      } else {
        document.execCommand("copy");
        done();
      }
    }
  });

  // Share: the header's Share link (game.html) goes to the Share box at the bottom of the page, where a
  // page without JavaScript jumps. Here it opens that same box over the page, in the dialog just after
  // it (#share-sheet, _share.html): moved in while the dialog is open, back before it when it closes
  // (✕, Escape, a tap beside it), so the page holds one box. "Share…" hands the view link to the
  // phone's own share sheet where the browser has one; a share cancelled there says nothing, one that
  // fails copies the link instead. Copy stays for every browser.
  var shareSheet = document.getElementById("share-sheet"), shareOpen = document.getElementById("share-open");
  if (shareSheet && shareOpen && shareSheet.showModal) {
    shareOpen.setAttribute("aria-haspopup", "dialog");
    shareOpen.addEventListener("click", function (event) {
      event.preventDefault();
      shareSheet.append(document.getElementById("share"));
      shareSheet.showModal();
    });
    shareSheet.addEventListener("close", function () { shareSheet.before(document.getElementById("share")); });
    shareSheet.addEventListener("click", function (event) {
      if (event.target === shareSheet || event.target.hasAttribute("data-share-close")) shareSheet.close();
    });
  }
  var shareButton = document.querySelector("[data-share]");
  if (shareButton && navigator.share) {
    shareButton.parentNode.hidden = false;
    shareButton.addEventListener("click", function () {
      var link = shareButton.dataset.share;
      navigator.share({ title: shareButton.dataset.title, url: document.getElementById(link).value }).catch(function (error) {
        if (!error || error.name !== "AbortError") document.querySelector("[data-copy='" + link + "']").click();
      });
    });
  }

  // --- live view: htmx's SSE extension follows the game (see game.html); this adds what it lacks ----
  // A stream the server refuses (too many from this address, or every slot taken: 429 / 503) leaves the
  // EventSource CLOSED; the extension then tries again with a growing delay. Meanwhile the page says it
  // is not live and asks for the scoreboard every 20 s (a 204 when nothing is new); an opened stream
  // ends the polling, and its first message brings the page up to date.
  var pollTimer = null, POLL_MS = 20000, retryDelay = 1000;  // base.html's "not_live" says the same 20 s

  function refresh() {
    var live = document.getElementById("live-refresh");
    if (live) htmx.trigger(live, "refresh");
  }

  function notLive(on) {
    var note = document.getElementById("not-live");
    var game = document.getElementById("game");
    if (on && !note && game) {
      note = document.createElement("p");
      note.id = "not-live";
      note.className = "not-live";
      note.setAttribute("role", "status");
      note.textContent = phrase("not_live");
      game.insertAdjacentElement("beforebegin", note);
    } else if (!on && note) {
      note.remove();
    }
  }

  document.addEventListener("htmx:sseError", function (event) {
    if (event.detail.source.readyState !== EventSource.CLOSED) return;  // merely dropped: it reconnects
    notLive(true);
    if (!pollTimer) {
      pollTimer = setInterval(function () {
        if (document.visibilityState === "visible") refresh();
      }, POLL_MS);
    }
  });
  document.addEventListener("htmx:sseOpen", function () {
    if (pollTimer) clearInterval(pollTimer);
    pollTimer = null;
    notLive(false);
  });

  // A refresh that failed (the network blinked between the message and the fetch) must not leave the
  // page behind until the next save: ask again, later and later; one retry waits at a time, and none
  // while polling (which asks anyway). A viewer saves nothing, so a failed refresh shows no message.
  var retryTimer = null;
  function isLiveRefresh(event) {
    return event.detail.elt && event.detail.elt.id === "live-refresh";
  }
  function failed(xhr) {
    return !xhr || !xhr.status || xhr.status >= 400;  // no status: no answer arrived
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    // (this event's elt is the target, #game: the element that asked is the request's)
    var config = event.detail.requestConfig;
    if (config && config.elt && config.elt.id === "live-refresh" && failed(event.detail.xhr)) {
      event.detail.shouldSwap = false;
    }
  });

  // --- a refused or failed action says so -----------------------------------------------------------
  // The app's error answers fill #request-error themselves (HX-Retarget); this covers what they can't:
  // no answer at all (the network is down), or one from something in between (a proxy's 502).
  function requestError(text) {
    var slot = document.getElementById("request-error");
    if (slot) slot.textContent = text;
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!isLiveRefresh(event)) requestError("");
  });
  // A plain form post (one htmx doesn't send: "Make a new edit link") is a navigation on its way: a live
  // refresh meanwhile would ask with the key that post is replacing, be told this phone no longer keeps
  // score, and send the page away from the answer the post is bringing. None is asked until it arrives.
  var leaving = false;
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!event.defaultPrevented && form.tagName === "FORM" && !form.hasAttribute("hx-post")) leaving = true;
  });
  window.addEventListener("pageshow", function () { leaving = false; });  // back from the cache: live again
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (leaving && isLiveRefresh(event)) event.preventDefault();
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr;
    if (isLiveRefresh(event)) {
      if (!failed(xhr)) {
        retryDelay = 1000;
        if (retryTimer) clearTimeout(retryTimer);
        retryTimer = null;
      } else if (!retryTimer && !pollTimer) {
        retryTimer = setTimeout(function () { retryTimer = null; refresh(); }, retryDelay);
        retryDelay = Math.min(retryDelay * 2, 30000);
      }
      return;
    }
    if (!xhr.status) {
      requestError(phrase("offline"));
    } else if (xhr.status >= 400 && !xhr.getResponseHeader("HX-Retarget")) {
      requestError(phrase("failed", { status: xhr.status }));
    }
  });

  // The message stays until the next request, or until it is tapped away.
  document.addEventListener("click", function (event) {
    var slot = event.target.closest("#request-error");
    if (slot) slot.textContent = "";
  });

  // --- offline: the notice, and when the server was last heard from ------------------------
  // A page the service worker served from its copy (no connection: static/sw.js) is marked
  // data-offline-copy, with when its state was kept (ms). It, and any game page that loses the
  // connection, says "Offline — last updated 21:04" until the server answers again; then the live view
  // catches up (a refresh at once; the event stream reconnects by itself).
  var copyAt = Number(document.documentElement.getAttribute("data-offline-copy") || 0);
  var heard = copyAt || Date.now(), contacted = !copyAt;
  function clock(ms) {
    try {
      return new Date(ms).toLocaleTimeString(LANG, { hour: "2-digit", minute: "2-digit" });
    } catch (e) { return new Date(ms).toTimeString().slice(0, 5); }
  }
  function offlineNotice() {
    var live = document.getElementById("live");
    if (!live) return;
    var offline = !navigator.onLine || !contacted;
    document.documentElement.classList.toggle("offline", offline);
    var note = document.getElementById("offline-note");
    if (!offline) {
      if (note) note.remove();
      return;
    }
    if (!note) {
      note = document.createElement("p");
      note.id = "offline-note";
      note.className = "offline-note";
      note.setAttribute("role", "status");
      live.insertAdjacentElement("beforebegin", note);
    }
    note.textContent = phrase("offline_since", { time: clock(heard) });
  }
  function heardNow() {
    heard = Date.now();
    contacted = true;
    offlineNotice();
  }
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.xhr && event.detail.xhr.status) heardNow();
  });
  document.addEventListener("htmx:sseOpen", heardNow);
  window.addEventListener("online", function () {
    offlineNotice();
    refresh();
  });
  window.addEventListener("offline", offlineNotice);
  document.addEventListener("DOMContentLoaded", offlineNotice);

  // What static/rounds.js (the scorekeeper's rounds kept offline) uses of this file.
  // roundStart(): the running round's "Blitz!" in the server's clock and in this page's ({at, local}),
  // or null; endRound(): this page stops its round timer (a round kept offline ended it).
  window.blitzboard = {
    phrase: phrase, signed: signed, number: number, refresh: refresh, requestError: requestError, heardNow: heardNow,
    roundStart: function () { return round.key === null ? null : { at: round.key, local: round.blitzLocal }; },
    endRound: function () {
      stopRound();
      var box = document.getElementById("round-timer");
      if (!box) return;
      box.classList.remove("running", "counting");
      box.querySelector("#countdown").textContent = "";
      box.querySelector("#round-clock").textContent = "";
    },
  };

  // The service worker (static/sw.js, served as /sw.js): pages opened before open again offline.
  // Only where the browser allows one (HTTPS, or localhost); the pages work the same without it.
  if ("serviceWorker" in navigator && window.isSecureContext) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register("/sw.js").catch(function () { /* refused: no offline copies */ });
    });
  }

  // --- keep the screen awake while a game is open (where the browser can) --------------------------
  var wakeLock = null;
  function stayAwake() {
    if (!document.getElementById("game") || !("wakeLock" in navigator) || document.visibilityState !== "visible") return;
    navigator.wakeLock.request("screen").then(function (lock) { wakeLock = lock; }, function () {});
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      stayAwake();
      if (pollTimer) refresh();  // not live: catch up at once rather than at the next poll
    }
  });

  document.addEventListener("DOMContentLoaded", stayAwake);
  document.addEventListener("htmx:afterSettle", showWhatHappened);

  // --- after the scorekeeper's tap: show what just happened -----------------------------------------
  // A refused save: the first field in error (or the form's message) is focused, so it is in view and
  // read out. A save: confirmed at the bottom of the screen; a winning one brings the banner into
  // view; a revert's notice takes the focus. "Edit round N": the correction form, its first field focused.
  // Whether the round just saved was sent from the keyboard (Enter in a field, Enter or Space on Save)
  // rather than by a tap or a click: the last of these in the round form says.
  var savedByKeyboard = false;
  document.addEventListener("keydown", function (event) {
    if ((event.key === "Enter" || event.key === " ") && event.target.closest && event.target.closest(".round-form")) {
      savedByKeyboard = true;
    }
  });
  document.addEventListener("pointerdown", function () { savedByKeyboard = false; });
  function showWhatHappened(event) {
    var config = event.detail.requestConfig;
    var game = document.getElementById("game");
    if (!config || !game || event.detail.elt !== game) return;  // only a swap of the game itself
    if (config.elt && config.elt.id === "live-refresh") return;  // a viewer's refresh moves nothing
    var invalid = game.querySelector("#round-entry [aria-invalid='true']");
    var problem = game.querySelector("#round-error, #game > .form-error");
    var done = document.getElementById("done");
    if (invalid) {
      invalid.focus();
      invalid.scrollIntoView({ block: "center" });
    } else if (problem) {
      problem.setAttribute("tabindex", "-1");
      problem.focus();
      problem.scrollIntoView({ block: "center" });
    } else if (done && document.getElementById("banner")) {
      // The game is decided (or tied): its banner, at the top, is what happened. Otherwise nothing
      // moves: the scorekeeper's thumb stays on the form for the next round, under the confirmation.
      document.getElementById("banner").scrollIntoView({ block: "start" });
    } else if (done && /\/revert$/.test(config.path)) {
      // A Revert from "Changes", far down the page: what it did is said in the notice (pinned to the
      // screen), which takes the focus, with its Undo or Redo next.
      done.setAttribute("tabindex", "-1");
      done.focus();
    } else if (done && savedByKeyboard) {
      // Saved from the keyboard (Enter, or Save reached with Tab): the next round's first field, not
      // sixteen Tabs back to it. A tap leaves the focus alone (no phone keyboard popping up).
      savedByKeyboard = false;
      var next = game.querySelector("#round-entry input.num");
      if (next) next.focus();
    } else if (config.verb === "get" && /[?&]edit=\d+/.test(config.path)) {
      var first = game.querySelector("#round-entry input:not([type=hidden])");
      if (first) {
        first.focus();
        document.getElementById("round-entry").scrollIntoView({ block: "start" });
      }
    }
  }

  // --- the scorekeeper's page follows the game too (another phone that shares editing saves) -------
  // game.html gives the keeper's page the same live refresh as the view page (#live-refresh, with the
  // version it shows and what it has open). Three things differ, all about not losing the keeper's work:
  // - no refresh while one of this page's own requests is under way: its answer brings the game, and
  //   the refresh asked after it sends that version, so a save from here is one swap, not two;
  // - an answer older than what the page shows (a refresh overtaken by a save) is not swapped in;
  // - a form being typed in (a value changed) stays as it is, with what was typed and the caret
  //   (htmx's hx-preserve moves the element itself into the new game). It keeps the version it was
  //   opened at, so its save is refused with "The game changed on another device" and the values
  //   kept: the keeper checks what the other phone changed first. A form merely focused is swapped
  //   for the new one (its values may be stale: a correction of a round since renumbered, rules since
  //   changed), and the focus goes back to the same field of it.
  // A key that stopped working (the game was handed over) comes back as a redirect to the view page.
  var ownRequests = 0, refreshWaiting = false;
  function isKeeperPage() {
    return document.body.classList.contains("keeper");
  }
  function changedByHand(form) {
    return Array.prototype.some.call(form.elements, function (field) {
      if (field.type === "checkbox" || field.type === "radio") return field.checked !== field.defaultChecked;
      if (field.tagName === "SELECT") {
        return Array.prototype.some.call(field.options, function (o) { return o.selected !== o.defaultSelected; });
      }
      if (field.tagName !== "INPUT" && field.tagName !== "TEXTAREA") return false;
      if (field.type === "hidden" || field.type === "submit" || field.type === "button") return false;
      return field.value !== field.defaultValue;
    });
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!isKeeperPage() || !isLiveRefresh(event)) return;
    if (ownRequests > 0) {
      event.preventDefault();
      refreshWaiting = true;
    }
  });
  // Counted from the request's own end (loadend), not htmx:afterRequest: that event is fired on the
  // element that asked, and never reaches the document when an earlier answer swapped it out.
  document.addEventListener("htmx:beforeSend", function (event) {
    if (!isKeeperPage() || isLiveRefresh(event) || !event.detail.xhr) return;
    ownRequests += 1;
    event.detail.xhr.addEventListener("loadend", function () {
      setTimeout(function () {  // after this answer's swap, so a refresh sends the version now shown
        ownRequests = Math.max(0, ownRequests - 1);
        if (ownRequests === 0 && refreshWaiting) {
          refreshWaiting = false;
          refresh();
        }
      }, 0);
    });
  });
  // Focus that a refresh took away (a focused form is swapped for the new one; on WebKit even a kept
  // one loses it) goes back to the same field.
  var focusedId = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var config = event.detail.requestConfig, active = document.activeElement;
    if (!config || !config.elt || config.elt.id !== "live-refresh") return;  // only a refresh's swap
    focusedId = active && active.id && document.getElementById("game") && document.getElementById("game").contains(active)
      ? active.id : null;
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    var config = event.detail.requestConfig, id = focusedId;
    focusedId = null;  // a refresh answered but not swapped in (nothing newer) left one: never for another swap
    if (!id || !isKeeperPage() || !config || !config.elt || config.elt.id !== "live-refresh") return;
    var again = document.getElementById(id);
    if (again && document.activeElement !== again && (document.activeElement === document.body || !document.activeElement)) {
      again.focus({ preventScroll: true });
    }
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var config = event.detail.requestConfig;  // (this event's elt is the target, #game)
    if (!isKeeperPage() || !config || !config.elt || config.elt.id !== "live-refresh") return;
    if (!event.detail.shouldSwap) return;
    var game = document.getElementById("game");
    var answer = document.createElement("template");
    answer.innerHTML = event.detail.serverResponse;
    var fresh = answer.content.querySelector("#game");
    if (!game || !fresh) return;
    if (Number(fresh.dataset.version) <= Number(game.dataset.version)) {
      event.detail.shouldSwap = false;
      return;
    }
    var kept = false;
    game.querySelectorAll("form[action]").forEach(function (form, at) {
      if (!changedByHand(form)) return;
      var twin = Array.prototype.find.call(fresh.querySelectorAll("form[action]"), function (candidate) {
        return candidate.getAttribute("action") === form.getAttribute("action");
      });
      if (!twin) return;  // that form is gone (the game is over, the round was deleted)
      form.id = form.id || "kept-form-" + at;
      twin.id = form.id;
      twin.setAttribute("hx-preserve", "true");
      kept = true;
    });
    // An open <details> (the house rules) stays open.
    game.querySelectorAll("details[open][id]").forEach(function (open) {
      var twin = answer.content.getElementById(open.id);
      if (twin && !twin.open) {
        twin.setAttribute("open", "");
        kept = true;
      }
    });
    if (kept) event.detail.serverResponse = answer.innerHTML;
  });
  // A post from this page says which rounds it shows, at which version: a new round's answer then
  // leaves those out as empty cards marked hx-preserve, which htmx fills with the ones shown here.
  document.addEventListener("htmx:configRequest", function (event) {
    var game = document.getElementById("game");
    if (!isKeeperPage() || !game || event.detail.verb !== "post") return;
    var cards = game.querySelectorAll(".round-card[data-round]");
    if (!cards.length) return;
    event.detail.headers["Blitzboard-Shown"] =
      game.dataset.version + " " + cards[cards.length - 1].dataset.round + "-" + cards[0].dataset.round;
  });

  // --- start signal and round timer (part 4; templates/_timer.html) -----------------------
  // "Blitz!" is a moment in the server's clock (blitz_at, ms since 1970). Each page measures its own
  // clock's offset from the server's when it hears of the start (server_now minus Date.now() on
  // receipt), so every phone says "Blitz!" at the same moment whatever its clock says. A start comes from
  // the event stream on view pages (a "start" event, at once), and from #round-timer's data attributes
  // on every page (the keeper's own "Start round" answer, a page loaded mid-round). The state lives here,
  // outside #game, which htmx swaps whole: each tick finds the current #round-timer.
  var round = { key: null, blitzLocal: 0, said: "", late: false, firedAt: 0, handle: null };

  function clockText(seconds) {
    var h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, s = seconds % 60;
    var mmss = (h ? (m < 10 ? "0" : "") : "") + m + ":" + (s < 10 ? "0" : "") + s;
    return h ? h + ":" + mmss : mmss;
  }

  function buzz(pattern) {
    if (navigator.vibrate) {
      try { navigator.vibrate(pattern); } catch (e) { /* not allowed here (no tap yet, or an iframe) */ }
    }
  }

  function startRound(blitzAt, serverNow) {
    var fresh = round.key !== blitzAt;
    round.key = blitzAt;
    round.blitzLocal = blitzAt - (serverNow - Date.now());
    if (fresh) {
      // A start first heard after its "Blitz!" (a page opened mid-round) just shows the running time.
      round.late = round.blitzLocal <= Date.now();
      round.said = "";
      round.firedAt = 0;
    }
    tickRound();
  }

  function stopRound() {
    round.key = null;
    if (round.handle) clearTimeout(round.handle);
    round.handle = null;
  }

  function tickRound() {
    if (round.handle) clearTimeout(round.handle);
    round.handle = null;
    var box = document.getElementById("round-timer");
    if (!box || round.key === null) return;
    box.hidden = false;
    box.classList.add("running");
    box.dataset.blitzLocal = String(Math.round(round.blitzLocal));  // when this page says "Blitz!" (tests, bench)
    var countdown = box.querySelector("#countdown"), clock = box.querySelector("#round-clock");
    var left = round.blitzLocal - Date.now(), say, wait;
    if (left > 0) {
      say = String(Math.ceil(left / 1000));
      wait = left - (Math.ceil(left / 1000) - 1) * 1000;  // to the next whole second before "Blitz!"
      clock.textContent = "";
    } else {
      var elapsed = -left;
      say = elapsed < 2000 && !round.late ? phrase("blitz") : "";
      clock.textContent = clockText(Math.floor(elapsed / 1000));
      wait = 1000 - (elapsed % 1000);
    }
    if (say !== round.said) {
      // Only the countdown is announced (role=timer, aria-live=assertive); the m:ss clock is not.
      if (say === phrase("blitz")) {
        buzz(400);
        round.firedAt = Date.now();
      } else if (say) {
        buzz(60);
      }
      round.said = say;
    }
    if (countdown.textContent !== say) countdown.textContent = say;
    if (round.firedAt) box.dataset.blitzFired = String(round.firedAt);  // when it said "Blitz!" (tests)
    box.classList.toggle("counting", left > 0);
    round.handle = setTimeout(tickRound, Math.max(15, wait));
  }

  // The page's (or the swapped fragment's) own word on the round: started, or none (a round was saved).
  function readRoundTimer() {
    var box = document.getElementById("round-timer");
    if (!box) return;
    var at = Number(box.dataset.blitzAt || 0);
    if (!at) {
      stopRound();
      return;
    }
    if (at !== round.key) startRound(at, Number(box.dataset.serverNow));
    else tickRound();  // the same round, in the new #round-timer
  }

  // The event stream's "start" (htmx's SSE extension triggers sse:start on #live-start).
  document.addEventListener("sse:start", function (event) {
    var data;
    try { data = JSON.parse(event.detail.data); } catch (e) { return; }
    if (typeof data.blitz_at === "number" && typeof data.server_now === "number") {
      startRound(data.blitz_at, data.server_now);
    }
  });
  document.addEventListener("DOMContentLoaded", readRoundTimer);
  document.addEventListener("htmx:afterSettle", function (event) {
    if (event.detail.elt && event.detail.elt.id === "game") readRoundTimer();
  });
})();

// --- the correction log ("Changes"): local times, and a refused revert in view ----------------------
// The server knows no time zone: it writes UTC ("21:04 UTC") with the ISO time in <time datetime>;
// each phone shows its own local time. A revert that was refused says why beside it: focused, in view.
(function () {
  var lang = document.documentElement.lang || undefined;
  function localTimes(root) {
    root.querySelectorAll(".changes time[datetime]").forEach(function (time) {
      var at = new Date(time.getAttribute("datetime"));
      if (isNaN(at.getTime())) return;
      // In the page's language ("21:04", "9:04 PM"), in the phone's own time zone.
      time.textContent = at.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" });
      time.title = time.getAttribute("datetime");
    });
  }
  document.addEventListener("DOMContentLoaded", function () { localTimes(document); });
  document.addEventListener("htmx:afterSettle", function (event) {
    localTimes(document);
    var config = event.detail.requestConfig;
    var refused = document.querySelector(".changes .change-error");
    if (refused && config && config.verb === "post" && /\/changes\/\d+\/revert$/.test(config.path)) {
      refused.setAttribute("tabindex", "-1");
      refused.focus();
      refused.scrollIntoView({ block: "center" });
    }
  });
})();
