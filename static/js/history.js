// history.js keeps the first page of a document's history current: it follows the
// document's event stream and, when a version is newer than the list shows, fetches the list
// again (the page's own address with ?fragment=1) and puts it in place. A new version by the
// person of the newest row joins that row; the rows someone opened stay open, and the control
// that had the focus keeps it.
(function () {
  "use strict";
  var root = document.querySelector("[data-history-live]");
  if (!root || !window.EventSource) return;
  var status = document.querySelector("[data-live-status]");
  var loading = false, wanted = 0;

  function shown() {
    var list = root.querySelector("[data-version]");
    return list ? Number(list.getAttribute("data-version")) : 0;
  }

  // where names a control of the list so that it can be found in the new one: its row (by the
  // row's oldest version, which a newer version joining the row does not change), its version
  // within a row, and what it is.
  function where(el) {
    var row = el.closest("[data-oldest]"), entry = el.closest(".history-entry");
    return [row ? row.dataset.oldest : "", entry ? entry.dataset.version : "", el.tagName, el.className].join(" ");
  }

  function replace(html) {
    var open = Array.prototype.map.call(root.querySelectorAll("[data-oldest] > details[open]"),
      function (details) { return details.parentElement.dataset.oldest; });
    var active = document.activeElement, focused = active && root.contains(active) ? where(active) : "";
    root.innerHTML = html;
    open.forEach(function (oldest) {
      var details = root.querySelector('[data-oldest="' + oldest + '"] > details');
      if (details) details.open = true;
    });
    if (focused) {
      var again = Array.prototype.find.call(root.querySelectorAll("a, summary"), function (el) { return where(el) === focused; });
      if (again) again.focus();
    }
  }

  function say(text) { if (status) status.textContent = text; }

  function pump() {
    if (loading || wanted <= shown()) return;
    loading = true;
    fetch(root.dataset.listUrl, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } })
      .then(function (res) {
        if (!res.ok) throw new Error("HTTP " + res.status);
        return res.text();
      })
      .then(function (html) {
        replace(html);
        loading = false;
        say("Live");
        pump();
      })
      .catch(function () {
        loading = false;
        say("Could not show the newest versions: reload the page");
      });
  }

  function want(version) {
    if (typeof version === "number" && version > wanted) wanted = version;
    pump();
  }

  var es = new EventSource(root.dataset.stream);
  es.addEventListener("open", function () { say("Live"); });
  es.addEventListener("error", function () {
    say(es.readyState === EventSource.CLOSED ? "No longer live: reload the page" : "Reconnecting…");
  });
  ["snapshot", "ops"].forEach(function (name) {
    es.addEventListener(name, function (ev) {
      var data;
      try { data = JSON.parse(ev.data); } catch (e) { return; }
      want(data.version);
    });
  });
  es.addEventListener("deleted", function () {
    es.close();
    say("This document was deleted, or you can no longer see it");
  });
})();
