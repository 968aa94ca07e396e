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

// Tokenizer upload forms (partials/tokenizer_upload.html): drop a file on the form, show only the
// options the file's format needs (sniffed from its first bytes, as the server sniffs it), and
// come back to the page as it is now. Without this script every option shows and the form posts.
(function () {
  "use strict";
  var LABELS = {
    hf_json: "a Hugging Face tokenizer.json", tiktoken: "a tiktoken ranks file: choose its pattern and special tokens below",
    sentencepiece: "a sentencepiece .model", vocab_txt: "a WordPiece vocab.txt: cased or uncased below",
    vocab_merges: "a .zip of BPE's vocab.json + merges.txt"
  };
  function sniff(bytes) {
    var i = 0;
    while (i < bytes.length && (bytes[i] === 32 || bytes[i] === 9 || bytes[i] === 10 || bytes[i] === 13)) i++;
    if (bytes[i] === 0x7b) return "hf_json";
    if (bytes[0] === 0x50 && bytes[1] === 0x4b) return "vocab_merges";   // "PK": a zip
    var lines = new TextDecoder("utf-8").decode(bytes).split(/\r?\n/);
    if (lines.length > 1) lines.pop();               // the last line may be cut short
    lines = lines.filter(Boolean).slice(0, 20);
    if (lines.length && lines.every(function (l) { return /^[A-Za-z0-9+\/]+={0,2} \d+$/.test(l); })) return "tiktoken";
    if (bytes[0] === 0x0a) return "sentencepiece";
    try {                                            // text (a cut-off last character is fine)
      new TextDecoder("utf-8", {fatal: true}).decode(bytes, {stream: true});
    } catch (e) { return null; }
    return "vocab_txt";
  }
  function head(file) {
    var start = file.slice(0, 4096);
    return start.arrayBuffer().then(function (buf) {
      var bytes = new Uint8Array(buf);
      if (!(bytes[0] === 0x1f && bytes[1] === 0x8b) || typeof DecompressionStream === "undefined") return bytes;
      var reader = file.stream().pipeThrough(new DecompressionStream("gzip")).getReader();
      return reader.read().then(function (r) { reader.cancel(); return (r.value || new Uint8Array()).slice(0, 4096); });
    });
  }
  function show(form, format) {
    form.querySelectorAll(".upload-options").forEach(function (fs) {
      fs.hidden = !(fs.dataset.for === format || fs.hasAttribute("data-show"));
    });
  }
  function chosen(form) {
    var input = form.querySelector('input[type="file"]');
    var file = input.files && input.files[0];
    var forced = form.querySelector('select[name="format"]').value;
    var note = form.querySelector(".sniffed");
    if (forced) { show(form, forced); return; }
    if (!file) { show(form, null); note.textContent = ""; return; }
    head(file).then(function (bytes) {
      var format = sniff(bytes);
      show(form, format);
      note.textContent = format ? file.name + " looks like " + LABELS[format] + "."
        : file.name + " does not look like a tokenizer file this app reads (see the list above).";
    }, function () { show(form, null); });
  }
  function setUp(form) {
    if (form.dataset.ready) return;
    form.dataset.ready = "1";
    show(form, form.querySelector('select[name="format"]').value || null);
    form.querySelector('input[type="file"]').addEventListener("change", function () { chosen(form); });
    form.querySelector('select[name="format"]').addEventListener("change", function () { chosen(form); });
    var zone = form.querySelector(".drop-zone");
    ["dragenter", "dragover"].forEach(function (type) {
      zone.addEventListener(type, function (ev) { ev.preventDefault(); zone.classList.add("dragover"); });
    });
    ["dragleave", "drop"].forEach(function (type) {
      zone.addEventListener(type, function () { zone.classList.remove("dragover"); });
    });
    zone.addEventListener("drop", function (ev) {
      ev.preventDefault();
      if (!ev.dataTransfer || !ev.dataTransfer.files.length) return;
      var input = form.querySelector('input[type="file"]');
      input.files = ev.dataTransfer.files;
      chosen(form);
    });
    // htmx may have changed the page's URL since it was rendered: come back to the page as it is
    form.addEventListener("submit", function () {
      var next = form.querySelector('input[name="next"]');
      if (location.search && next.value.split("?")[0] === location.pathname) next.value = location.pathname + location.search;
    });
  }
  function init() { document.querySelectorAll("form.tok-upload").forEach(setUp); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();
})();

// A training that runs in the job pool shows its progress below the form; on a phone the form
// fills the first screen, so bring the progress into view once, when the page opens with it.
(function () {
  "use strict";
  function init() {
    var panel = document.querySelector('[data-testid="training"], [data-testid="progress"]');
    if (!panel || window.innerWidth > 700) return;
    var box = panel.getBoundingClientRect();
    if (box.top > window.innerHeight - 80) panel.scrollIntoView({block: "center"});
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();
})();
