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
