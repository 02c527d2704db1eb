// The card editor: a card's name, aliases, properties and sections, edited in place by
// several people at once.
//
// Section bodies are CodeMirror editors kept in step by operational transformation
// (static/js/ot.js, the port of ops/ot.go), Jupiter style: the server's op log fixes one
// order; each section has at most one edit in flight (sent with the version it was made on)
// and the edits typed since (pending, composed into one). An `ops` event from someone else
// is rebased over both and applied in place; one carrying this editor's client id and the
// in-flight edit's sequence number acknowledges it. Keystrokes are batched (one request per
// section per FLUSH_MS at most); a failed request is sent again with the same sequence
// number, which the server answers from its op log if it had applied it, so nothing is lost
// or applied twice. Everything else (name, aliases, properties, section titles and order) is
// set with plain ops and shown as the stream reports it.
//
// Nothing here builds HTML from strings: elements are made with createElement and filled
// with textContent; previews show HTML the server rendered and sanitised.
(function () {
  "use strict";

  var root = document.querySelector("[data-card-editor]");
  if (!root || !window.CM || !window.LoreOT || !window.LoreCM) return;
  var CM = window.CM, OT = window.LoreOT, Live = window.LoreLive || {};
  var retryLater = Live.retryLater || function (attempt, delay) { setTimeout(attempt, delay); };

  var FLUSH_MS = 60;        // keystroke batching
  var CURSOR_MS = 120;      // cursor updates, at most this often
  var RETRY_MAX_MS = 8000;  // back-off ceiling for failed requests

  var cfg = root.dataset;
  var initial = JSON.parse(document.getElementById("card-editor-data").textContent);
  var clientId = randomID();
  var seq = 0;
  var version = initial.version;  // the last version applied from the stream
  var model = initial.data;       // the card as of version (section bodies: see sec.base)
  var metaName = initial.name;    // the document's own name, shown when the card has none
  var sections = {};              // id -> section state
  var connected = false, started = false, gone = false, readOnly = false;
  var unreachable = false; // a write failed to reach the server and has not got through since
  var requests = 0;               // writes not yet answered
  var queue = [], busy = false;   // stream events, handled one at a time
  var focusOnCreate = {};         // client seq -> true: focus the section that write adds
  var cursors = {};               // remote client id -> {user, field, anchor, head, version}

  var remote = CM.Annotation.define();

  // ---- requests ---------------------------------------------------------------------------

  function randomID() {
    var b = new Uint8Array(12);
    crypto.getRandomValues(b);
    return "c" + Array.from(b, function (x) { return (x % 36).toString(36); }).join("");
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": cfg.csrf },
      body: JSON.stringify(body),
    }).then(function (res) {
      if (res.status === 204) return { ok: true, status: 204, body: null };
      return res.json().catch(function () { return null; }).then(function (b) {
        return { ok: res.ok, status: res.status, body: b };
      });
    });
  }

  function errorText(r) {
    var e = r && r.body && r.body.error;
    return e && e.message ? e.message : "the server answered " + (r ? r.status : "nothing");
  }

  // sentence ends a message with a full stop when it has none (the server's messages have
  // none), so that another sentence can follow it.
  function sentence(msg) { return /[.!?]$/.test(msg) ? msg : msg + "."; }

  // write sends ops and calls done(result) when the server has answered for good: retried
  // with the same sequence number while the network or the server fails.
  function write(ops, done, s) {
    s = s || ++seq;
    requests++;
    status();
    var delay = 500;
    (function attempt() {
      post(cfg.contentUrl, { ops: ops, clientId: clientId, clientSeq: s }).then(function (r) {
        if (r.status >= 500 || r.status === 429 || r.status === 409) throw new Error("retry");
        unreachable = false;
        requests--;
        status();
        if (r.status === 401 || r.status === 403 && r.body && r.body.error && r.body.error.code === "csrf_failed") {
          stop("Your session has ended: sign in again in another tab, then reload.");
        } else if (r.status === 403) {
          stop("You can no longer edit this document: your role in this world may have changed. Reload to see it as it is now.");
        } else if (r.status === 404) {
          stop("This document was deleted, or you can no longer see it.");
        }
        if (done) done(r, s);
      }).catch(function (err) {
        // A network failure (not a busy server) means offline, even while the stream still
        // looks open.
        if (!err || err.message !== "retry") unreachable = true;
        retryLater(attempt, delay);
        delay = Math.min(delay * 2, RETRY_MAX_MS);
        status();
      });
    })();
    return s;
  }

  // ---- status -----------------------------------------------------------------------------

  function unsent() {
    if (requests > 0) return true;
    return Object.keys(sections).some(function (id) {
      var sec = sections[id];
      return sec.inflight || (sec.pending && sec.pending.length);
    });
  }

  function status() {
    var el = root.querySelector("[data-save-status]");
    var text;
    if (gone) text = root.dataset.stopped || "This document can no longer be edited.";
    else if (!connected || unreachable) text = "Offline, reconnecting… Your edits are kept and will be sent.";
    else if (unsent()) text = "Saving…";
    else text = "All changes saved";
    if (el && el.textContent !== text) el.textContent = text;
    root.classList.toggle("offline", (!connected || unreachable) && !gone);
    // The page's connection line, as on every document page.
    var live = document.querySelector("[data-live-status]");
    var liveText = gone ? text : connected && !unreachable ? "Live" : "Reconnecting…";
    if (live && live.textContent !== liveText) live.textContent = liveText;
  }

  // stop ends editing for good with message, which says so when there is text not saved.
  function stop(message) {
    var lost = unsent();
    gone = true;
    root.dataset.stopped = lost ? sentence(message) + " What you wrote since the last save is still here: copy it if you need it." : message;
    setReadOnly();
    status();
  }

  window.addEventListener("beforeunload", function (ev) {
    if (!gone && unsent()) {
      ev.preventDefault();
      ev.returnValue = "";
    }
  });

  // ---- small DOM helpers --------------------------------------------------------------------

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "className") e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) e.append(c); });
    return e;
  }

  function showError(container, message) {
    var p = container.querySelector(":scope > .field-error");
    if (!p) return;
    p.textContent = message || "";
    p.hidden = !message;
  }

  // setValue puts a value into an input unless its user is typing in it.
  function setValue(input, value) {
    if (document.activeElement === input && input.dataset.dirty) return;
    if (input.value !== value) input.value = value;
    delete input.dataset.dirty;
  }

  function trackDirty(input) {
    input.addEventListener("input", function () { input.dataset.dirty = "1"; });
  }

  // ---- name -------------------------------------------------------------------------------

  var nameInput = root.querySelector("#card-name");
  var heading = root.querySelector("#editor-title");

  function showName() {
    setValue(nameInput, model.name || "");
    nameInput.placeholder = metaName;
    if (heading) heading.textContent = model.name || metaName;
  }

  function commitName() {
    if (readOnly) return;
    var v = nameInput.value.trim();
    delete nameInput.dataset.dirty;
    if (v === (model.name || "")) return;
    write([{ op: "card.rename", name: v }], function (r) {
      showError(nameInput.closest(".field"), r.ok ? "" : errorText(r));
    });
  }
  trackDirty(nameInput);
  nameInput.addEventListener("change", commitName);
  nameInput.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { ev.preventDefault(); commitName(); } });

  // ---- aliases ------------------------------------------------------------------------------

  var aliasList = root.querySelector("#aliases");
  var aliasInput = root.querySelector("#alias-new");
  var aliasBox = aliasList.closest(".field");

  function showAliases() {
    aliasList.replaceChildren();
    model.aliases.forEach(function (a) {
      var remove = el("button", { type: "button", className: "chip-remove", "aria-label": "Remove alias " + a, text: "×" });
      remove.addEventListener("click", function () { setAliases(model.aliases.filter(function (x) { return x !== a; })); });
      aliasList.append(el("li", { className: "chip", "data-testid": "alias-chip" }, [el("span", { text: a }), remove]));
    });
  }

  // setAliases calls then(ok) once the server has answered.
  function setAliases(list, then) {
    if (readOnly) return;
    write([{ op: "card.setAliases", aliases: list }], function (r) {
      showError(aliasBox, r.ok ? "" : errorText(r));
      if (then) then(r.ok);
    });
  }

  function addAlias() {
    var v = aliasInput.value.trim();
    if (!v) return;
    if (model.aliases.indexOf(v) >= 0) {
      showError(aliasBox, "“" + v + "” is already an alias.");
      return;
    }
    aliasInput.value = "";
    // A refused alias (too many, too long) comes back into the empty box, to be edited.
    setAliases(model.aliases.concat([v]), function (ok) { if (!ok && !aliasInput.value) aliasInput.value = v; });
  }
  root.querySelector("#alias-add").addEventListener("click", addAlias);
  aliasInput.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { ev.preventDefault(); addAlias(); } });

  // ---- properties ---------------------------------------------------------------------------

  var propBody = root.querySelector("#properties tbody");
  var propBox = root.querySelector("#properties").closest(".field");

  function showProperties() {
    var rows = {};
    Array.from(propBody.children).forEach(function (tr) { rows[tr.dataset.key] = tr; });
    var keep = {};
    model.properties.forEach(function (p, i) {
      var tr = rows[p.key] || propertyRow(p.key);
      keep[p.key] = true;
      setValue(tr.querySelector(".prop-key"), p.key);
      setValue(tr.querySelector(".prop-value"), p.value);
      if (propBody.children[i] !== tr) propBody.insertBefore(tr, propBody.children[i] || null);
    });
    Object.keys(rows).forEach(function (k) { if (!keep[k]) rows[k].remove(); });
  }

  function propertyRow(key) {
    var tr = el("tr", { "data-testid": "property" });
    tr.dataset.key = key;
    var k = el("input", { type: "text", className: "prop-key", "aria-label": "Property name", maxlength: "200" });
    var v = el("input", { type: "text", className: "prop-value", "aria-label": "Value of " + key, maxlength: "5000" });
    var rm = el("button", { type: "button", className: "secondary small", "aria-label": "Remove property " + key, text: "Remove" });
    trackDirty(k);
    trackDirty(v);
    k.addEventListener("change", function () {
      var nk = k.value.trim(), old = tr.dataset.key;
      delete k.dataset.dirty;
      if (!nk || nk === old) { k.value = old; return; }
      if (model.properties.some(function (p) { return p.key === nk; })) {
        showError(propBox, "There is already a property named “" + nk + "”.");
        k.value = old;
        return;
      }
      write([{ op: "card.removeProperty", key: old }, { op: "card.setProperty", key: nk, value: v.value }], function (r) {
        showError(propBox, r.ok ? "" : errorText(r));
      });
    });
    v.addEventListener("change", function () {
      delete v.dataset.dirty;
      write([{ op: "card.setProperty", key: tr.dataset.key, value: v.value }], function (r) {
        showError(propBox, r.ok ? "" : errorText(r));
      });
    });
    rm.addEventListener("click", function () {
      write([{ op: "card.removeProperty", key: tr.dataset.key }], function (r) { showError(propBox, r.ok ? "" : errorText(r)); });
    });
    tr.append(el("td", {}, [k]), el("td", {}, [v]), el("td", {}, [rm]));
    return tr;
  }

  var newKey = root.querySelector("#prop-new-key"), newValue = root.querySelector("#prop-new-value");
  function addProperty() {
    var key = newKey.value.trim();
    if (!key) { showError(propBox, "Give the property a name."); newKey.focus(); return; }
    if (model.properties.some(function (p) { return p.key === key; })) {
      showError(propBox, "There is already a property named “" + key + "”: change its value in the table.");
      return;
    }
    write([{ op: "card.setProperty", key: key, value: newValue.value }], function (r) {
      showError(propBox, r.ok ? "" : errorText(r));
      if (r.ok) { newKey.value = ""; newValue.value = ""; }
    });
  }
  root.querySelector("#prop-add").addEventListener("click", addProperty);
  [newKey, newValue].forEach(function (i) {
    i.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { ev.preventDefault(); addProperty(); } });
  });

  // ---- sections -----------------------------------------------------------------------------

  var sectionList = root.querySelector("#sections");
  var emptySections = root.querySelector("#no-sections");

  // Remote cursors: a caret with its owner's name, and their selection.
  var setCursorMarks = CM.StateEffect.define();
  var cursorField = CM.StateField.define({
    create: function () { return CM.Decoration.none; },
    update: function (deco, tr) {
      deco = deco.map(tr.changes);
      tr.effects.forEach(function (e) { if (e.is(setCursorMarks)) deco = e.value; });
      return deco;
    },
    provide: function (f) { return CM.EditorView.decorations.from(f); },
  });

  // The presence colours (live.Colour's palette): CSS classes, as the CSP allows no inline
  // style attributes.
  var palette = ["#c0392b", "#2679af", "#1d8548", "#8e44ad", "#be4b00", "#11816b", "#8b7106", "#2c3e50", "#c2185b", "#007c87"];
  function colourIndex(c) { var i = palette.indexOf(String(c).toLowerCase()); return i < 0 ? 0 : i; }

  class Caret extends CM.WidgetType {
    constructor(name, colour) { super(); this.name = name; this.colour = colour; }
    eq(o) { return o.name === this.name && o.colour === this.colour; }
    toDOM() {
      var span = el("span", { className: "remote-caret rc-" + colourIndex(this.colour), "aria-hidden": "true" });
      span.append(el("span", { className: "remote-name", text: this.name }));
      return span;
    }
    ignoreEvent() { return true; }
  }

  var editable = new CM.Compartment();

  // sizeLimit refuses a change of this editor's that would take a section's text past the
  // server's limit (in characters, as the server counts them): it could never be saved, and
  // every later edit of the section would be refused with it. Others' changes pass.
  var maxChars = parseInt(cfg.maxSection, 10) || 0;
  function sizeLimit(sec) {
    function chars(doc) {
      var s = doc.toString(), n = 0;
      for (var i = 0; i < s.length; i++) {
        var c = s.charCodeAt(i);
        if (c < 0xdc00 || c > 0xdfff) n++; // a low surrogate ends a character counted already
      }
      return n;
    }
    return CM.EditorState.transactionFilter.of(function (tr) {
      if (!maxChars || !tr.docChanged || tr.annotation(remote) || tr.newDoc.length <= maxChars) return tr;
      var n = chars(tr.newDoc);
      if (n <= maxChars || n <= chars(tr.startState.doc)) return tr;
      sec.err = "Not added: a section holds at most " + maxChars.toLocaleString("en") + " characters, and this would make it " +
        n.toLocaleString("en") + ". Put the rest in another section.";
      showError(sec.el, sec.err);
      return [];
    });
  }

  function makeView(sec, body) {
    return new CM.EditorView({
      parent: sec.host,
      state: CM.EditorState.create({
        doc: body,
        extensions: window.LoreCM.markdownEditor(cfg.styleNonce, "Text of section " + sec.title).concat([
          cursorField,
          sizeLimit(sec),
          editable.of(CM.EditorView.editable.of(!readOnly)),
          CM.EditorView.updateListener.of(function (u) { localUpdate(sec, u); }),
        ]),
      }),
    });
  }

  function newSection(s) {
    // base is the body at `version`, as the server has it; the editor shows base, then
    // inflight, then pending. recent holds the last changes to base (for mapping remote
    // cursors made on older versions), complete after version recentFrom.
    var sec = { id: s.id, title: s.title, base: s.body, inflight: null, inflightSeq: 0, pending: null,
      timer: 0, recent: [], recentFrom: version, err: "" };
    var li = el("li", { className: "section-editor card", "data-testid": "section-editor", "data-id": s.id });
    var title = el("input", { type: "text", className: "section-title", "aria-label": "Section title", maxlength: "500", "data-testid": "section-title-input" });
    title.value = s.title;
    trackDirty(title);
    title.addEventListener("change", function () {
      var v = title.value.trim();
      delete title.dataset.dirty;
      if (!v) { title.value = sec.title; showError(li, "A section needs a title."); return; }
      if (v === sec.title) return;
      write([{ op: "card.updateSection", id: sec.id, title: v }], function (r) { showError(li, r.ok ? "" : errorText(r)); });
    });
    // Enter goes on to the text, once the key is released (its own events stay with the title).
    title.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { ev.preventDefault(); title.dataset.enter = "1"; } });
    title.addEventListener("keyup", function (ev) {
      if (ev.key === "Enter" && title.dataset.enter) { delete title.dataset.enter; sec.view.focus(); }
    });
    var handle = el("span", { className: "drag-handle", "aria-hidden": "true", title: "Drag to move", text: "⠿" });
    var up = el("button", { type: "button", className: "secondary small", "data-testid": "section-up", text: "↑" });
    var down = el("button", { type: "button", className: "secondary small", "data-testid": "section-down", text: "↓" });
    var preview = el("button", { type: "button", className: "secondary", "aria-pressed": "false", "data-testid": "section-preview", text: "Preview" });
    var remove = el("button", { type: "button", className: "danger", "data-testid": "section-remove", text: "Remove" });
    // Secret: only the world's owners, admins and editors see the section (never viewers).
    var secret = el("button", { type: "button", className: "secondary secret-toggle", "aria-pressed": "false", "data-testid": "section-secret", text: "Secret" });
    secret.addEventListener("click", function () {
      var on = !sec.secret;
      write([{ op: "card.setSectionSecret", id: sec.id, secret: on }], function (r) { showError(li, r.ok ? "" : errorText(r)); });
    });
    up.addEventListener("click", function () { moveSection(sec, -1); });
    down.addEventListener("click", function () { moveSection(sec, +1); });
    remove.addEventListener("click", function () { confirmRemove(sec); });
    preview.addEventListener("click", function () { togglePreview(sec); });
    var tools = el("div", { className: "section-tools" }, [up, down, secret, preview, remove]);
    var head = el("div", { className: "section-head" }, [handle, title, tools]);
    sec.host = el("div", { className: "section-body-editor", "data-testid": "section-body-editor" });
    sec.previewEl = el("div", { className: "prose section-preview", "data-testid": "section-preview-html", hidden: "" });
    var error = el("p", { className: "field-error", role: "alert", hidden: "" });
    sec.secretNote = el("p", { className: "secret-note", id: "secret-note-" + s.id, "data-testid": "section-secret-note", hidden: "" },
      [el("span", { className: "secret-badge", text: "Secret" }), el("span", { className: "sr-only", text: ":" }), document.createTextNode(" only editors see this section; viewers never receive it")]);
    li.append(head, sec.secretNote, sec.host, sec.previewEl, error);
    sec.el = li;
    sec.titleInput = title;
    sec.buttons = { up: up, down: down, remove: remove, secret: secret };
    labelSection(sec);
    showSecret(sec, !!s.secret);
    // Dragging by the handle moves a section; the arrows do the same from the keyboard.
    handle.addEventListener("mousedown", function () { li.draggable = true; });
    li.addEventListener("dragstart", function (ev) {
      ev.dataTransfer.setData("text/x-loreweave-section", sec.id);
      ev.dataTransfer.effectAllowed = "move";
      li.classList.add("dragging");
    });
    li.addEventListener("dragend", function () { li.draggable = false; li.classList.remove("dragging"); });
    li.addEventListener("dragover", function (ev) {
      if (Array.from(ev.dataTransfer.types).indexOf("text/x-loreweave-section") < 0) return;
      ev.preventDefault();
      ev.dataTransfer.dropEffect = "move";
    });
    li.addEventListener("drop", function (ev) {
      var id = ev.dataTransfer.getData("text/x-loreweave-section");
      if (!id || id === sec.id || !sections[id]) return;
      ev.preventDefault();
      var to = indexOf(sec.id);
      write([{ op: "card.moveSection", id: id, index: to }], function (r) { showError(sections[id] ? sections[id].el : li, r.ok ? "" : errorText(r)); });
    });
    sec.view = makeView(sec, s.body);
    sections[s.id] = sec;
    return sec;
  }

  // showSecret marks a section secret (or not) in the editor: its toggle, note and frame.
  function showSecret(sec, on) {
    sec.secret = on;
    sec.buttons.secret.setAttribute("aria-pressed", on ? "true" : "false");
    sec.secretNote.hidden = !on;
    sec.el.classList.toggle("secret-section", on);
    if (on) sec.el.setAttribute("aria-describedby", sec.secretNote.id);
    else sec.el.removeAttribute("aria-describedby");
  }

  function labelSection(sec) {
    sec.titleInput.setAttribute("aria-label", "Section title");
    sec.buttons.up.setAttribute("aria-label", "Move section " + sec.title + " up");
    sec.buttons.down.setAttribute("aria-label", "Move section " + sec.title + " down");
    sec.buttons.remove.setAttribute("aria-label", "Remove section " + sec.title);
    sec.buttons.secret.setAttribute("aria-label", "Secret: only editors see section " + sec.title);
    if (sec.view) sec.view.contentDOM.setAttribute("aria-label", "Text of section " + sec.title);
  }

  function indexOf(id) {
    for (var i = 0; i < model.sections.length; i++) if (model.sections[i].id === id) return i;
    return -1;
  }

  function showSections() {
    model.sections.forEach(function (s, i) {
      var sec = sections[s.id] || newSection(s);
      if (sectionList.children[i] !== sec.el) {
        var active = document.activeElement, inside = sec.el.contains(active);
        var ref = sectionList.children[i] || null;
        if (typeof sectionList.moveBefore === "function" && sec.el.isConnected) {
          try { sectionList.moveBefore(sec.el, ref); } catch (e) { sectionList.insertBefore(sec.el, ref); }
        } else {
          sectionList.insertBefore(sec.el, ref);
        }
        if (inside && document.activeElement !== active && active) active.focus({ preventScroll: true });
      }
      sec.buttons.up.disabled = readOnly || i === 0;
      sec.buttons.down.disabled = readOnly || i === model.sections.length - 1;
    });
    emptySections.hidden = model.sections.length > 0;
  }

  function moveSection(sec, by) {
    var to = indexOf(sec.id) + by;
    if (to < 0 || to >= model.sections.length) return;
    write([{ op: "card.moveSection", id: sec.id, index: to }], function (r) { showError(sec.el, r.ok ? "" : errorText(r)); });
  }

  var dialog = root.querySelector("#remove-section-dialog");
  function confirmRemove(sec) {
    dialog.querySelector("[data-section-name]").textContent = sec.title;
    dialog.returnValue = "";
    dialog.onclose = function () {
      if (dialog.returnValue !== "remove") { sec.buttons.remove.focus(); return; }
      flush(sec);
      write([{ op: "card.removeSection", id: sec.id }], function (r) { showError(sec.el, r.ok ? "" : errorText(r)); });
    };
    dialog.showModal();
  }

  root.querySelector("#section-add").addEventListener("click", function () {
    if (readOnly) return;
    var s = write([{ op: "card.addSection", title: "New section", body: "" }], function (r) {
      showError(root.querySelector("#section-add").closest(".field"), r.ok ? "" : errorText(r));
    });
    focusOnCreate[s] = true;
  });

  // offerRestore says that someone else (who, a name, when known) removed a section
  // (perhaps while this editor was writing in it) and offers to add it back, as this editor
  // had it.
  function offerRestore(title, body, unsent, who) {
    var box = root.querySelector("#section-removed");
    var restore = el("button", { type: "button", className: "secondary", "data-testid": "section-restore", text: "Restore “" + title + "”" });
    var dismiss = el("button", { type: "button", className: "link", text: "Dismiss" });
    var note = el("div", { className: "alert", role: "status", "data-testid": "section-removed" }, [
      el("p", { text: (who || "Someone else") + " removed the section “" + title + "”" + (unsent ? " while you were writing in it." : ".") }),
      el("div", { className: "dialog-buttons" }, [dismiss, restore]),
    ]);
    // The notice goes once answered; the focus, if it was in it, to "Add section" rather than
    // to the page.
    function close() {
      var focused = note.contains(document.activeElement);
      note.remove();
      if (focused) root.querySelector("#section-add").focus();
    }
    restore.addEventListener("click", function () {
      write([{ op: "card.addSection", title: title, body: body }], function (r) {
        if (r.ok) close(); else showError(note, errorText(r));
      });
    });
    dismiss.addEventListener("click", close);
    // Whoever was typing types on for a moment: a space on the focused notice would scroll
    // the page away from it.
    ["keydown", "keypress"].forEach(function (type) {
      note.addEventListener(type, function (ev) { if (ev.target === note && ev.key === " ") ev.preventDefault(); });
    });
    box.prepend(note);
    return note;
  }

  function togglePreview(sec) {
    var btn = sec.el.querySelector("[data-testid=section-preview]");
    var on = btn.getAttribute("aria-pressed") !== "true";
    btn.setAttribute("aria-pressed", on ? "true" : "false");
    btn.textContent = on ? "Edit" : "Preview";
    sec.host.hidden = on;
    sec.previewEl.hidden = !on;
    if (on) {
      flush(sec);
      sec.previewEl.textContent = "Rendering…";
      whenSaved(sec, function () { renderPreview(sec); });
    } else {
      sec.view.focus();
    }
  }

  // whenSaved calls fn once the section has nothing unsent (or after a few seconds anyway).
  function whenSaved(sec, fn) {
    var tries = 0;
    (function check() {
      if ((!sec.inflight && !sec.pending) || ++tries > 50) fn();
      else setTimeout(check, 100);
    })();
  }

  // renderPreview shows the section as the read view does: the server's sanitised rendering.
  function renderPreview(sec) {
    fetch(cfg.bodyUrl, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } })
      .then(function (res) { if (!res.ok) throw new Error("HTTP " + res.status); return res.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var found = doc.querySelector('[data-testid="section"][data-id="' + CSS.escape(sec.id) + '"] .prose');
        sec.previewEl.replaceChildren.apply(sec.previewEl, found ? Array.from(found.childNodes).map(function (n) { return document.importNode(n, true); }) : []);
        if (!found || !found.childNodes.length) sec.previewEl.append(el("p", { className: "muted", text: "Nothing written yet." }));
      })
      .catch(function () { sec.previewEl.textContent = "The preview could not be loaded; try again."; });
  }

  // ---- text: local edits, flushing, acknowledgements, remote edits --------------------------

  function localUpdate(sec, u) {
    u.transactions.forEach(function (tr) {
      if (!tr.docChanged || tr.annotation(remote)) return;
      var op = OT.fromChangeSet(tr.changes);
      sec.pending = sec.pending ? OT.compose(sec.pending, op) : op;
    });
    if (u.docChanged && sec.pending && sec.pending.length && !sec.timer) {
      sec.timer = setTimeout(function () { sec.timer = 0; flush(sec); }, FLUSH_MS);
      status();
    }
    if (u.selectionSet || u.focusChanged || u.docChanged) scheduleCursor(sec);
  }

  function flush(sec) {
    if (sec.inflight || !sec.pending || !sec.pending.length || readOnly) {
      if (sec.pending && !sec.pending.length) sec.pending = null;
      return;
    }
    sec.inflight = sec.pending;
    sec.pending = null;
    sec.inflightVersion = 0;
    var op = { op: "card.editSectionText", id: sec.id, baseVersion: version, splices: OT.toSplices(sec.inflight) };
    sec.inflightSeq = write([op], function (r, s) {
      // A saved edit clears the section's message, also when the stream acknowledged it
      // before this answer came.
      if (r.ok && sec.err) { sec.err = ""; showError(sec.el, ""); }
      if (sec.inflightSeq !== s) return; // acknowledged on the stream already
      if (r.ok) {
        sec.inflightVersion = r.body.version; // acknowledged on the stream at that version
        return;
      }
      // Not applied: take the edit back into pending (it is rebased like any other) and
      // send it again later. The text stays in the editor.
      var code = r.body && r.body.error && r.body.error.code;
      unInflight(sec);
      if (code === "stale_base_version") {
        setTimeout(function () { flush(sec); }, 300);
      } else if (code === "not_found_in_document") {
        // The section was removed meanwhile; its removal reaches us on the stream.
      } else {
        sec.err = errorText(r);
        showError(sec.el, "Not saved: " + sentence(sec.err) + " Edit the text to try again.");
      }
      status();
    });
  }

  function unInflight(sec) {
    if (!sec.inflight) return;
    sec.pending = sec.pending ? OT.compose(sec.inflight, sec.pending) : sec.inflight;
    sec.inflight = null;
    sec.inflightSeq = 0;
  }

  // remoteText applies a change someone else made to the section's body, given in the
  // coordinates of the body at the version before it. first says this editor's inserts go
  // before the change's where both insert at one point (its client id is the smaller), as
  // the server decides.
  function remoteText(sec, change, v, first) {
    sec.base = OT.apply(sec.base, change);
    sec.recent.push({ version: v, op: change });
    if (sec.recent.length > 50) sec.recentFrom = sec.recent.shift().version;
    var s = change, r;
    if (sec.inflight) { r = OT.transform(sec.inflight, s, first); sec.inflight = r[0]; s = r[1]; }
    if (sec.pending) { r = OT.transform(sec.pending, s, first); sec.pending = r[0]; s = r[1]; }
    if (s.length) {
      // Text someone else inserts right at this editor's cursor goes after it, so each
      // writer's words stay together when two type at the same place.
      var view = sec.view, cs = CM.ChangeSet.of(OT.toChangeSpec(s), view.state.doc.length);
      view.dispatch({ changes: cs, selection: view.state.selection.map(cs, -1),
        annotations: [remote.of(true), CM.Transaction.addToHistory.of(false)] });
    }
  }

  // textChange returns the change from text a to text b, for catching up from a whole copy:
  // each stretch the two share left alone (LoreCM.changes), so the undo history keeps its
  // places in them.
  function textChange(a, b) {
    return OT.fromChangeSet(CM.ChangeSet.of(window.LoreCM.changes(a, b), a.length));
  }

  // ---- applying the stream's events ----------------------------------------------------------

  function sectionChange(op) {
    switch (op.op) {
      case "card.editSectionText": return OT.fromSplices(op.splices || []);
      case "card.updateSection":
        return typeof op.body === "string" ? OT.fromSplices([{ pos: 0, del: op.previousBodyLength || 0, ins: op.body }]) : null;
    }
    return null;
  }

  // applyOp applies one op as applied (from the stream) to the model and the page. own is
  // true for this editor's own writes, whose text edits are already in the editor; first
  // for a write by a client whose id is greater than this editor's (see remoteText); who
  // names the writer.
  function applyOp(op, own, v, first, who) {
    var i, sec;
    switch (op.op) {
      case "card.rename":
        model.name = op.name;
        showName();
        if (Live.refreshCrumbs) Live.refreshCrumbs(cfg.bodyUrl);
        break;
      case "card.setAliases": model.aliases = op.aliases || []; showAliases(); break;
      case "card.setProperty":
        i = model.properties.findIndex(function (p) { return p.key === op.key; });
        if (i >= 0) model.properties[i] = { key: op.key, value: op.value };
        else model.properties.push({ key: op.key, value: op.value });
        showProperties();
        break;
      case "card.removeProperty":
        model.properties = model.properties.filter(function (p) { return p.key !== op.key; });
        showProperties();
        break;
      case "card.addSection":
        i = Math.min(typeof op.index === "number" ? op.index : model.sections.length, model.sections.length);
        model.sections.splice(i, 0, { id: op.id, title: op.title, body: op.body || "", secret: !!op.secret });
        showSections();
        break;
      case "card.moveSection":
        i = indexOf(op.id);
        if (i >= 0) {
          var moved = model.sections.splice(i, 1)[0];
          model.sections.splice(op.index, 0, moved);
          showSections();
          if (own && sections[op.id] && document.activeElement && document.activeElement.closest(".section-tools")) {
            var b = sections[op.id].buttons;
            (document.activeElement === b.up && !b.up.disabled ? b.up : document.activeElement === b.down && !b.down.disabled ? b.down : b.up.disabled ? b.down : b.up).focus();
          }
        }
        break;
      case "card.removeSection":
        sec = sections[op.id];
        model.sections = model.sections.filter(function (s) { return s.id !== op.id; });
        if (sec) {
          var wasFocused = sec.el.contains(document.activeElement);
          var note = own ? null : offerRestore(sec.title, sec.view.state.doc.toString(), !!(sec.inflight || sec.pending), who);
          sec.view.destroy();
          sec.el.remove();
          delete sections[op.id];
          if (wasFocused && note) {
            // Someone else removed the section being written in: the notice takes the focus
            // (and comes into view), where the next keystrokes do nothing; on a button they
            // would press it.
            note.tabIndex = -1;
            note.focus();
          } else if (wasFocused) {
            root.querySelector("#section-add").focus();
          }
        }
        showSections();
        break;
      case "card.updateSection":
        sec = sections[op.id];
        if (!sec) break;
        if (typeof op.title === "string") {
          sec.title = op.title;
          setValue(sec.titleInput, op.title);
          labelSection(sec);
        }
        if (!own || typeof op.body === "string") {
          var change = sectionChange(op);
          if (change) remoteText(sec, change, v, first);
        }
        break;
      case "card.editSectionText":
        sec = sections[op.id];
        if (sec && !own) remoteText(sec, sectionChange(op), v, first);
        break;
      case "card.setSectionSecret":
        i = indexOf(op.id);
        if (i >= 0) model.sections[i].secret = !!op.secret;
        if (sections[op.id]) showSecret(sections[op.id], !!op.secret);
        break;
    }
  }

  function handleOps(ev) {
    if (ev.version <= version) return; // already applied
    var mine = ev.clientId === clientId, first = clientId < (ev.clientId || "");
    var acked = null;
    if (mine) {
      Object.keys(sections).forEach(function (id) {
        if (sections[id].inflightSeq === ev.clientSeq && sections[id].inflight) acked = sections[id];
      });
    }
    // An own edit of a section's text is in the editor already; its acknowledgement moves
    // the in-flight edit into the section's base text.
    (ev.ops || []).forEach(function (op) {
      if (mine && op.op === "card.editSectionText") return;
      applyOp(op, mine, ev.version, first, ev.actor && ev.actor.name);
    });
    if (acked) {
      acked.base = OT.apply(acked.base, acked.inflight);
      acked.inflight = null;
      acked.inflightSeq = 0;
    }
    version = ev.version;
    if (mine && focusOnCreate[ev.clientSeq]) {
      delete focusOnCreate[ev.clientSeq];
      var added = (ev.ops || []).filter(function (o) { return o.op === "card.addSection"; })[0];
      if (added && sections[added.id]) {
        sections[added.id].titleInput.focus();
        sections[added.id].titleInput.select();
      }
    }
    if (acked) {
      flush(acked);
      // Our cursor was sent in the text without our unacknowledged typing: now it is in.
      if (cursorSection === acked) scheduleCursor(acked);
    }
    refreshCursors();
    status();
  }

  // resync catches up from a whole copy of the card (a snapshot: the stream could not replay
  // what was missed). Each section's unsent edits are rebased over the difference between
  // the text they were made on and the server's, so nothing typed is lost.
  function resync(snap, done) {
    var data = snap.data || {};
    // An in-flight edit the server answered is in the snapshot when its version is; one it
    // did not answer yet is sent again until it answers (which says whether it was applied).
    var waiting = Object.keys(sections).some(function (id) {
      return sections[id].inflight && !sections[id].inflightVersion;
    });
    if (waiting) {
      setTimeout(function () { resync(snap, done); }, 200);
      return;
    }
    model.name = data.name || "";
    model.aliases = data.aliases || [];
    model.properties = data.properties || [];
    var incoming = data.sections || [];
    var ids = {};
    incoming.forEach(function (s) { ids[s.id] = true; });
    Object.keys(sections).forEach(function (id) {
      if (!ids[id]) {
        sections[id].view.destroy();
        sections[id].el.remove();
        delete sections[id];
      }
    });
    incoming.forEach(function (s) {
      var sec = sections[s.id];
      if (!sec) return;
      if (sec.inflight && sec.inflightVersion <= snap.version) {
        sec.base = OT.apply(sec.base, sec.inflight);
        sec.inflight = null;
        sec.inflightSeq = 0;
      }
      // What changed on the server since, as one change: rebased over what is unsent.
      remoteText(sec, textChange(sec.base, s.body), snap.version, false);
      sec.recent = [];
      sec.recentFrom = snap.version;
      sec.title = s.title;
      setValue(sec.titleInput, s.title);
      labelSection(sec);
      showSecret(sec, !!s.secret);
    });
    model.sections = incoming.map(function (s) { return { id: s.id, title: s.title, body: s.body, secret: !!s.secret }; });
    version = snap.version;
    showName();
    showAliases();
    showProperties();
    showSections();
    Object.keys(sections).forEach(function (id) { flush(sections[id]); });
    verifySoon();
    done();
  }

  // verifySoon compares, once nothing is unsent, every section's text with the server's at
  // the same version, and takes the server's where they differ: after catching up from a
  // snapshot (which rebases over a computed difference, not the real history) the texts
  // end up identical.
  var verifyTimer = 0, corrections = 0;
  function verifySoon() {
    if (verifyTimer) return;
    var tries = 0;
    verifyTimer = setTimeout(function check() {
      if (gone || ++tries > 30) { verifyTimer = 0; return; }
      if (!connected || unsent() || busy) { verifyTimer = setTimeout(check, 500); return; }
      fetch(cfg.docApi, { credentials: "same-origin", cache: "no-store" })
        .then(function (res) { if (!res.ok) throw new Error("HTTP " + res.status); return res.json(); })
        .then(function (d) {
          if (d.version !== version || unsent() || busy) { verifyTimer = setTimeout(check, 500); return; }
          verifyTimer = 0;
          if (d.name && d.name !== metaName) { metaName = d.name; showName(); }
          var secs = (d.content && d.content.data && d.content.data.sections) || [];
          secs.forEach(function (s) {
            var sec = sections[s.id];
            if (sec && sec.base !== s.body) {
              // Should not happen: say so (tests fail on it), then take the server's text.
              corrections++;
              root.dataset.corrections = String(corrections);
              console.warn("loreweave editor: section " + s.id + " differed from the server's copy at version " + version + "; took the server's");
              remoteText(sec, textChange(sec.base, s.body), version, false);
            }
          });
        })
        .catch(function () { verifyTimer = setTimeout(check, 1000); });
    }, 300);
  }

  function enqueue(kind, data) {
    queue.push({ kind: kind, data: data });
    pumpQueue();
  }

  function pumpQueue() {
    if (busy) return;
    var item = queue.shift();
    if (!item) return;
    // A restore of an earlier version (the op document.restore) carries the whole card: it is
    // caught up from like a snapshot, unsent edits rebased over it.
    var restored = item.kind === "ops" && (item.data.ops || []).filter(function (o) { return o.op === "document.restore"; })[0];
    if (restored) {
      if (item.data.version <= version) { pumpQueue(); return; }
      item = { kind: "snapshot", data: { version: item.data.version, data: restored.data } };
    }
    if (item.kind === "snapshot") {
      if (item.data.version === version) { pumpQueue(); return; }
      busy = true;
      resync(item.data, function () { busy = false; status(); pumpQueue(); });
      return;
    }
    if (item.kind === "ops") handleOps(item.data);
    pumpQueue();
  }

  // ---- remote cursors -----------------------------------------------------------------------

  // localPos maps a position of a section's body at version v to the editor's text.
  function localPos(sec, pos, v) {
    if (v > version || v < sec.recentFrom) return -1;
    for (var i = 0; i < sec.recent.length; i++) {
      // Text typed right at the cursor (usually by its owner) goes before it.
      if (sec.recent[i].version > v) pos = OT.mapPos(sec.recent[i].op, pos, 1);
    }
    if (sec.inflight) pos = OT.mapPos(sec.inflight, pos, -1);
    if (sec.pending) pos = OT.mapPos(sec.pending, pos, -1);
    return Math.min(pos, sec.view.state.doc.length);
  }

  function refreshCursors() {
    Object.keys(sections).forEach(function (id) {
      var sec = sections[id], marks = [];
      Object.keys(cursors).forEach(function (cid) {
        var c = cursors[cid];
        if (c.field !== id) return;
        var head = localPos(sec, c.head, c.version), anchor = localPos(sec, c.anchor, c.version);
        if (head < 0 || anchor < 0) return;
        var from = Math.min(head, anchor), to = Math.max(head, anchor);
        if (from < to) marks.push(CM.Decoration.mark({ class: "remote-selection rc-" + colourIndex(c.user.colour) }).range(from, to));
        marks.push(CM.Decoration.widget({ widget: new Caret(c.user.name, c.user.colour), side: 1 }).range(head));
      });
      sec.view.dispatch({ effects: setCursorMarks.of(CM.Decoration.set(marks, true)) });
    });
  }

  function handleCursor(c) {
    if (!c || c.clientId === clientId || !c.user) return;
    cursors[c.clientId] = c;
    refreshCursors();
  }

  function dropCursorsOf(viewers) {
    var present = {};
    (viewers || []).forEach(function (v) { present[v.id] = true; });
    var changed = false;
    Object.keys(cursors).forEach(function (cid) {
      if (!present[cursors[cid].user.id]) { delete cursors[cid]; changed = true; }
    });
    if (changed) refreshCursors();
  }

  // Our own cursor, in the coordinates of the section's body at `version`.
  var cursorTimer = 0, cursorSection = null;
  function scheduleCursor(sec) {
    if (sec.view.hasFocus) cursorSection = sec;
    else if (cursorSection === sec) cursorSection = null;
    if (cursorTimer || readOnly) return;
    cursorTimer = setTimeout(sendCursor, CURSOR_MS);
  }

  function sendCursor() {
    cursorTimer = 0;
    var sec = cursorSection, body = { clientId: clientId, field: "", anchor: 0, head: 0, version: version };
    if (sec && sections[sec.id]) {
      var serverPos = function (p) {
        if (sec.pending) p = OT.unmapPos(sec.pending, p);
        if (sec.inflight) p = OT.unmapPos(sec.inflight, p);
        return p;
      };
      var sel = sec.view.state.selection.main;
      body.field = sec.id;
      body.anchor = serverPos(sel.anchor);
      body.head = serverPos(sel.head);
    }
    if (!connected) return;
    post(cfg.cursorUrl, body).catch(function () { /* cursors are best effort */ });
  }

  // ---- read-only ------------------------------------------------------------------------------

  function setReadOnly() {
    readOnly = true;
    Object.keys(sections).forEach(function (id) {
      sections[id].view.dispatch({ effects: editable.reconfigure(CM.EditorView.editable.of(false)) });
    });
    root.querySelectorAll("input, button").forEach(function (x) { x.disabled = true; });
  }

  // ---- the stream -------------------------------------------------------------------------------

  function connect() {
    var last = String(version);
    var es;
    function open() {
      es = new EventSource(cfg.stream + (cfg.stream.indexOf("?") < 0 ? "?" : "&") + "lastEventId=" + encodeURIComponent(last));
      es.addEventListener("open", function () {
        var again = connected === false && started;
        connected = true;
        started = true;
        status();
        Object.keys(sections).forEach(function (id) { flush(sections[id]); });
        if (again) {
          // What is not replayed (renames and moves) may have been missed.
          if (Live.refreshCrumbs) Live.refreshCrumbs(cfg.bodyUrl);
          if (Live.refreshBacklinks) Live.refreshBacklinks();
          verifySoon();
        }
      });
      es.addEventListener("error", function () {
        connected = false;
        status();
        if (es.readyState === EventSource.CLOSED && !gone) {
          // The server refused to resume (the browser stops retrying then): try again.
          setTimeout(open, 2000);
        }
      });
      function on(name, fn) {
        es.addEventListener(name, function (ev) {
          if (ev.lastEventId) last = ev.lastEventId;
          var data;
          try { data = JSON.parse(ev.data); } catch (e) { return; }
          fn(data);
        });
      }
      on("snapshot", function (d) { enqueue("snapshot", d); });
      on("ops", function (d) { enqueue("ops", d); });
      on("cursor", handleCursor);
      on("presence", function (d) {
        if (Live.showPresence) Live.showPresence(d.viewers || []);
        dropCursorsOf(d.viewers);
      });
      on("metadata", function (d) {
        if (d.document && d.document.name) {
          metaName = d.document.name;
          showName();
        }
        if (Live.refreshCrumbs) Live.refreshCrumbs(cfg.bodyUrl);
      });
      on("backlinks", function () {
        if (Live.refreshBacklinks) Live.refreshBacklinks();
      });
      on("deleted", function () {
        es.close();
        var page = document.querySelector("[data-doc-live]");
        if (page) page.dataset.deleted = "";
        if (Live.showPresence) Live.showPresence([]);
        stop("This document was deleted, or you can no longer see it");
      });
    }
    open();
    window.addEventListener("pagehide", function () { es.close(); });
    // Back online, reconnect at once rather than when the browser's retry delay is up.
    window.addEventListener("online", function () {
      if (!gone && es.readyState !== EventSource.OPEN) { es.close(); open(); }
    });
    window.addEventListener("pageshow", function (ev) { if (ev.persisted) open(); });
  }

  // ---- start ------------------------------------------------------------------------------------

  var readView = document.getElementById("doc-body");
  if (readView) readView.hidden = true;
  root.hidden = false;
  showName();
  showAliases();
  showProperties();
  showSections();
  status();
  connect();
})();
