// history.js keeps the first page of a document's history current: it follows the
// document's event stream and, when a version is newer than the list shows, fetches the list
// again (the page's own address with ?fragment=1) and puts it in place.
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
        root.innerHTML = html;
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
