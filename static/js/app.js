// Loreweave's own small behaviours. Loaded with defer on every page; no inline scripts.
(function () {
  "use strict";

  // Copy buttons: <button data-copy="#selector">.
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest("[data-copy]");
    if (!btn) return;
    var el = document.querySelector(btn.getAttribute("data-copy"));
    if (!el || !navigator.clipboard) return;
    navigator.clipboard.writeText(el.textContent.trim()).then(function () {
      btn.textContent = "Copied";
    });
  });
})();

// World search box: ArrowDown moves from the box into the results, the arrows move between
// them, Escape returns to the box.
(function () {
  "use strict";
  document.addEventListener("keydown", function (ev) {
    var box = ev.target.closest && ev.target.closest(".world-search");
    if (!box) return;
    var input = box.querySelector("input[name=q]");
    var links = Array.prototype.slice.call(box.querySelectorAll("#search-results a"));
    var i = links.indexOf(document.activeElement);
    if (ev.key === "ArrowDown" && links.length) {
      ev.preventDefault();
      links[Math.min(i + 1, links.length - 1)].focus();
    } else if (ev.key === "ArrowUp" && links.length) {
      ev.preventDefault();
      if (i <= 0) input.focus(); else links[i - 1].focus();
    } else if (ev.key === "Escape" && i >= 0) {
      input.focus();
    }
  });
})();

// Forms that undo something for good (revoking a key, disconnecting an app) carry
// data-confirm, the question, and data-confirm-button, the label of the button that goes
// ahead: they are sent only once the page's #confirm-dialog (views/confirm_dialog.templ) is
// answered so.
(function () {
  "use strict";
  document.addEventListener("submit", function (ev) {
    var form = ev.target.closest && ev.target.closest("form[data-confirm]");
    var dialog = document.getElementById("confirm-dialog");
    if (!form || !dialog || form.dataset.confirmed === "yes") return;
    ev.preventDefault();
    dialog.querySelector("[data-confirm-text]").textContent = form.getAttribute("data-confirm");
    dialog.querySelector("[data-confirm-go]").textContent = form.getAttribute("data-confirm-button") || "Go ahead";
    dialog.returnValue = "";
    dialog.addEventListener("close", function () {
      if (dialog.returnValue !== "confirm") return;
      form.dataset.confirmed = "yes";
      form.requestSubmit();
    }, { once: true });
    dialog.showModal();
  });
})();

// Times: the server writes <time datetime data-local="…"> in UTC; here each is written again
// in the reader's own time zone and language, also in parts of the page that arrive later.
// data-local: "minute" and "second" (date and time), "clock", "clock-zone" and
// "clock-second" (time of day), "title" (the text is relative, like "2 minutes ago", and
// stays). A title, when there is one, is the exact moment.
(function () {
  "use strict";
  if (!window.Intl || !Intl.DateTimeFormat || !window.MutationObserver) return;
  var day = { year: "numeric", month: "short", day: "numeric" };
  function opts(extra) { return Object.assign({ hour: "2-digit", minute: "2-digit" }, extra); }
  var formats = {
    minute: opts(Object.assign({ timeZoneName: "short" }, day)),
    second: opts(Object.assign({ second: "2-digit", timeZoneName: "short" }, day, { month: "long" })),
    clock: opts({}),
    "clock-zone": opts({ timeZoneName: "short" }),
    "clock-second": opts({ second: "2-digit" })
  };
  var made = {};
  function format(style, date) {
    var f = made[style];
    if (!f) {
      try { f = made[style] = new Intl.DateTimeFormat(undefined, formats[style]); } catch (e) { return ""; }
    }
    return f.format(date);
  }
  function localize(el) {
    var style = el.getAttribute("data-local"), date = new Date(el.getAttribute("datetime"));
    if (isNaN(date.getTime())) return;
    if (el.title) el.title = format("second", date);
    if (formats[style]) {
      var text = format(style, date);
      if (text && el.textContent !== text) el.textContent = text;
    }
  }
  function within(node) {
    if (node.nodeType !== 1) return;
    if (node.matches("time[data-local]")) localize(node);
    Array.prototype.forEach.call(node.querySelectorAll("time[data-local]"), localize);
  }
  within(document.body);
  new MutationObserver(function (changes) {
    changes.forEach(function (c) { Array.prototype.forEach.call(c.addedNodes, within); });
  }).observe(document.body, { childList: true, subtree: true });
})();
