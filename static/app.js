// Blitzboard's only script. No inline scripts anywhere: it runs under a CSP of script-src 'self'.
// Everything here is an enhancement; the pages work as plain forms without it.
(function () {
  "use strict";
  document.documentElement.classList.remove("no-js");
  document.documentElement.classList.add("js");

  // --- round entry: steppers, "Blitz!", live points -------------------------------------------
  function clampInput(input, value) {
    var min = Number(input.dataset.min || 0), max = Number(input.dataset.max || 99);
    input.value = String(Math.max(min, Math.min(max, value)));
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function updatePoints(form) {
    var dp = Number(form.dataset.dutchPoints), bp = Number(form.dataset.blitzPoints);
    form.querySelectorAll(".player-entry").forEach(function (entry) {
      var id = entry.dataset.playerId;
      var d = entry.querySelector("[name='dutch-" + id + "']").value.trim();
      var b = entry.querySelector("[name='blitz-" + id + "']").value.trim();
      var out = entry.querySelector("[data-points]");
      if (/^\d+$/.test(d) && /^\d+$/.test(b)) {
        var pts = Number(d) * dp + Number(b) * bp;
        out.textContent = (pts >= 0 ? "+" : "") + pts;  // the server's "%+d"
      } else {
        out.textContent = "";
      }
    });
  }

  document.addEventListener("click", function (event) {
    var step = event.target.closest("[data-step]");
    if (step) {
      var input = document.getElementById(step.dataset.target);
      var current = /^\d+$/.test(input.value.trim()) ? Number(input.value) : 0;
      clampInput(input, current + Number(step.dataset.step));
      return;
    }
    var blitz = event.target.closest("[data-blitz]");
    if (blitz) {
      clampInput(document.getElementById(blitz.dataset.blitz), 0);
      return;
    }
    var copy = event.target.closest("[data-copy]");
    if (copy) {
      var field = document.getElementById(copy.dataset.copy);
      field.select();
      var done = function () { copy.textContent = "Copied"; setTimeout(function () { copy.textContent = "Copy"; }, 2000); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); });
      } else {
        document.execCommand("copy");
        done();
      }
    }
  });

  document.addEventListener("input", function (event) {
    var form = event.target.closest(".round-form");
    if (form) updatePoints(form);
  });

  // --- live view: follow the game's version over Server-Sent Events -----------------------------
  var source = null, retryDelay = 1000, pollTimer = null, POLL_MS = 20000;

  // A stream the server refuses (too many from this address, or every slot taken: 429 / 503) or cannot
  // serve leaves EventSource CLOSED. The page then says it is not live and fetches the scoreboard every
  // 20 s, while it keeps asking for a stream again now and then; the first stream message ends polling.
  function notLive(game, on) {
    var note = document.getElementById("not-live");
    if (on && !note && game) {
      note = document.createElement("p");
      note.id = "not-live";
      note.className = "not-live";
      note.setAttribute("role", "status");
      note.textContent = "Not live right now: this page checks for new rounds every 20 seconds.";
      game.insertAdjacentElement("beforebegin", note);
    } else if (!on && note) {
      note.remove();
    }
  }

  function startPolling(game) {
    notLive(game, true);
    if (pollTimer) return;
    pollTimer = setInterval(function () {
      var current = document.getElementById("game");
      if (current && document.visibilityState === "visible") refresh(current);
    }, POLL_MS);
  }

  function stopPolling() {
    if (pollTimer) clearInterval(pollTimer);
    pollTimer = null;
    notLive(null, false);
  }

  function refresh(game) {
    if (window.htmx) {
      htmx.ajax("GET", game.dataset.fragmentUrl, { target: "#game", swap: "outerHTML" });
    } else {
      location.reload();
    }
  }

  function follow() {
    var game = document.getElementById("game");
    if (!game || !game.dataset.liveUrl || !window.EventSource) return;
    if (source) source.close();
    source = new EventSource(game.dataset.liveUrl);
    source.addEventListener("version", function (event) {
      retryDelay = 1000;
      stopPolling();
      var current = document.getElementById("game");
      if (current && Number(event.data) > Number(current.dataset.version)) refresh(current);
    });
    source.addEventListener("error", function () {
      // EventSource retries by itself while the connection is merely dropped; once it gives up
      // (CLOSED, e.g. after an error answer), start over with a growing delay.
      if (source.readyState === EventSource.CLOSED) {
        startPolling(game);
        setTimeout(follow, retryDelay);
        retryDelay = Math.min(retryDelay * 2, 30000);
      }
    });
  }

  // A refresh that failed (the network blinked between the message and the fetch) must not leave the
  // page behind until the next save: reconnect, and the stream's first message brings it up to date.
  function retryLater(event) {
    if (isLiveRefresh(event)) {
      setTimeout(follow, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 30000);
    }
  }
  document.addEventListener("htmx:sendError", retryLater);
  document.addEventListener("htmx:responseError", retryLater);

  // --- a refused or failed action says so -----------------------------------------------------------
  // htmx swaps nothing for a 403 or 5xx answer (see the htmx-config meta), and nothing arrives when the
  // network is down; without this a tap on "Save round" would go unanswered.
  function showProblem(elt, text) {
    var old = document.getElementById("request-error");
    if (old) old.remove();
    var p = document.createElement("p");
    p.id = "request-error";
    p.className = "form-error";
    p.setAttribute("role", "alert");
    p.textContent = text;
    // Beside the form's main button (its last one: "Start game", "Save round", "Delete round 2" ...).
    var buttons = elt.tagName === "FORM" ? elt.querySelectorAll("[type=submit]") : [];
    var actions = buttons.length && (elt.querySelector(".actions") || buttons[buttons.length - 1]);
    if (actions) actions.parentNode.insertBefore(p, actions);
    else elt.insertAdjacentElement(elt.tagName === "FORM" ? "afterbegin" : "afterend", p);
    p.scrollIntoView({ block: "nearest" });
  }

  function isLiveRefresh(event) {
    var target = event.detail && event.detail.target;
    return target && target.id === "game" && target.dataset.liveUrl;
  }

  document.addEventListener("htmx:responseError", function (event) {
    if (isLiveRefresh(event) || !event.detail.elt) return;
    var xhr = event.detail.xhr;
    var page = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
    var detail = page.querySelector(".error-detail");
    showProblem(event.detail.elt, detail ? detail.textContent.trim() :
      "Something went wrong (" + xhr.status + "): nothing was saved. Reload the page and try again.");
  });
  document.addEventListener("htmx:sendError", function (event) {
    if (isLiveRefresh(event) || !event.detail.elt) return;
    showProblem(event.detail.elt, "No connection: nothing was saved. Try again when you're back online.");
  });

  // --- keep the screen awake while a game is open (where the browser can) --------------------------
  var wakeLock = null;
  function stayAwake() {
    if (!document.getElementById("game") || !("wakeLock" in navigator) || document.visibilityState !== "visible") return;
    navigator.wakeLock.request("screen").then(function (lock) { wakeLock = lock; }, function () {});
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      stayAwake();
      if (source && source.readyState === EventSource.CLOSED) follow();
    }
  });
  window.addEventListener("online", follow);

  document.addEventListener("DOMContentLoaded", function () {
    follow();
    stayAwake();
    document.querySelectorAll(".round-form").forEach(updatePoints);
  });
  document.addEventListener("htmx:afterSettle", function () {
    document.querySelectorAll(".round-form").forEach(updatePoints);
  });
})();
