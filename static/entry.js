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
      input.value = app.number ? app.number(values[name]) : String(values[name]);  // 30½ as the page writes it
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

// Count a hand: beside each hand field of Dutch and 31 (_hand_form.html), a button (hidden until this
// script shows it: without JavaScript the form is as it was) opens a picker under that player: the
// cards are tapped, kept as chips that a tap takes away again, added up by the game's values, and
// "Use N" fills the hand field (an input event: the row's points follow) and closes it.
// The values, from the rules (docs/rules.md): Dutch (kind "lowest") counts every card held, however
// many (a penalty card makes five): a red king 0, a black king 13, a queen 12, a jack 11, the others
// their face value, an ace 1. 31 (kind "lives") counts three cards, the best suit's sum: an ace 11, a
// face card 10, the others their face value; under the house rule thirty_and_a_half three of a rank
// are 30½. A card is a string, its rank then its suit: "K♥", "10♣", "7" (a suit Dutch ignores).
(function () {
  "use strict";
  var app = window.blitzboard = window.blitzboard || {};
  var RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  var SUITS = ["♥", "♦", "♣", "♠"];
  var RED = "♥♦";

  function rank(card) { return card.replace(/[♥♦♣♠]$/, ""); }
  function suit(card) { var s = card.slice(-1); return SUITS.indexOf(s) >= 0 ? s : ""; }
  function red(card) { return suit(card) !== "" && RED.indexOf(suit(card)) >= 0; }

  function dutchValue(card) {
    var r = rank(card);
    if (r === "K") return red(card) ? 0 : 13;
    if (r === "Q") return 12;
    if (r === "J") return 11;
    return r === "A" ? 1 : Number(r);
  }
  function thirtyOneValue(card) {
    var r = rank(card);
    if (r === "A") return 11;
    return r === "K" || r === "Q" || r === "J" ? 10 : Number(r);
  }

  // A hand's value: kind "lowest" (Dutch) or "lives" (31); half: 31's house rule thirty_and_a_half.
  function handValue(kind, cards, half) {
    if (kind === "lowest") return cards.reduce(function (sum, card) { return sum + dutchValue(card); }, 0);
    if (half && cards.length === 3 && cards.every(function (card) { return rank(card) === rank(cards[0]); })) return 30.5;
    var best = 0;
    SUITS.forEach(function (s) {
      var sum = cards.reduce(function (total, card) { return total + (suit(card) === s ? thirtyOneValue(card) : 0); }, 0);
      best = Math.max(best, sum);
    });
    return best;
  }
  app.cards = { value: handValue };

  function phrase(key, values) { return app.phrase ? app.phrase(key, values) : ""; }
  function number(value) { return app.number ? app.number(value) : String(value); }
  // The page's words, read when a picker opens (app.js has read the page by then). A rank is a letter
  // of its own in each language ("A", "J", "Q", "K": Т В Д К, A B D K); its button is heard by name.
  function words() {
    return {
      letters: { A: phrase("rank_A"), J: phrase("rank_J"), Q: phrase("rank_Q"), K: phrase("rank_K") },
      names: { A: phrase("card_ace"), J: phrase("card_jack"), Q: phrase("card_queen"), K: phrase("card_king") },
      suits: { "♥": phrase("suit_hearts"), "♦": phrase("suit_diamonds"), "♣": phrase("suit_clubs"), "♠": phrase("suit_spades") },
      hint: { lowest: phrase("card_hint"), lives: phrase("card_hint_31") }
    };
  }
  var said = null;
  function rankShown(r) { return (said && said.letters[r]) || r; }
  function cardShown(card, kind) {
    var s = suit(card);
    if (kind === "lowest") return rank(card) === "K" ? rankShown("K") + (red(card) ? "♥♦" : "♣♠") : rankShown(rank(card));
    return rankShown(rank(card)) + s;
  }

  function button(text, label, extra) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    if (label) b.setAttribute("aria-label", label);
    if (extra) Object.keys(extra).forEach(function (k) { b.dataset[k] = extra[k]; });
    return b;
  }

  function close(picker, field) {
    picker.remove();
    var opener = document.querySelector("[data-count-cards='" + field.id + "']");
    if (opener) opener.setAttribute("aria-expanded", "false");
    field.focus();
  }

  function open(opener) {
    var field = document.getElementById(opener.dataset.countCards);
    var form = field && field.closest(".hand-form");
    if (!form) return;
    document.querySelectorAll(".card-picker").forEach(function (other) { other.remove(); });
    document.querySelectorAll("[data-count-cards]").forEach(function (b) { b.setAttribute("aria-expanded", "false"); });
    said = words();
    var kind = form.dataset.kind, half = field.dataset.half === "1", most = kind === "lives" ? 3 : 40;
    var max = Number(field.dataset.max || 250);
    var cards = [], chosenSuit = "♥";
    var picker = document.createElement("div");
    picker.className = "card-picker";
    picker.id = "picker-" + field.id;
    picker.setAttribute("role", "group");
    var title = document.createElement("p");
    title.className = "picker-title";
    title.id = picker.id + "-title";
    title.textContent = phrase("card_title", { name: opener.dataset.name });
    picker.setAttribute("aria-labelledby", title.id);
    var hint = document.createElement("p");
    hint.className = "picker-hint muted";
    hint.textContent = said.hint[kind] || "";
    picker.append(title, hint);

    var suits = null;
    if (kind === "lives") {
      suits = document.createElement("div");
      suits.className = "picker-suits";
      suits.setAttribute("role", "group");
      suits.setAttribute("aria-label", phrase("card_suit"));
      SUITS.forEach(function (s) {
        var b = button(s, said.suits[s], { suit: s });
        if (RED.indexOf(s) >= 0) b.classList.add("red");
        suits.append(b);
      });
      picker.append(suits);
    }
    var ranks = document.createElement("div");
    ranks.className = "picker-ranks";
    RANKS.forEach(function (r) {
      if (kind === "lowest" && r === "K") {
        ranks.append(button(rankShown("K") + "♥♦", phrase("card_red_king"), { card: "K♥" }));
        ranks.append(button(rankShown("K") + "♣♠", phrase("card_black_king"), { card: "K♠" }));
        return;
      }
      ranks.append(button(rankShown(r), said.names[r] || "", { rank: r }));
    });
    ranks.querySelectorAll("[data-card='K♥']").forEach(function (b) { b.classList.add("red"); });
    var chips = document.createElement("div");
    chips.className = "picker-chips";
    chips.setAttribute("role", "group");
    chips.setAttribute("aria-label", phrase("card_chosen"));
    var total = document.createElement("p");
    total.className = "picker-total";
    total.setAttribute("aria-live", "polite");
    var actions = document.createElement("div");
    actions.className = "picker-actions";
    var use = button("", "", { use: "" });
    use.className = "primary";
    var cancel = button(phrase("cancel_edit"), "", { cancel: "" });
    cancel.className = "secondary";
    actions.append(use, cancel);
    picker.append(ranks, chips, total, actions);

    // A card the deck has no more of: in 31 each card once (its rank in the suit chosen); in Dutch, whose
    // cards carry no suit here, a rank four times and a king of each colour twice.
    function spent(b) {
      var card = b.dataset.card || (b.dataset.rank + (kind === "lives" ? chosenSuit : ""));
      var copies = kind === "lives" ? 1 : (b.dataset.card ? 2 : 4);
      return cards.filter(function (c) { return c === card; }).length >= copies;
    }

    function shown() {
      var value = handValue(kind, cards, half);
      chips.textContent = "";
      cards.forEach(function (card, at) {
        var text = cardShown(card, kind);
        var chip = button(text + " ×", phrase("card_remove", { card: text }), { at: String(at) });
        chip.className = "chip" + (red(card) ? " red" : "");
        chips.append(chip);
      });
      total.textContent = phrase("card_total", { n: number(value) });
      use.textContent = phrase("card_use", { n: number(value) });
      use.disabled = cards.length === 0 || value > max;
      ranks.querySelectorAll("button").forEach(function (b) { b.disabled = cards.length >= most || spent(b); });
      if (suits) suits.querySelectorAll("button").forEach(function (b) { b.setAttribute("aria-pressed", String(b.dataset.suit === chosenSuit)); });
    }

    picker.addEventListener("click", function (event) {
      var b = event.target.closest("button");
      if (!b) return;
      if (b.dataset.suit) chosenSuit = b.dataset.suit;
      else if (b.dataset.card) cards.push(b.dataset.card);
      else if (b.dataset.rank) cards.push(b.dataset.rank + (kind === "lives" ? chosenSuit : ""));
      else if (b.dataset.at) {
        cards.splice(Number(b.dataset.at), 1);
        shown();
        (chips.querySelector("button") || ranks.querySelector("button")).focus();  // the chip tapped is gone
        return;
      } else if (b.dataset.use !== undefined) {
        field.value = number(handValue(kind, cards, half));
        delete field.dataset.fromPhone;  // the scorekeeper's count now: a later row from the phone leaves it
        field.dispatchEvent(new Event("input", { bubbles: true }));
        close(picker, field);
        return;
      } else if (b.dataset.cancel !== undefined) {
        close(picker, field);
        return;
      }
      shown();
      if (b.disabled) use.focus();  // the hand is full (31's three cards): its rank buttons are off
    });
    picker.addEventListener("keydown", function (event) {
      if (event.key === "Escape") {
        event.preventDefault();
        close(picker, field);
      }
    });
    shown();
    var counts = opener.closest(".counts");
    counts.after(picker);
    opener.setAttribute("aria-expanded", "true");
    (suits || ranks).querySelector("button").focus();
  }

  document.addEventListener("click", function (event) {
    var opener = event.target.closest && event.target.closest("[data-count-cards]");
    if (!opener) return;
    // Its own picker open: the button closes it, as aria-expanded says (the cards tapped go with it).
    var field = document.getElementById(opener.dataset.countCards);
    var picker = opener.getAttribute("aria-expanded") === "true" && opener.closest(".counts").nextElementSibling;
    if (field && picker && picker.classList.contains("card-picker")) close(picker, field);
    else open(opener);
  });

  // The buttons are hidden in the page as sent: they work only with this script.
  function reveal() {
    document.querySelectorAll(".hand-form").forEach(function (form) {
      if (form.querySelector("[data-count-cards]")) form.classList.add("can-count");
    });
    document.querySelectorAll("[data-count-cards][hidden]").forEach(function (b) { b.hidden = false; });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", reveal);
  else reveal();
  document.addEventListener("htmx:afterSettle", reveal);
})();
