// Link previews: hovering or focusing a link to a document (a.doclink in read views, a link
// chip in an editor) shows a small card beside it with the target's name, type and the start
// of its text, as the server renders it (GET /w/{slug}/d/{id}/preview, members only). Each
// target is fetched once per page. The card is a tooltip: it never takes the focus, the link
// points at it with aria-describedby while it shows, and Escape closes it.
(function () {
  "use strict";
  var SHOW_MS = 250, HIDE_MS = 200;
  var cache = {};  // preview address -> Promise of its HTML ("" when there is none)
  var tip = null, current = null, showTimer = 0, hideTimer = 0;

  function previewURL(el) {
    var href = el.getAttribute("href") || el.getAttribute("data-href");
    if (!href) return null;
    var u;
    try { u = new URL(href, location.href); } catch (e) { return null; }
    if (u.origin !== location.origin || !/^\/w\/[^/]+\/d\/[^/]+$/.test(u.pathname)) return null;
    return u.pathname + "/preview" + u.search;
  }

  function linkOf(node) {
    return node && node.closest ? node.closest("a.doclink, .cm-doclink[data-href]") : null;
  }

  function load(url) {
    if (!cache[url]) {
      cache[url] = fetch(url, { credentials: "same-origin" })
        // A redirect is the sign-in page (the session ended): no preview.
        .then(function (r) { return r.ok && !r.redirected ? r.text() : ""; })
        .catch(function () { delete cache[url]; return ""; });
    }
    return cache[url];
  }

  function ensureTip() {
    if (tip) return tip;
    tip = document.createElement("div");
    tip.id = "doclink-preview";
    tip.className = "doclink-preview";
    tip.setAttribute("role", "tooltip");
    tip.dataset.testid = "doclink-preview";
    tip.hidden = true;
    tip.addEventListener("mouseenter", function () { clearTimeout(hideTimer); });
    tip.addEventListener("mouseleave", function () { scheduleHide(); });
    document.body.appendChild(tip);
    return tip;
  }

  function place(el) {
    var r = el.getBoundingClientRect(), gap = 6, margin = 8;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    var left = Math.max(margin, Math.min(r.left, window.innerWidth - w - margin));
    var top = r.bottom + gap;
    if (top + h > window.innerHeight - margin && r.top - gap - h >= margin) top = r.top - gap - h;
    tip.style.left = Math.round(left) + "px";
    tip.style.top = Math.round(top) + "px";
  }

  function describe(el, on) {
    var ids = (el.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (x) { return x && x !== tip.id; });
    if (on) ids.push(tip.id);
    if (ids.length) el.setAttribute("aria-describedby", ids.join(" "));
    else el.removeAttribute("aria-describedby");
  }

  function show(el) {
    var url = previewURL(el);
    if (!url) return;
    if (current && current !== el) hide();
    current = el;
    load(url).then(function (html) {
      if (current !== el || !document.contains(el)) return;
      if (!html) { hide(); return; }
      ensureTip();
      tip.innerHTML = html; // the server's fragment: text escaped by templ
      tip.hidden = false;
      place(el);
      describe(el, true);
    });
  }

  function hide() {
    clearTimeout(showTimer);
    clearTimeout(hideTimer);
    if (current && tip) describe(current, false);
    current = null;
    if (tip) tip.hidden = true;
  }

  function scheduleHide() {
    clearTimeout(showTimer);
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hide, HIDE_MS);
  }

  document.addEventListener("mouseover", function (ev) {
    var el = linkOf(ev.target);
    if (!el) return;
    clearTimeout(hideTimer);
    if (el === current) return;
    clearTimeout(showTimer);
    showTimer = setTimeout(function () { show(el); }, SHOW_MS);
  });
  document.addEventListener("mouseout", function (ev) {
    var el = linkOf(ev.target);
    if (!el) return;
    var to = ev.relatedTarget;
    if (to && (el.contains(to) || (tip && tip.contains(to)))) return;
    if (el === current) scheduleHide();
    else clearTimeout(showTimer);
  });
  document.addEventListener("focusin", function (ev) {
    var el = linkOf(ev.target);
    if (el) { clearTimeout(hideTimer); show(el); }
  });
  document.addEventListener("focusout", function (ev) {
    if (linkOf(ev.target) === current) hide();
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && tip && !tip.hidden) hide();
  });
  // A link focused before this script ran.
  if (linkOf(document.activeElement)) show(linkOf(document.activeElement));
  window.addEventListener("resize", function () { if (current && tip && !tip.hidden) place(current); });
  window.addEventListener("scroll", function () { if (current && tip && !tip.hidden) place(current); }, true);
})();
