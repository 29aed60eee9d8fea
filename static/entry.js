// Round entry: the scorekeeper's round form (templates/_round_form.html, _hand_form.html). Only the
// scorekeeper's page loads it (game.html, after app.js, whose number format it uses through
// window.blitzboard); the view page, which spectators load, has no form and skips these bytes. The
// service worker keeps it for offline use with the rest of the shell (app/routes/offline.py).
// Everything here is an enhancement: the form works as a plain form without it. No inline scripts:
// it runs under a CSP of script-src 'self', like app.js.
//
// The jobs: the − + steppers (a choice this phone remembers), "Blitz!", each player's points as
// typed, moving on through the fields (Enter; a typed count that cannot grow; Backspace in an empty
// field goes back), and the one-tap row of values under the player being entered (the Blitz cards
// left, or a Dutch hand up to 25): a tap that sets the value and moves on, so no count ever needs an
// Enter, which an iPhone's number pad does not have.
(function () {
  "use strict";
  var app = window.blitzboard || {};
  var signed = app.signed || function (points) { return (points > 0 ? "+" : "") + points; };

  function clampInput(input, value) {
    var min = Number(input.dataset.min || 0), max = Number(input.dataset.max || 99);
    input.value = String(Math.max(min, Math.min(max, value)));
    delete input.dataset.fromPhone;  // set by the keeper (− +, a chip): a later row from the phone leaves it
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function updatePoints(form) {
    // Card counts only: a hand's points in Dutch or 31 depend on everyone's hands (the server says).
    if (!form.dataset.dutchPoints) return;
    var dp = Number(form.dataset.dutchPoints), bp = Number(form.dataset.blitzPoints);
    form.querySelectorAll(".player-entry").forEach(function (entry) {
      var id = entry.dataset.playerId;
      var d = entry.querySelector("[name='dutch-" + id + "']").value.trim();
      var b = entry.querySelector("[name='blitz-" + id + "']").value.trim();
      var out = entry.querySelector("[data-points]");
      var dutchMax = Number(entry.querySelector("[name='dutch-" + id + "']").dataset.max || 40);
      var blitzMax = Number(entry.querySelector("[name='blitz-" + id + "']").dataset.max || 10);
      // Only a count the rules allow gets a preview: 41 Dutch cards scores nothing, it is a mistake.
      if (/^\d+$/.test(d) && /^\d+$/.test(b) && Number(d) <= dutchMax && Number(b) <= blitzMax &&
          Number(d) + Number(b) <= dutchMax) {
        var pts = Number(d) * dp + Number(b) * bp;
        out.textContent = signed(pts);
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
      var left = document.getElementById(blitz.dataset.blitz);
      clampInput(left, 0);
      moveOn(left);  // "Blitz!" is that player's last count: on to the next one
      return;
    }
    var quick = event.target.closest("[data-value]");
    if (quick && quick.closest(".quick")) {
      var target = document.getElementById(quick.closest(".quick").dataset.for);
      if (!target) return;
      clampInput(target, Number(quick.dataset.value));
      moveOn(target);  // the value is whole: on to the next player (a Dutch count typed before it is too)
      return;
    }
    var choice = event.target.closest("[data-steppers]");
    if (choice) steppers(!document.documentElement.classList.contains("steppers"));
  });

  // The − + buttons, for those who prefer them to typing: a choice this phone remembers.
  var STEPPERS = "blitzboard.steppers";
  function steppers(on) {
    document.documentElement.classList.toggle("steppers", on);
    steppersChoiceShown();
    try { localStorage.setItem(STEPPERS, on ? "1" : ""); } catch (e) { /* private mode: for this page only */ }
  }
  function steppersChoiceShown() {
    var on = document.documentElement.classList.contains("steppers");
    document.querySelectorAll("[data-steppers]").forEach(function (b) { b.setAttribute("aria-pressed", String(on)); });
  }
  try {
    if (localStorage.getItem(STEPPERS) === "1") document.documentElement.classList.add("steppers");
  } catch (e) { /* private mode: off */ }

  function fieldsOf(form) {
    return Array.prototype.slice.call(form.querySelectorAll("input.num"));
  }

  // The next field of the round (or, after the last, the Save button).
  function moveOn(input) {
    var form = input.closest(".round-form");
    if (!form) return;
    var fields = fieldsOf(form);
    var next = fields[fields.indexOf(input) + 1];
    if (next) {
      next.focus();
      next.select();
      keepClear(next, form);
    } else {
      form.querySelector("button[type=submit]").focus();
    }
  }

  // A field the cursor moved to may sit under the Save bar pinned to the bottom (a long form: 8
  // players): focus() scrolls only when the field is off screen, so scroll it clear of the bar.
  function keepClear(field, form) {
    var bar = form.querySelector(".actions");
    if (!bar) return;
    var below = field.getBoundingClientRect().bottom - bar.getBoundingClientRect().top + 8;
    if (below > 0) window.scrollBy(0, below);
  }

  // Enter (a hardware keyboard, or the phone keyboard's "next") moves to the next field of the round;
  // only the last field's Enter saves, so a half-filled round is never sent by accident. Backspace in
  // an empty field goes back to the one before, its digits kept and the cursor after them: a value
  // that moved on too soon is finished there.
  document.addEventListener("keydown", function (event) {
    if (event.isComposing || (event.key !== "Enter" && event.key !== "Backspace")) return;
    var form = event.target.closest(".round-form");
    if (!form || event.target.tagName !== "INPUT") return;
    var fields = fieldsOf(form);
    var at = fields.indexOf(event.target);
    if (event.key === "Enter") {
      if (at >= 0 && at < fields.length - 1) {
        event.preventDefault();
        moveOn(event.target);
      }
    } else if (at > 0 && event.target.value === "") {
      event.preventDefault();
      var back = fields[at - 1], end = back.value.length;
      caretKept = back;  // not selected whole, as a tapped field is: the digit typed next is added
      back.focus();
      back.setSelectionRange(end, end);
    }
  });

  // A typed count that cannot grow any more (a Dutch 0, 5–9 or two digits; a Blitz 0, 2–9 or 10: no
  // digit more fits under the field's maximum) moves on by itself. Only typing does: not a deletion,
  // not the − + buttons. The counts that could still grow (a Blitz 1, a Dutch 3, a hand of 12) are
  // ended by a tap in the row of values (below), or by Enter or a tap on the next field.
  // A 31 hand of 30 may still become 30½ (data-half: the house rule), so it waits like a 3.
  function complete(input) {
    var v = input.value.trim();
    if (input.dataset.half === "1" && v === "30") return false;
    return /^\d+$/.test(v) && (v.charAt(0) === "0" || Number(v) * 10 > Number(input.dataset.max || 99));
  }
  document.addEventListener("input", function (event) {
    var input = event.target;
    if (input.classList && input.classList.contains("num") && event.inputType && event.inputType.indexOf("insert") === 0 &&
        complete(input)) {
      moveOn(input);
    }
  });

  // The row of values: under the player whose count is being entered, one button per value of their
  // field marked data-quick ("up to N"): the Blitz cards left (0 to the pile's size), or a Dutch hand
  // up to 25 (a larger hand moves on as typed: it cannot grow past 250). A tap sets that value and
  // moves on: the Blitz count ends the player's Dutch count typed before it too, so "Dee 3/8" is the
  // "3" typed and a tap on 8. Out of the Tab order (Tab goes through the fields as before, and the
  // fields stay what a screen reader fills in); inside the player's fieldset, so heard with their name.
  // A tap keeps the cursor where it is (no keyboard closing and opening again) until the value moves it.
  function showQuick(input) {
    var entry = input.closest(".player-entry"), form = input.closest(".round-form");
    var target = entry && entry.querySelector("input[data-quick]");
    form.querySelectorAll(".quick").forEach(function (row) { if (!target || row.dataset.for !== target.id) row.remove(); });
    if (!target || entry.querySelector(".quick")) return;
    var row = document.createElement("div");
    row.className = "quick";
    row.dataset.for = target.id;
    for (var v = 0; v <= Number(target.dataset.quick); v++) {
      var button = document.createElement("button");
      button.type = "button";
      button.tabIndex = -1;
      button.dataset.value = String(v);
      button.textContent = String(v);
      row.append(button);
    }
    entry.append(row);
  }
  document.addEventListener("mousedown", function (event) {
    if (event.target.closest && event.target.closest(".quick")) event.preventDefault();
  });

  // A tapped count is selected whole, so the digit typed next replaces it.
  var caretKept = null;
  document.addEventListener("focusin", function (event) {
    var input = event.target;
    if (input.classList && input.classList.contains("num") && input.closest(".round-form")) {
      showQuick(input);
      if (caretKept === input) {
        caretKept = null;
        return;
      }
      var before = input.value;  // after the tap's own caret placement; not if a digit came first
      setTimeout(function () { if (document.activeElement === input && input.value === before) input.select(); }, 0);
    }
  });

  document.addEventListener("input", function (event) {
    var form = event.target.closest && event.target.closest(".round-form");
    if (form) updatePoints(form);
    // The next round is being typed: the last one's confirmation steps aside (its Undo is still
    // "Undo last round" in the history), so it covers none of the rows at the bottom of the screen.
    var done = form && document.getElementById("done");
    if (done) done.remove();
  });

  function shown() {
    steppersChoiceShown();
    document.querySelectorAll(".round-form").forEach(updatePoints);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", shown);
  else shown();
  document.addEventListener("htmx:afterSettle", shown);
  // A row sent from a player's own phone (app/games/seats.py; the "draft" event, templates/game.html): the
  // draft is fetched and each row filled into the new round's form, in a field still empty or filled from
  // a phone before; never over what the scorekeeper typed. The row is marked as the player's. A correction's
  // form, or one for another round, takes nothing.
  // "Check the piles": opening it goes straight to its field, one tap fewer (toggle doesn't bubble).
  document.addEventListener("toggle", function (event) {
    var box = event.target;
    if (box.matches && box.matches("details.pile-check") && box.open) {
      var field = box.querySelector("input");
      if (field) field.focus();
    }
  }, true);

  document.addEventListener("sse:draft", function () {
    var live = document.getElementById("live-draft");
    if (!live) return;
    fetch(live.dataset.draftUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (draft) {
        var form = document.querySelector("#round-entry form[data-draft-round]");
        if (!draft || !form || Number(form.dataset.draftRound) !== draft.round) return;
        draft.rows.forEach(function (row) { fillRow(form, row); });
        updatePoints(form);
      })
      .catch(function () { /* the next row, or the save, brings it */ });
  });

  // A count the scorekeeper types is theirs: a later row from the player's phone leaves it alone.
  document.addEventListener("input", function (event) {
    if (event.isTrusted && event.target.dataset) delete event.target.dataset.fromPhone;
  });

  function fillRow(form, row) {
    var entry = form.querySelector(".player-entry[data-player-id='" + row.player_id + "']");
    if (!entry || entry.tagName !== "FIELDSET") return;
    var values = row.hand === null ? { dutch: row.dutch, blitz: row.blitz } : { hand: row.hand };
    var filled = false;
    Object.keys(values).forEach(function (name) {
      var input = form.querySelector("[name='" + name + "-" + row.player_id + "']");
      if (!input || values[name] === null || (input.value !== "" && input.dataset.fromPhone !== "1")) return;
      input.value = String(values[name]);
      input.dataset.fromPhone = "1";
      filled = true;
    });
    if (row.called) {
      var caller = form.querySelector("input[name=caller][value='" + row.player_id + "']");
      if (caller && !form.querySelector("input[name=caller]:checked")) caller.checked = true;
    }
    if (!filled || entry.classList.contains("from-phone")) return;
    entry.classList.add("from-phone");
    var mark = document.createElement("span");
    mark.className = "phone-mark";
    mark.textContent = app.phrase ? app.phrase("from_phone") : "";
    var legend = entry.querySelector("legend");
    if (legend) legend.insertBefore(mark, legend.querySelector("output"));
  }
})();
