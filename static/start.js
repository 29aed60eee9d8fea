// The start page's form (templates/_new_game_form.html), loaded by start.html only, after app.js, whose
// helpers it uses (window.blitzboard): Enter from name to name, one more name field made here, and each
// starting score's label naming its player as the name is typed. Kept out of app.js, which every game
// page loads, so a viewer's first visit doesn't carry it.
(function () {
  "use strict";
  var B = window.blitzboard;
  if (!B || !document.getElementById("new-game")) return;

  // The start page: Enter (a keyboard's, or the phone keyboard's "next") on a player's name moves to the
  // next name; on the last one, a name typed makes one more field (as "+ Add player" would, without a
  // request) and an empty one (or the eighth) moves on to "Start game". Enter in another field
  // starts the game, as a form's Enter submits it: never as its first button (✕ or "+ Add player").
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || event.isComposing) return;
    var input = event.target;
    var form = input.closest && input.closest("#new-game");
    if (!form || input.tagName !== "INPUT") return;
    event.preventDefault();
    var start = form.querySelector("button.primary[value='start']");
    if (!/^player-\d+$/.test(input.name)) {
      if (start) start.click();
      return;
    }
    var names = Array.prototype.filter.call(form.querySelectorAll("input"), function (field) {
      return /^player-\d+$/.test(field.name);
    });
    var at = names.indexOf(input);
    if (at < names.length - 1) {
      names[at + 1].focus();
    } else if (input.value.trim() && form.querySelector("button[value='add']")) {
      addNameField(form, input, names.length).focus();
    } else if (start) {
      start.focus();
      start.scrollIntoView({ block: "nearest" });
    }
  });

  // One more name field, made here (no request, so nothing typed meanwhile lands in the wrong name), as the
  // server draws it: a copy of the last one numbered on, and its starting score when those are shown. The
  // next post of the form (a game picked, ✕, Start) sends it like any other; one left empty is no player.
  function addNameField(form, last, index) {
    var renumber = function (text) { return text.replace(/\d+/, String(index + 1)); };
    var row = last.closest("li").cloneNode(true);
    var field = row.querySelector("input");
    var label = row.querySelector("label");
    Array.prototype.forEach.call(row.querySelectorAll(".field-error"), function (error) { error.remove(); });
    ["aria-invalid", "aria-describedby", "autofocus"].forEach(function (name) { field.removeAttribute(name); });
    field.id = field.name = "player-" + index;
    field.value = "";
    label.htmlFor = field.id;
    label.textContent = renumber(label.textContent);
    field.removeAttribute("value");  // the copied name's, which a reset or a page restored from cache would bring back
    var remove = row.querySelector("button[value^='remove-']");
    if (remove) {
      remove.value = "remove-" + index;
      remove.setAttribute("aria-label", renumber(remove.getAttribute("aria-label")));
    }
    last.closest("li").after(row);
    var startField = form.querySelector("#start-" + (index - 1));
    if (startField) {
      var startRow = startField.closest(".inline-field").cloneNode(true);
      var score = startRow.querySelector("input");
      var scoreLabel = startRow.querySelector("label");
      Array.prototype.forEach.call(startRow.querySelectorAll(".field-error"), function (error) { error.remove(); });
      score.removeAttribute("aria-invalid");
      score.id = score.name = "start-" + index;
      score.value = "";
      score.removeAttribute("value");
      scoreLabel.htmlFor = score.id;
      scoreLabel.dataset.nameOf = field.id;
      scoreLabel.dataset.unnamed = renumber(scoreLabel.dataset.unnamed);
      scoreLabel.textContent = B.phrase("starting_score", { name: scoreLabel.dataset.unnamed });
      startField.closest(".inline-field").after(startRow);
    }
    form.querySelector("input[name=player_count]").value = String(index + 1);
    var count = form.querySelector("[data-player-count]");
    if (count) count.textContent = count.textContent.replace(/\d+/, String(index + 1));
    if (index + 1 >= 8) form.querySelector("button[value='add']").remove();
    return field;
  }

  // A starting score's label names the player as their name is typed.
  document.addEventListener("input", function (event) {
    var label = event.target.id && document.querySelector("[data-name-of='" + event.target.id + "']");
    if (label) label.textContent = B.phrase("starting_score", { name: event.target.value.trim() || label.dataset.unnamed });
  });
})();
