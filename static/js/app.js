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
