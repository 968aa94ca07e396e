// A little keyboard and hover behaviour; every page works without it.
(function () {
  "use strict";
  function typing(el) {
    return el && (el.tagName === "TEXTAREA" || el.tagName === "SELECT" ||
      (el.tagName === "INPUT" && !["checkbox", "radio", "range", "button", "submit"].includes(el.type)) ||
      el.isContentEditable);
  }
  // ArrowLeft / ArrowRight step through any page with rel=prev / rel=next links.
  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey || typing(document.activeElement)) return;
    var rel = ev.key === "ArrowLeft" ? "prev" : ev.key === "ArrowRight" ? "next" : null;
    if (!rel) return;
    var link = document.querySelector('a[rel="' + rel + '"]');
    if (link) { ev.preventDefault(); link.click(); }
  });
  // Hovering (or focusing) a chip lights up its span of the input, and the other way round.
  function clear() {
    document.querySelectorAll(".hl").forEach(function (el) { el.classList.remove("hl"); });
  }
  function lightChip(i) {
    clear();
    document.querySelectorAll('.chip[data-i="' + i + '"]').forEach(function (c) { c.classList.add("hl"); });
    document.querySelectorAll(".seg").forEach(function (s) {
      if ((" " + s.dataset.t + " ").indexOf(" " + i + " ") >= 0) s.classList.add("hl");
    });
  }
  // In the compare view, a chip lights up every chip of every column that shares a character.
  function lightSpan(s, e) {
    clear();
    document.querySelectorAll(".compare-col .chip[data-s]").forEach(function (c) {
      var cs = +c.dataset.s, ce = +c.dataset.e;
      if (cs < e && s < ce) c.classList.add("hl");
    });
  }
  function onEnter(ev) {
    var chip = ev.target.closest && ev.target.closest(".compare-col .chip[data-s]");
    if (chip) {
      if (+chip.dataset.e > +chip.dataset.s) lightSpan(+chip.dataset.s, +chip.dataset.e);
      return;
    }
    chip = ev.target.closest && ev.target.closest(".chip[data-i]");
    if (chip) { lightChip(chip.dataset.i); return; }
    var seg = ev.target.closest && ev.target.closest(".seg");
    if (seg && seg.dataset.t) {
      clear();
      seg.classList.add("hl");
      seg.dataset.t.split(" ").forEach(function (i) {
        document.querySelectorAll('.chip[data-i="' + i + '"]').forEach(function (c) { c.classList.add("hl"); });
      });
    }
  }
  document.addEventListener("mouseover", onEnter);
  document.addEventListener("focusin", onEnter);
  document.addEventListener("mouseout", function (ev) {
    if (ev.target.closest && (ev.target.closest(".chip") || ev.target.closest(".seg"))) clear();
  });
  // A box that scrolls sideways (the Unigram lattice) keeps its current position in view: the
  // element marked .current is scrolled to the middle of the box whenever the box is drawn.
  function keepCurrentInView() {
    document.querySelectorAll(".lattice-scroll").forEach(function (box) {
      var cur = box.querySelector(".pos.current circle");
      if (!cur) return;
      var b = box.getBoundingClientRect(), c = cur.getBoundingClientRect();
      if (c.left < b.left || c.right > b.right) {
        box.scrollLeft += (c.left + c.width / 2) - (b.left + b.width / 2);
      }
    });
  }
  keepCurrentInView();
  document.addEventListener("htmx:afterSettle", keepCurrentInView);
})();
// Compare: a fieldset with data-max refuses a tick past its limit before htmx sends the form
// (the server also disables the other boxes once the limit is reached).
(function () {
  "use strict";
  document.addEventListener("change", function (ev) {
    var box = ev.target;
    if (!box.matches || !box.matches("fieldset[data-max] input[type=checkbox]")) return;
    var set = box.closest("fieldset[data-max]");
    var ticked = set.querySelectorAll("input[type=checkbox]:checked").length;
    var full = ticked >= +set.dataset.max;
    if (ticked > +set.dataset.max) {
      box.checked = false;
      ev.stopImmediatePropagation();   // htmx never sees this change
    }
    set.querySelectorAll("input[type=checkbox]:not(:checked)").forEach(function (b) { b.disabled = full; });
    var note = set.querySelector(".cols-full");
    if (note) note.hidden = !full;
  }, true);
})();
// Copy buttons: <button data-copy="#id" hidden> copies the text of #id. Shown only here, so a
// page without JavaScript never shows a button that does nothing.
(function () {
  "use strict";
  function reveal() {
    document.querySelectorAll("button[data-copy][hidden]").forEach(function (b) { b.hidden = false; });
  }
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.className = "offscreen";
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand("copy");
      document.body.removeChild(area);
      (ok ? resolve : reject)();
    });
  }
  document.addEventListener("click", function (ev) {
    var button = ev.target.closest && ev.target.closest("button[data-copy]");
    if (!button) return;
    var source = document.querySelector(button.dataset.copy);
    if (!source) return;
    var label = button.dataset.label || (button.dataset.label = button.textContent);
    copyText(source.textContent).then(function () {
      button.textContent = "copied ✓";
    }, function () {
      button.textContent = "copy failed";
    }).then(function () {
      setTimeout(function () { button.textContent = label; }, 1500);
    });
  });
  reveal();
  document.addEventListener("htmx:afterSettle", reveal);
})();
// Compact chips (compare view): clicking one, or Enter on it, opens its vocabulary entry.
(function () {
  "use strict";
  function open(ev) {
    var chip = ev.target.closest && ev.target.closest(".chips[data-vocab] li[data-id]");
    if (!chip || (ev.type === "keydown" && ev.key !== "Enter")) return;
    window.location.href = chip.closest(".chips").dataset.vocab + "&id=" + chip.dataset.id;
  }
  document.addEventListener("click", open);
  document.addEventListener("keydown", open);
})();
