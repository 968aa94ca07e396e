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
// Embeds (?embed=1, templates/base.html): htmx requests and GET forms keep the page embedded.
(function () {
  "use strict";
  if (!document.body || document.body.dataset.embed !== "1") return;
  document.addEventListener("htmx:configRequest", function (ev) {
    if (ev.detail.verb === "get" && !/[?&]embed=1/.test(ev.detail.path)) ev.detail.parameters.embed = "1";
  });
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form || (form.method || "get").toLowerCase() !== "get" || form.querySelector('input[name="embed"]')) return;
    var input = document.createElement("input");
    input.type = "hidden"; input.name = "embed"; input.value = "1";
    form.appendChild(input);
  }, true);
})();
// A "print" button (worksheets): data-print on any button prints the page.
document.addEventListener("click", function (ev) {
  var button = ev.target.closest && ev.target.closest("[data-print]");
  if (button) { ev.preventDefault(); window.print(); }
});
