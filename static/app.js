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
  // Hovering (or focusing) a chip lights up its span of the input, and the other way round. A
  // chip of the visualiser's slim list (ol.slim) is known by its place in the list; the others
  // by data-i. The input's pieces (.mirror > span) name the tokens covering them in data-t.
  function clear() {
    document.querySelectorAll(".hl").forEach(function (el) { el.classList.remove("hl"); });
  }
  function slimIndex(chip) { return Array.prototype.indexOf.call(chip.parentElement.children, chip); }
  function chipsAt(i) {
    var out = Array.prototype.slice.call(document.querySelectorAll('.chip[data-i="' + i + '"]'));
    document.querySelectorAll("ol.chips.slim").forEach(function (ol) {
      if (ol.children[i]) out.push(ol.children[i]);
    });
    return out;
  }
  function lightChip(i) {
    clear();
    chipsAt(i).forEach(function (c) { c.classList.add("hl"); });
    document.querySelectorAll(".seg[data-t], .mirror > [data-t]").forEach(function (s) {
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
    chip = ev.target.closest && ev.target.closest(".chip[data-i], ol.chips.slim > .chip");
    if (chip) { lightChip(chip.dataset.i || slimIndex(chip)); return; }
    var seg = ev.target.closest && ev.target.closest(".seg[data-t], .mirror > [data-t]");
    if (seg && seg.dataset.t) {
      clear();
      seg.classList.add("hl");
      seg.dataset.t.split(" ").forEach(function (i) {
        chipsAt(i).forEach(function (c) { c.classList.add("hl"); });
      });
    }
  }
  document.addEventListener("mouseover", onEnter);
  document.addEventListener("focusin", onEnter);
  document.addEventListener("mouseout", function (ev) {
    if (ev.target.closest && (ev.target.closest(".chip") || ev.target.closest(".seg, .mirror > [data-t]"))) clear();
  });
  // A select with data-shows="SELECTOR" data-shows-when="VALUE" shows that field only for
  // that value (a field's own data-when="V1 V2" names the values it applies to instead; with
  // data-shows-disables, its inputs are disabled while hidden); a range with data-sets="NAME"
  // copies its value into its form's NAME field. (Here, not inline: the
  // Content-Security-Policy allows only the app's own scripts.)
  document.addEventListener("change", function (ev) {
    var sel = ev.target.closest && ev.target.closest("select[data-shows]");
    if (!sel) return;
    document.querySelectorAll(sel.dataset.shows).forEach(function (field) {
      var when = field.dataset.when ? field.dataset.when.split(" ") : [sel.dataset.showsWhen];
      var on = when.indexOf(sel.value) >= 0;
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
  // A code panel (templates/macros/panels.html code_panel) scrolls itself, not the page, so
  // that its highlighted line sits in the middle of the panel after every step or jump.
  function keepCurrentLineInView() {
    document.querySelectorAll(".code-scroll").forEach(function (box) {
      var line = box.querySelector("li.current");
      if (!line || box.scrollHeight <= box.clientHeight) return;
      var b = box.getBoundingClientRect(), l = line.getBoundingClientRect();
      box.scrollTop += (l.top + l.height / 2) - (b.top + b.height / 2);
    });
  }
  function keepBothInView() { keepCurrentInView(); keepCurrentLineInView(); }
  keepBothInView();
  document.addEventListener("htmx:afterSettle", keepBothInView);
  document.addEventListener("toggle", keepCurrentLineInView, true);  // a folded panel opened
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
    document.querySelectorAll("button[data-copy][hidden], button[data-copy-post][hidden]")
      .forEach(function (b) { b.hidden = false; });
  }
  // data-copy-post="URL": what URL answers for the button's form (the visualiser's tokens and
  // JSON are fetched when asked for, not carried in every answer)
  function fetched(button) {
    var form = button.form || document.getElementById("vis-form");
    return fetch(button.dataset.copyPost, {method: "POST", body: new FormData(form)})
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); });
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
    var button = ev.target.closest && ev.target.closest("button[data-copy], button[data-copy-post]");
    if (!button) return;
    var source = button.dataset.copy ? document.querySelector(button.dataset.copy) : null;
    if (!source && !button.dataset.copyPost) return;
    var label = button.dataset.label || (button.dataset.label = button.textContent);
    var copied = source && button.dataset.copyAs === "list"   // "1 2 3" -> "[1, 2, 3]"
      ? "[" + source.textContent.trim().split(/\s+/).filter(Boolean).join(", ") + "]"
      : source && source.textContent;
    var text = source ? Promise.resolve(copied) : fetched(button);
    text.then(copyText).then(function () {
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
// options the file's format needs, and come back to the page as it is now. What the file is, the
// server says (POST /tokenizers/sniff, given the file's first bytes: the same reading as the
// upload's); this script only sends them and shows the answer. Without it every option shows.
(function () {
  "use strict";
  var HEAD_BYTES = 65536;                          // app/uploads.py HEAD_BYTES
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
    var body = new FormData();
    body.append("file", file.slice(0, HEAD_BYTES), file.name);
    fetch(form.dataset.sniff, {method: "POST", body: body, headers: {"HX-Request": "true"}})
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        if (input.files[0] !== file) return;         // another file was chosen meanwhile
        note.innerHTML = html;                       // the server's note (autoescaped)
        var answer = note.querySelector("[data-format]");
        show(form, answer && answer.dataset.format || null);
        if (answer && answer.dataset.slice) sendPrefix(input, file, +answer.dataset.slice);
      }, function () { show(form, null); note.textContent = ""; });
  }
  // A GGUF model is gigabytes, its tokenizer the metadata at its start: the form sends only the
  // first `bytes` of it (the server reads the prefix up to the end of the metadata).
  function sendPrefix(input, file, bytes) {
    if (file.size <= bytes || typeof DataTransfer === "undefined") return;
    var cut = new DataTransfer();
    cut.items.add(new File([file.slice(0, bytes)], file.name, {type: "application/octet-stream"}));
    input.files = cut.files;
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
    // An upload of megabytes takes seconds to send and seconds to read: say which, as it goes
    // (htmx disables the button meanwhile: hx-disabled-elt)
    var progress = form.querySelector(".upload-progress");
    var bar = progress.querySelector("progress");
    var said = progress.querySelector(".upload-progress-text");
    form.addEventListener("htmx:beforeRequest", function () {
      progress.hidden = false; bar.value = 0; said.textContent = "sending…";
    });
    form.addEventListener("htmx:xhr:progress", function (ev) {
      if (!ev.detail.lengthComputable || !ev.detail.total) return;
      var done = Math.round(100 * ev.detail.loaded / ev.detail.total);
      bar.value = done;
      said.textContent = done < 100 ? "sending… " + done + "%" : "sent; reading the file…";
    });
    form.addEventListener("htmx:afterRequest", function (ev) {
      if (!ev.detail.successful || !ev.detail.xhr.getResponseHeader("HX-Redirect")) progress.hidden = true;
      else said.textContent = "loaded; opening it…";
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

// The header's menus (templates/base.html, details/summary, which open without JavaScript):
// opening one closes the others; Escape or a click outside closes them all.
(function () {
  "use strict";
  function menus() { return document.querySelectorAll("header.top details.menu"); }
  document.addEventListener("toggle", function (ev) {
    var menu = ev.target;
    if (!menu.matches || !menu.matches("header.top details.menu") || !menu.open) return;
    menus().forEach(function (other) { if (other !== menu) other.open = false; });
  }, true);
  document.addEventListener("click", function (ev) {
    var inside = ev.target.closest && ev.target.closest("header.top details.menu");
    menus().forEach(function (m) { if (m !== inside) m.open = false; });
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key !== "Escape") return;
    menus().forEach(function (m) {
      if (!m.open) return;
      m.open = false;
      if (m.contains(document.activeElement)) m.querySelector("summary").focus();
    });
  });
})();

// The footer's "Embed this view" (templates/base.html): the <iframe> code names the page's
// address as it is now (htmx may have moved it since the page was drawn), with embed=1.
(function () {
  "use strict";
  document.addEventListener("toggle", function (ev) {
    var box = ev.target;
    if (!box.matches || !box.matches("details.embed-code") || !box.open) return;
    var url = new URL(window.location.href);
    url.searchParams.set("embed", "1");
    box.querySelector(".embed-snippet").textContent = '<iframe src="' + url.href +
      '" width="100%" height="600" title="Tokenizer Visualiser" loading="lazy"></iframe>';
  }, true);
})();

// A box that is on by default sends "off" from a hidden field before it (partials/bos_box.html):
// ticked, the form would send both (bos=false&bos=true) and the address bar would show both.
// Leave the hidden value out when its box is ticked: on a plain submit, and in htmx's requests.
(function () {
  "use strict";
  function tickedNames(form) {
    var names = {};
    form.querySelectorAll("input.unticked-value").forEach(function (hidden) {
      var box = form.querySelector('input[type="checkbox"][name="' + hidden.name + '"]');
      if (box && box.checked) names[hidden.name] = hidden.value;
    });
    return names;
  }
  document.addEventListener("htmx:configRequest", function (ev) {
    var form = ev.detail.elt.closest ? (ev.detail.elt.closest("form") || ev.detail.elt.form) : null;
    if (!form) return;
    var params = ev.detail.parameters, names = tickedNames(form);
    Object.keys(names).forEach(function (name) {
      if (!params.getAll) return;
      var kept = params.getAll(name).filter(function (v) { return v !== names[name]; });
      params.delete(name);
      kept.forEach(function (v) { params.append(name, v); });
    });
  });
  document.addEventListener("submit", function (ev) {
    var names = tickedNames(ev.target);
    ev.target.querySelectorAll("input.unticked-value").forEach(function (hidden) {
      if (hidden.name in names) {
        hidden.disabled = true;
        setTimeout(function () { hidden.disabled = false; }, 0);  // back for the next change
      }
    });
  }, true);
})();

// The visualiser's text box: each keystroke reaches htmx as a `typed` event on the form, after a
// pause that grows with the text (a short text is answered at once, a long one waits for the
// typing to pause: ~1 ms per 200 characters, at most 300 ms). The form's hx-sync replaces a
// request still in flight, so a fast typist never queues answers.
(function () {
  "use strict";
  var form = document.querySelector("form[data-typed]");
  if (!form) return;
  var box = document.querySelector(form.dataset.typed);
  var timer = null, sent = box ? box.value : null;
  function pause(n) { return Math.min(300, Math.round(n / 200)); }
  document.addEventListener("input", function (ev) {
    if (ev.target !== box) return;
    clearTimeout(timer);
    timer = setTimeout(function () {
      if (box.value === sent) return;
      sent = box.value;
      htmx.trigger(form, "typed");
    }, pause(box.value.length));
  });
})();

// The visualiser's and compare's chips carry their text, id and offsets; what a chip says besides (its raw
// spelling, bytes, links) comes on demand into the page's one popover (#chip-pop, data-form:
// its form): on hover, focus or tap, a small POST of the form and the chip's index to the
// chip's list's URL (ol[data-pop]). Enter on a
// focused chip moves into the popover's links; Escape closes it.
(function () {
  "use strict";
  var pop = document.getElementById("chip-pop");
  var form = pop && document.getElementById(pop.dataset.form);
  if (!pop || !form) return;
  var current = null, pending = null, hideTimer = null, quiet = false;
  function chipOf(el) {
    var chip = el && el.closest && el.closest("li");
    return chip && chip.parentElement.matches("ol[data-pop]") ? chip : null;
  }
  function place(chip) {
    var r = chip.getBoundingClientRect();
    pop.style.top = (window.scrollY + r.bottom + 4) + "px";
    pop.style.left = Math.max(4, Math.min(window.scrollX + r.left,
      window.scrollX + document.documentElement.clientWidth - pop.offsetWidth - 4)) + "px";
  }
  function show(chip) {
    clearTimeout(hideTimer);
    if (chip === current && !pop.hidden) return;
    if (current) current.removeAttribute("aria-describedby");
    current = chip;
    chip.setAttribute("aria-describedby", "chip-pop");
    pop.innerHTML = '<span class="muted">…</span>';
    pop.hidden = false;
    place(chip);
    if (pending) pending.abort();
    pending = new AbortController();
    var body = new FormData(form);
    body.set("i", Array.prototype.indexOf.call(chip.parentElement.children, chip));
    body.set("id", chip.dataset.id);
    fetch(chip.parentElement.dataset.pop, {method: "POST", body: body, signal: pending.signal,
      headers: {"HX-Request": "true"}})
      .then(function (r) { return r.text(); })
      .then(function (html) {
        if (current !== chip) return;
        pop.innerHTML = html;  // the app's own template, autoescaped
        place(chip);
      })
      .catch(function () {});
  }
  function hide() {
    if (current) current.removeAttribute("aria-describedby");
    current = null;
    pop.hidden = true;
  }
  function hideSoon() { clearTimeout(hideTimer); hideTimer = setTimeout(hide, 150); }
  document.addEventListener("mouseover", function (ev) {
    var chip = chipOf(ev.target);
    if (chip) show(chip);
    else if (pop.contains(ev.target)) clearTimeout(hideTimer);
  });
  document.addEventListener("mouseout", function (ev) {
    if (chipOf(ev.target) || pop.contains(ev.target)) hideSoon();
  });
  document.addEventListener("focusin", function (ev) {
    var chip = chipOf(ev.target);
    if (chip && quiet) return;
    if (chip) show(chip);
    else if (pop.contains(ev.target)) clearTimeout(hideTimer);
    else if (current) hide();
  });
  document.addEventListener("click", function (ev) {  // a tap on a touch screen
    var chip = chipOf(ev.target);
    if (chip) show(chip);
    else if (!pop.contains(ev.target) && current) hide();
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && current) {
      var chip = current;
      hide();
      if (pop.contains(document.activeElement)) {  // back on the chip, the popover left shut
        quiet = true;
        chip.focus();
        quiet = false;
      }
    } else if (ev.key === "Enter" && chipOf(ev.target) === current && current) {
      var link = pop.querySelector("a");
      if (link) { ev.preventDefault(); link.focus(); }
    }
  });
  document.addEventListener("htmx:beforeSwap", function (ev) {
    if (ev.detail.target && ev.detail.target.contains(current)) hide();
  });
})();
