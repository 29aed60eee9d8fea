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
  var source = null, retryDelay = 1000;

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
      var current = document.getElementById("game");
      if (current && Number(event.data) > Number(current.dataset.version)) refresh(current);
    });
    source.addEventListener("error", function () {
      // EventSource retries by itself while the connection is merely dropped; once it gives up
      // (CLOSED, e.g. after an error answer), start over with a growing delay.
      if (source.readyState === EventSource.CLOSED) {
        setTimeout(follow, retryDelay);
        retryDelay = Math.min(retryDelay * 2, 30000);
      }
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
