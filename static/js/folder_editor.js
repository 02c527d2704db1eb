// The folder description editor: the same Markdown editor as a card's sections (LoreCM),
// saved with folder.setDescription once the writer pauses or leaves it. A description is set
// whole, so the last writer wins; someone else's change is taken in while this editor has
// nothing unsaved, and otherwise waits until it is saved. The page's stream (live.js) hands
// over the document's ops events as "loreweave:ops".
(function () {
  "use strict";
  var root = document.querySelector("[data-folder-editor]");
  if (!root || !window.CM || !window.LoreCM) return;
  var CM = window.CM, cfg = root.dataset;
  var data = JSON.parse(document.getElementById("folder-editor-data").textContent);
  var clientId = "f" + Math.random().toString(36).slice(2, 12);
  var seq = 0, saved = data.description, dirty = false, sending = false, timer = 0, theirs = null;
  var statusEl = root.querySelector("[data-save-status]");
  var errorEl = root.querySelector(".field-error");

  function status(text) { if (statusEl.textContent !== text) statusEl.textContent = text; }

  var view = new CM.EditorView({
    parent: root.querySelector("[data-testid=folder-description-editor]"),
    state: CM.EditorState.create({
      doc: data.description,
      extensions: window.LoreCM.markdownEditor(cfg.styleNonce, "Folder description").concat([
        CM.EditorView.updateListener.of(function (u) {
          if (!u.docChanged || u.transactions.every(function (tr) { return !tr.isUserEvent("input") && !tr.isUserEvent("delete") && !tr.isUserEvent("undo") && !tr.isUserEvent("redo") && !tr.isUserEvent("move"); })) return;
          dirty = true;
          status("Not saved yet…");
          clearTimeout(timer);
          timer = setTimeout(save, 800);
        }),
        CM.EditorView.domEventHandlers({ blur: function () { save(); } }),
      ]),
    }),
  });

  function save() {
    clearTimeout(timer);
    if (!dirty || sending) return;
    var text = view.state.doc.toString();
    dirty = false;
    sending = true;
    status("Saving…");
    var delay = 500;
    (function attempt(s) {
      fetch(cfg.contentUrl, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": cfg.csrf },
        body: JSON.stringify({ ops: [{ op: "folder.setDescription", description: text }], clientId: clientId, clientSeq: s }),
      }).then(function (res) {
        if (res.status >= 500 || res.status === 429 || res.status === 409) throw new Error("retry");
        return res.json().catch(function () { return null; }).then(function (body) {
          sending = false;
          if (res.ok) {
            saved = text;
            errorEl.hidden = true;
          } else {
            dirty = true;
            errorEl.textContent = "Not saved: " + (body && body.error ? body.error.message : "the server answered " + res.status);
            errorEl.hidden = false;
          }
          if (dirty) status("Not saved yet…");
          else if (theirs !== null) { LoreCM.replace(view, theirs); saved = theirs; theirs = null; status("All changes saved"); }
          else status("All changes saved");
          if (dirty && res.ok) timer = setTimeout(save, 800);
        });
      }).catch(function () {
        status("Offline, reconnecting… Your text is kept and will be saved.");
        setTimeout(function () { attempt(s); }, delay);
        delay = Math.min(delay * 2, 8000);
      });
    })(++seq);
  }

  document.addEventListener("loreweave:ops", function (ev) {
    var d = ev.detail || {};
    if (d.clientId === clientId) return;
    (d.ops || []).forEach(function (op) {
      // A restore of an earlier version carries the whole folder's data.
      var text = op.op === "folder.setDescription" ? op.description
        : op.op === "document.restore" ? ((op.data && op.data.description) || "") : null;
      if (text === null) return;
      if (dirty || sending) theirs = text;
      else { LoreCM.replace(view, text); saved = text; }
    });
  });

  window.addEventListener("beforeunload", function (ev) {
    if (dirty || sending) { ev.preventDefault(); ev.returnValue = ""; }
  });

  var previewBtn = root.querySelector("[data-testid=folder-preview]");
  var previewEl = root.querySelector("[data-testid=folder-preview-html]");
  previewBtn.addEventListener("click", function () {
    var on = previewBtn.getAttribute("aria-pressed") !== "true";
    previewBtn.setAttribute("aria-pressed", on ? "true" : "false");
    previewBtn.textContent = on ? "Edit" : "Preview";
    view.dom.parentElement.hidden = on;
    previewEl.hidden = !on;
    if (!on) { view.focus(); return; }
    save();
    previewEl.textContent = "Rendering…";
    var tries = 0;
    (function render() {
      if ((dirty || sending) && ++tries < 50) { setTimeout(render, 100); return; }
      fetch(cfg.bodyUrl, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } })
        .then(function (res) { if (!res.ok) throw new Error("HTTP " + res.status); return res.text(); })
        .then(function (html) {
          var found = new DOMParser().parseFromString(html, "text/html").querySelector('[data-testid="folder-description"]');
          previewEl.replaceChildren.apply(previewEl, found ? Array.from(found.childNodes).map(function (n) { return document.importNode(n, true); }) : []);
          if (!found) previewEl.textContent = "No description yet.";
        })
        .catch(function () { previewEl.textContent = "The preview could not be loaded; try again."; });
    })();
  });

  root.hidden = false;
  document.documentElement.classList.add("has-folder-editor");
  status("All changes saved");
})();
