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
  // A select with data-shows="SELECTOR" data-shows-when="VALUE" shows that field only for
  // that value (with data-shows-disables, its inputs are disabled while hidden); a range with
  // data-sets="NAME" copies its value into its form's NAME field. (Here, not inline: the
  // Content-Security-Policy allows only the app's own scripts.)
  document.addEventListener("change", function (ev) {
    var sel = ev.target.closest && ev.target.closest("select[data-shows]");
    if (!sel) return;
    var on = sel.value === sel.dataset.showsWhen;
    document.querySelectorAll(sel.dataset.shows).forEach(function (field) {
      field.hidden = !on;
      if (!sel.hasAttribute("data-shows-disables")) return;
      field.querySelectorAll("input, textarea, select").forEach(function (el) { el.disabled = !on; });
    });
  });
  document.addEventListener("input", function (ev) {
    var range = ev.target.closest && ev.target.closest("input[data-sets]");
    if (range && range.form) range.form.elements[range.dataset.sets].value = range.value;
  });
})();
