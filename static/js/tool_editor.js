// The generic editor of a tool document (docs/TOOLS.md): a form built from the type's
// fields (ops.FormField, in layout order), each write one of the type's declared ops.
//
// Scalars are set whole when a control changes (text inputs when left or on Enter); list
// items are added, edited, removed (after asking) and moved up or down by id. Markdown fields
// with a `text` op are CodeMirror editors kept in step with everyone else's typing exactly as
// a card's sections are (static/js/editor.js): the server's op log fixes one order; each text
// has at most one edit in flight (sent with the version it was made on) and the edits typed
// since (pending); someone else's splices are rebased over both. The page's stream
// (static/js/live.js) hands over the document's events as "loreweave:ops" and
// "loreweave:snapshot"; remote changes update the form without touching an input its user
// is typing in.
//
// Nothing here builds HTML from strings: elements are made with createElement and filled
// with textContent.
(function () {
  "use strict";
  var root = document.querySelector("[data-tool-editor]");
  if (!root || !window.CM || !window.LoreOT || !window.LoreCM) return;
  var CM = window.CM, OT = window.LoreOT;
  var retryLater = window.LoreLive && window.LoreLive.retryLater || function (attempt, delay) { setTimeout(attempt, delay); };

  var FLUSH_MS = 60;        // keystroke batching
  var RETRY_MAX_MS = 8000;  // back-off ceiling for failed requests

  var cfg = root.dataset;
  var initial = JSON.parse(document.getElementById("tool-editor-data").textContent);
  var fields = initial.fields || [];
  var model = initial.data || {};
  var version = initial.version;
  var documents = initial.documents || [];
  var clientId = "t" + Math.random().toString(36).slice(2, 12);
  var seq = 0, requests = 0, unreachable = false, gone = false;
  var texts = {};          // text key (path, or path#itemId) -> collaborative text state
  var opIndex = {};        // op name -> {kind, field}
  var controls = [];       // the top-level fields' controls
  var focusOnCreate = {};  // client seq -> the list control whose new item gets the focus
  var remote = CM.Annotation.define();
  var editable = new CM.Compartment();
  var form = root.querySelector("[data-tool-form]");
  var uid = 0;

  // ---- requests ---------------------------------------------------------------------------

  function post(body) {
    return fetch(cfg.contentUrl, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": cfg.csrf },
      body: JSON.stringify(body),
    }).then(function (res) {
      return res.json().catch(function () { return null; }).then(function (b) { return { ok: res.ok, status: res.status, body: b }; });
    });
  }

  function errorCode(r) { return r && r.body && r.body.error ? r.body.error.code : ""; }

  function errorText(r) {
    var e = r && r.body && r.body.error;
    var msg = e && e.message ? e.message : "the server answered " + (r ? r.status : "nothing");
    return msg.charAt(0).toUpperCase() + msg.slice(1);
  }

  // sentence ends a message with a full stop when it has none (the server's messages have
  // none), so that another sentence can follow it.
  function sentence(msg) { return /[.!?]$/.test(msg) ? msg : msg + "."; }

  // write sends ops and calls done(result, seq) once the server has answered for good: sent
  // again with the same sequence number while the network or the server fails, so nothing is
  // lost or applied twice.
  function write(ops, done) {
    var s = ++seq, delay = 500;
    requests++;
    status();
    (function attempt() {
      post({ ops: ops, clientId: clientId, clientSeq: s }).then(function (r) {
        var busy = r.status >= 500 || r.status === 429 || (r.status === 409 && errorCode(r) !== "tool_not_installed");
        if (busy) throw new Error("retry");
        unreachable = false;
        requests--;
        if (r.status === 401 || (r.status === 403 && errorCode(r) === "csrf_failed")) {
          stop("Your session has ended: sign in again in another tab, then reload.");
        } else if (r.status === 403) {
          stop("You can no longer edit this document: your role in this world may have changed. Reload to see it as it is now.");
        } else if (r.status === 404) {
          stop("This document was deleted, or you can no longer see it.");
        } else if (errorCode(r) === "tool_not_installed") {
          stop(errorText(r) + " Reload the page to see its stored text.");
        }
        status();
        if (done) done(r, s);
      }).catch(function (err) {
        if (!err || err.message !== "retry") unreachable = true;
        status();
        retryLater(attempt, delay);
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      });
    })();
    return s;
  }

  // ---- status -----------------------------------------------------------------------------

  function unsent() {
    return requests > 0 || Object.keys(texts).some(function (k) { return texts[k].inflight || texts[k].pending; });
  }

  function status() {
    var el = root.querySelector("[data-save-status]"), text;
    if (gone) text = root.dataset.stopped;
    else if (unreachable) text = "Offline, reconnecting… Your edits are kept and will be sent.";
    else if (unsent()) text = "Saving…";
    else text = "All changes saved";
    if (el.textContent !== text) el.textContent = text;
    root.classList.toggle("offline", unreachable && !gone);
  }

  // stop ends editing for good with message, which says so when there is text not saved.
  function stop(message) {
    var lost = unsent();
    gone = true;
    root.dataset.stopped = lost ? sentence(message) + " What you wrote since the last save is still here: copy it if you need it." : message;
    Object.keys(texts).forEach(function (k) {
      texts[k].view.dispatch({ effects: editable.reconfigure(CM.EditorView.editable.of(false)) });
    });
    root.querySelectorAll("input, select, textarea, button").forEach(function (x) { if (!x.closest("dialog")) x.disabled = true; });
  }

  window.addEventListener("beforeunload", function (ev) {
    if (!gone && unsent()) { ev.preventDefault(); ev.returnValue = ""; }
  });

  // ---- small helpers ----------------------------------------------------------------------

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

  function showError(box, message) {
    var p = box.querySelector(":scope > .field-error");
    if (!p) return;
    p.textContent = message || "";
    p.hidden = !message;
  }

  function answered(box) {
    return function (r) { showError(box, r.ok ? "" : errorText(r)); };
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

  function getAt(obj, path) {
    return path.split(".").reduce(function (o, k) { return o && typeof o === "object" ? o[k] : undefined; }, obj);
  }

  function setAt(obj, path, value) {
    var keys = path.split("."), o = obj;
    for (var i = 0; i < keys.length - 1; i++) {
      if (!o[keys[i]] || typeof o[keys[i]] !== "object") o[keys[i]] = {};
      o = o[keys[i]];
    }
    o[keys[keys.length - 1]] = value;
  }

  function label(f) { return f.label || f.key; }

  function docName(id) {
    for (var i = 0; i < documents.length; i++) if (documents[i].id === id) return documents[i].name;
    return "";
  }

  // emptyValue is what a new item's required field starts as (the engine's empty rule).
  function emptyValue(f) {
    switch (f.kind) {
      case "enum": return f.enum && f.enum.length ? f.enum[0] : "";
      case "integer": case "number": return Math.max(0, typeof f.minimum === "number" ? f.minimum : 0);
      case "boolean": return false;
      case "values": case "list": return [];
      case "object": var o = {}; (f.fields || []).forEach(function (x) { o[x.key] = emptyValue(x); }); return o;
    }
    return "";
  }

  // ---- the ops of the form ------------------------------------------------------------------

  (function index(list) {
    list.forEach(function (f) {
      if (f.setOp) opIndex[f.setOp] = { kind: "set", field: f };
      if (f.textOp) opIndex[f.textOp] = { kind: "text", field: f };
      ["append", "update", "remove", "move"].forEach(function (k) {
        if (f[k + "Op"]) opIndex[f[k + "Op"]] = { kind: k, field: f };
      });
      if (f.fields) index(f.fields);
    });
  })(fields);

  // listPath is the path of the list a field of its items is in ("relations" for
  // "relations.notes").
  function listPath(f) { return f.path.slice(0, f.path.length - f.key.length - 1); }

  function findItem(list, id) {
    for (var i = 0; i < (list || []).length; i++) if (list[i] && list[i].id === id) return i;
    return -1;
  }

  // applyModel applies one op, as the server applied it, to the model. A text op someone
  // else made also goes into its editor; this editor's own is in it already. first: the op's
  // writer has a greater client id than this editor (see remoteText).
  function applyModel(op, mine, first) {
    var d = opIndex[op.op];
    if (!d) return;
    var f = d.field, list, i;
    switch (d.kind) {
      case "set":
        setAt(model, f.path, op[f.key]);
        break;
      case "append":
        list = getAt(model, f.path) || [];
        var item = {};
        Object.keys(op).forEach(function (k) { if (k !== "op") item[k] = op[k]; });
        list.push(item);
        setAt(model, f.path, list);
        break;
      case "update":
        list = getAt(model, f.path) || [];
        i = findItem(list, op.id);
        if (i >= 0) {
          Object.keys(op).forEach(function (k) { if (k !== "op" && k !== "id" && k !== "previousLengths") list[i][k] = op[k]; });
        }
        break;
      case "remove":
        list = getAt(model, f.path) || [];
        setAt(model, f.path, list.filter(function (x) { return x.id !== op.id; }));
        break;
      case "move":
        list = getAt(model, f.path) || [];
        i = findItem(list, op.id);
        if (i >= 0) list.splice(Math.min(op.index, list.length - 1), 0, list.splice(i, 1)[0]);
        break;
      case "text":
        var change = OT.fromSplices(op.splices || []), key = f.path, holder = model, prop = f.path;
        if (op.id) {
          list = getAt(model, listPath(f)) || [];
          i = findItem(list, op.id);
          if (i < 0) return;
          holder = list[i];
          prop = f.key;
          key = f.path + "#" + op.id;
        }
        var before = (prop.indexOf(".") < 0 ? holder[prop] : getAt(holder, prop)) || "";
        var after = OT.apply(before, change);
        if (prop.indexOf(".") < 0) holder[prop] = after; else setAt(holder, prop, after);
        if (!mine && texts[key]) remoteText(texts[key], change, first);
        break;
    }
  }

  // ---- collaborative Markdown texts -----------------------------------------------------------

  // makeText builds the editor of a Markdown field with a text op; item is {list, id} for a
  // field of a list's items.
  function makeText(f, item, host, name) {
    var key = item ? f.path + "#" + item.id : f.path;
    var start = item ? (getAt(model, item.list.path) || [])[findItem(getAt(model, item.list.path), item.id)] : null;
    var value = (item ? (start && start[f.key]) : getAt(model, f.path)) || "";
    var t = { key: key, field: f, itemId: item ? item.id : "", base: value, inflight: null, pending: null,
      inflightSeq: 0, inflightVersion: 0, timer: 0, box: host.parentElement };
    t.view = new CM.EditorView({
      parent: host,
      state: CM.EditorState.create({
        doc: value,
        extensions: window.LoreCM.markdownEditor(cfg.styleNonce, name).concat([
          editable.of(CM.EditorView.editable.of(!gone)),
          CM.EditorView.updateListener.of(function (u) { localUpdate(t, u); }),
        ]),
      }),
    });
    texts[key] = t;
    return t;
  }

  function dropText(t) {
    clearTimeout(t.timer);
    t.view.destroy();
    delete texts[t.key];
  }

  function localUpdate(t, u) {
    u.transactions.forEach(function (tr) {
      if (!tr.docChanged || tr.annotation(remote)) return;
      var op = OT.fromChangeSet(tr.changes);
      t.pending = t.pending ? OT.compose(t.pending, op) : op;
    });
    if (u.docChanged && t.pending && t.pending.length && !t.timer) {
      t.timer = setTimeout(function () { t.timer = 0; flush(t); }, FLUSH_MS);
      status();
    }
  }

  function flush(t) {
    if (t.inflight || !t.pending || !t.pending.length || gone || !texts[t.key]) {
      if (t.pending && !t.pending.length) t.pending = null;
      return;
    }
    t.inflight = t.pending;
    t.pending = null;
    t.inflightVersion = 0;
    var op = { op: t.field.textOp, baseVersion: version, splices: OT.toSplices(t.inflight) };
    if (t.itemId) op.id = t.itemId;
    t.inflightSeq = write([op], function (r, s) {
      // A saved edit clears the text's message, also when the stream acknowledged it
      // before this answer came.
      if (r.ok) showError(t.box, "");
      if (t.inflightSeq !== s) return; // acknowledged on the stream already
      if (r.ok) {
        t.inflightVersion = r.body.version;
        return;
      }
      // Not applied: the edit goes back into pending (rebased like any other) and is sent
      // again later. The text stays in the editor.
      if (t.inflight) {
        t.pending = t.pending ? OT.compose(t.inflight, t.pending) : t.inflight;
        t.inflight = null;
        t.inflightSeq = 0;
      }
      var code = errorCode(r);
      if (code === "stale_base_version") setTimeout(function () { flush(t); }, 300);
      else if (code !== "not_found_in_document") showError(t.box, "Not saved: " + sentence(errorText(r)) + " Edit the text to try again.");
      status();
    });
  }

  // remoteText applies someone else's change to a text, given on the text as the server had
  // it before the change. first says this editor's inserts go before the change's where both
  // insert at one point (its client id is the smaller), as the server decides.
  function remoteText(t, change, first) {
    t.base = OT.apply(t.base, change);
    var s = change, r;
    if (t.inflight) { r = OT.transform(t.inflight, s, first); t.inflight = r[0]; s = r[1]; }
    if (t.pending) { r = OT.transform(t.pending, s, first); t.pending = r[0]; s = r[1]; }
    if (s.length) {
      var view = t.view, cs = CM.ChangeSet.of(OT.toChangeSpec(s), view.state.doc.length);
      view.dispatch({ changes: cs, selection: view.state.selection.map(cs, -1),
        annotations: [remote.of(true), CM.Transaction.addToHistory.of(false)] });
    }
  }

  // showText catches a text up with the server's value when it changed other than by a
  // text op (a set or an update of the field, a restore).
  function showText(t, value) {
    value = value || "";
    if (t.base === value) return;
    var change = OT.fromChangeSet(CM.ChangeSet.of(window.LoreCM.changes(t.base, value), t.base.length));
    remoteText(t, change, false);
  }

  // ---- controls -------------------------------------------------------------------------------

  // makeControl returns the control of field f: {el, show(value)}. item is {list, id} for a
  // field of a list's items (written with the list's update op), else null.
  function makeControl(f, item, name) {
    if (f.kind === "list") return listControl(f);
    if (f.kind === "object") return objectControl(f, item);
    var id = "tf-" + (++uid);
    var box = el("div", { className: "field tool-field", "data-testid": "tool-field-edit", "data-path": f.path });
    var opName = item ? item.list.updateOp : f.setOp;
    var canWrite = !!opName;
    var commit = function (value) {
      var op = { op: opName };
      if (item) op.id = item.id;
      op[f.key] = value;
      write([op], answered(box));
    };
    var lab = el("label", { "for": id, text: name || label(f) });
    var help = f.help ? el("p", { className: "hint", id: id + "-help", text: f.help }) : null;
    var err = el("p", { className: "field-error", role: "alert", hidden: "" });
    var input, show;
    switch (f.kind) {
      case "markdown":
        if (f.textOp) {
          var host = el("div", { className: "section-body-editor", "data-testid": "tool-text" });
          lab = el("span", { className: "label", id: id, text: name || label(f) });
          box.append(lab, host);
          if (help) box.append(help);
          box.append(err);
          var t = makeText(f, item, host, name || label(f));
          return { el: box, show: function (v) { if (texts[t.key]) showText(t, v); }, destroy: function () { dropText(t); } };
        }
        input = el("textarea", { id: id, rows: "5" });
        if (f.maxLength) input.maxLength = f.maxLength;
        trackDirty(input);
        input.addEventListener("change", function () { delete input.dataset.dirty; commit(input.value); });
        show = function (v) { setValue(input, v == null ? "" : String(v)); };
        break;
      case "enum":
        input = el("select", { id: id });
        (f.enum || []).forEach(function (v) { input.append(el("option", { value: v, text: v })); });
        // An enum of numbers keeps its values numbers.
        var shown;
        input.addEventListener("change", function () { commit(typeof shown === "number" ? Number(input.value) : input.value); });
        show = function (v) { shown = v; input.value = v == null ? "" : String(v); };
        break;
      case "boolean":
        input = el("input", { id: id, type: "checkbox" });
        input.addEventListener("change", function () { commit(input.checked); });
        show = function (v) { input.checked = !!v; };
        box.classList.add("check-field");
        break;
      case "link":
        input = el("select", { id: id });
        input.append(el("option", { value: "", text: "— none —" }));
        documents.forEach(function (d) { input.append(el("option", { value: d.id, text: d.name + " (" + d.type + ")" })); });
        var open = el("a", { className: "small tool-link-open", "data-testid": "tool-link-open", hidden: "" });
        input.addEventListener("change", function () { commit(input.value); });
        show = function (v) {
          v = v || "";
          if (v && !input.querySelector('option[value="' + CSS.escape(v) + '"]')) {
            input.append(el("option", { value: v, text: docName(v) || "a document not listed here (" + v + ")" }));
          }
          input.value = v;
          open.hidden = !v;
          if (v) {
            open.href = initial.documentPage.replace("{id}", encodeURIComponent(v));
            open.textContent = "Open " + (docName(v) || "the linked document");
          }
        };
        box.append(lab, input, open);
        break;
      case "integer":
      case "number":
        input = el("input", { id: id, type: "number", step: f.kind === "integer" ? "1" : "any", inputmode: f.kind === "integer" ? "numeric" : "decimal" });
        if (typeof f.minimum === "number") input.min = String(f.minimum);
        if (typeof f.maximum === "number") input.max = String(f.maximum);
        trackDirty(input);
        input.addEventListener("change", function () {
          delete input.dataset.dirty;
          var n = input.value.trim() === "" ? NaN : Number(input.value);
          if (!isFinite(n)) { showError(box, "Write a number" + (f.kind === "integer" ? " (a whole one)." : ".")); return; }
          commit(n);
        });
        show = function (v) { setValue(input, v == null ? "" : String(v)); };
        break;
      case "values":
        input = el("textarea", { id: id, rows: "3" });
        if (!help) help = el("p", { className: "hint", id: id + "-help", text: "One value a line." });
        trackDirty(input);
        // A list of numbers stays numbers (the values shown tell which).
        var numbers = false;
        input.addEventListener("change", function () {
          delete input.dataset.dirty;
          var vals = input.value.split("\n").map(function (s) { return s.trim(); }).filter(Boolean);
          if (numbers) vals = vals.map(Number);
          commit(vals);
        });
        show = function (v) {
          v = v || [];
          if (v.length) numbers = typeof v[0] === "number";
          setValue(input, v.join("\n"));
        };
        break;
      default: // string, uri, email, date, datetime
        var type = { uri: "url", email: "email", date: "date" }[f.kind] || "text";
        input = el("input", { id: id, type: type, autocomplete: "off" });
        if (f.kind === "datetime") input.placeholder = "2024-05-01T18:30:00Z";
        if (f.maxLength) input.maxLength = f.maxLength;
        trackDirty(input);
        input.addEventListener("change", function () { delete input.dataset.dirty; commit(input.value); });
        input.addEventListener("keydown", function (ev) {
          if (ev.key === "Enter") { ev.preventDefault(); input.dispatchEvent(new Event("change")); }
        });
        show = function (v) { setValue(input, v == null ? "" : String(v)); };
    }
    input.dataset.testid = "tool-input";
    if (help) input.setAttribute("aria-describedby", help.id);
    if (f.required) input.required = true;
    if (!canWrite) input.disabled = true;
    if (!input.isConnected && !box.contains(input)) box.append(lab, input);
    if (help) box.append(help);
    box.append(err);
    return { el: box, show: show, input: input };
  }

  // objectControl groups an object's fields; each is set by its own op.
  function objectControl(f, item) {
    var box = el("fieldset", { className: "tool-object", "data-testid": "tool-field-edit", "data-path": f.path }, [el("legend", { text: label(f) })]);
    var kids = (f.fields || []).map(function (x) { var c = makeControl(x, item); box.append(c.el); return { f: x, c: c }; });
    return {
      el: box,
      show: function (v) { kids.forEach(function (k) { k.c.show(v ? v[k.f.key] : undefined); }); },
      destroy: function () { kids.forEach(function (k) { if (k.c.destroy) k.c.destroy(); }); },
    };
  }

  // listControl edits a list of items: each item's fields, add, remove (after asking), and
  // move up or down.
  function listControl(f) {
    var headingId = "tl-" + (++uid);
    var box = el("section", { className: "tool-list", "data-testid": "tool-list", "data-path": f.path, "aria-labelledby": headingId });
    var list = el("ol", { className: "tool-items" });
    var none = el("p", { className: "muted", text: "None yet." });
    var add = el("button", { type: "button", className: "secondary", "data-testid": "tool-item-add", text: "Add to " + label(f) });
    var err = el("p", { className: "field-error", role: "alert", hidden: "" });
    box.append(el("h2", { id: headingId, text: label(f) }));
    if (f.help) box.append(el("p", { className: "hint", text: f.help }));
    box.append(none, list);
    if (f.appendOp) box.append(el("div", { className: "form-actions" }, [add]));
    box.append(err);
    var items = {}, order = [];
    var ctl = { el: box, field: f, add: add, items: items };

    add.addEventListener("click", function () {
      if (gone) return;
      var op = { op: f.appendOp };
      (f.fields || []).forEach(function (x) { if (x.required) op[x.key] = emptyValue(x); });
      var s = write([op], answered(box));
      focusOnCreate[s] = ctl;
    });

    // itemName names an item by what it holds: the document its first link names, else its
    // first short text or choice, else its place in the list.
    function itemName(i, it) {
      var subs = f.fields || [];
      for (var j = 0; j < subs.length; j++) {
        if (subs[j].kind === "link" && it[subs[j].key] && docName(it[subs[j].key])) return docName(it[subs[j].key]);
      }
      for (j = 0; j < subs.length; j++) {
        var v = it[subs[j].key];
        if ((subs[j].kind === "string" || subs[j].kind === "enum") && typeof v === "string" && v.trim()) {
          v = v.trim();
          return v.length > 60 ? v.slice(0, 59) + "…" : v;
        }
      }
      return label(f) + " " + (i + 1);
    }

    function makeItem(it) {
      var li = el("li", { className: "tool-item card", "data-testid": "tool-item-edit", "data-id": it.id });
      var title = el("h3", { className: "tool-item-title" });
      var up = el("button", { type: "button", className: "secondary small", "data-testid": "tool-item-up", text: "↑" });
      var down = el("button", { type: "button", className: "secondary small", "data-testid": "tool-item-down", text: "↓" });
      var remove = el("button", { type: "button", className: "danger small", "data-testid": "tool-item-remove", text: "Remove" });
      var tools = el("div", { className: "section-tools" });
      if (f.moveOp) tools.append(up, down);
      if (f.removeOp) tools.append(remove);
      var ierr = el("p", { className: "field-error", role: "alert", hidden: "" });
      li.append(el("div", { className: "section-head" }, [title, tools]));
      var x = { el: li, title: title, up: up, down: down, remove: remove, id: it.id, kids: [] };
      var ref = { list: f, id: it.id };
      (f.fields || []).forEach(function (sf) {
        var c = makeControl(sf, ref, null);
        x.kids.push({ f: sf, c: c });
        li.append(c.el);
      });
      li.append(ierr);
      up.addEventListener("click", function () { move(x, -1); });
      down.addEventListener("click", function () { move(x, +1); });
      remove.addEventListener("click", function () { confirmRemove(x); });
      return x;
    }

    function move(x, by) {
      var to = order.indexOf(x.id) + by;
      if (to < 0 || to >= order.length) return;
      write([{ op: f.moveOp, id: x.id, index: to }], answered(x.el));
    }

    function confirmRemove(x) {
      var dialog = root.querySelector("#tool-remove-dialog");
      dialog.querySelector("[data-item-name]").textContent = x.name;
      dialog.returnValue = "";
      dialog.onclose = function () {
        if (dialog.returnValue !== "remove") { x.remove.focus(); return; }
        write([{ op: f.removeOp, id: x.id }], answered(x.el));
      };
      dialog.showModal();
    }

    ctl.show = function (arr) {
      arr = arr || [];
      var keep = {};
      arr.forEach(function (it, i) {
        var x = items[it.id] || (items[it.id] = makeItem(it));
        keep[it.id] = true;
        x.name = itemName(i, it);
        x.title.textContent = x.name;
        x.up.setAttribute("aria-label", "Move " + x.name + " up");
        x.down.setAttribute("aria-label", "Move " + x.name + " down");
        x.remove.setAttribute("aria-label", "Remove " + x.name);
        x.up.disabled = gone || i === 0;
        x.down.disabled = gone || i === arr.length - 1;
        x.kids.forEach(function (k) {
          relabel(k, x.name);
          k.c.show(it[k.f.key]);
        });
        if (list.children[i] !== x.el) {
          var active = document.activeElement, inside = x.el.contains(active);
          list.insertBefore(x.el, list.children[i] || null);
          if (inside && active && document.activeElement !== active) active.focus({ preventScroll: true });
        }
      });
      Object.keys(items).forEach(function (id) {
        if (keep[id]) return;
        var x = items[id], focused = x.el.contains(document.activeElement);
        x.kids.forEach(function (k) { if (k.c.destroy) k.c.destroy(); });
        x.el.remove();
        delete items[id];
        if (focused) (f.appendOp ? add : list).focus();
      });
      order = arr.map(function (it) { return it.id; });
      none.hidden = arr.length > 0;
    };
    return ctl;
  }

  // relabel names an item's field after the item ("Stance, Ember Court").
  function relabel(k, itemName) {
    var name = label(k.f) + ", " + itemName;
    var lab = k.c.el.querySelector(":scope > label, :scope > .label");
    if (lab && lab.dataset.name !== name) {
      lab.dataset.name = name;
      lab.textContent = label(k.f);
      if (k.c.input) k.c.input.setAttribute("aria-label", name);
      var content = k.c.el.querySelector(".cm-content");
      if (content) content.setAttribute("aria-label", name);
    }
  }

  function showAll() {
    controls.forEach(function (c) { c.show(getAt(model, c.field.path)); });
  }

  // ---- the stream -----------------------------------------------------------------------------

  function handleOps(ev) {
    if (typeof ev.version !== "number" || ev.version <= version) return; // applied already
    var restored = (ev.ops || []).filter(function (o) { return o.op === "document.restore"; })[0];
    if (restored) { resync({ version: ev.version, data: restored.data || {} }); return; }
    var mine = ev.clientId === clientId, first = clientId < (ev.clientId || ""), acked = null;
    if (mine) {
      Object.keys(texts).forEach(function (k) {
        if (texts[k].inflight && texts[k].inflightSeq === ev.clientSeq) acked = texts[k];
      });
    }
    (ev.ops || []).forEach(function (op) { applyModel(op, mine, first); });
    if (acked) {
      acked.base = OT.apply(acked.base, acked.inflight);
      acked.inflight = null;
      acked.inflightSeq = 0;
    }
    version = ev.version;
    showAll();
    if (mine && focusOnCreate[ev.clientSeq]) {
      var ctl = focusOnCreate[ev.clientSeq];
      delete focusOnCreate[ev.clientSeq];
      var added = (ev.ops || []).filter(function (o) { return o.op === ctl.field.appendOp; })[0];
      var x = added && ctl.items[added.id];
      var first = x && x.el.querySelector("input, select, textarea, .cm-content");
      if (first) first.focus();
    }
    if (mine) keepMoveFocus(ev);
    if (acked) flush(acked);
    status();
  }

  // keepMoveFocus keeps the keyboard on the arrow that moved an item, where it now is.
  function keepMoveFocus(ev) {
    var a = document.activeElement;
    if (!a || !a.matches("[data-testid=tool-item-up], [data-testid=tool-item-down]")) return;
    if (a.disabled) {
      var other = a.parentElement.querySelector(a.dataset.testid === "tool-item-up" ? "[data-testid=tool-item-down]" : "[data-testid=tool-item-up]");
      if (other && !other.disabled) other.focus();
    }
  }

  // resync catches up from a whole copy of the data: each text's unsent edits are rebased
  // over what changed on the server, so nothing typed is lost.
  function resync(snap) {
    var waiting = Object.keys(texts).some(function (k) { return texts[k].inflight && !texts[k].inflightVersion; });
    if (waiting) { setTimeout(function () { resync(snap); }, 200); return; }
    if (snap.version <= version) return;
    Object.keys(texts).forEach(function (k) {
      var t = texts[k];
      if (t.inflight && t.inflightVersion <= snap.version) {
        t.base = OT.apply(t.base, t.inflight);
        t.inflight = null;
        t.inflightSeq = 0;
      }
    });
    model = snap.data || {};
    version = snap.version;
    showAll();
    Object.keys(texts).forEach(function (k) { flush(texts[k]); });
    status();
    verifySoon();
  }

  // textValue is a text's value in data (the document's data).
  function textValue(data, t) {
    if (!t.itemId) return getAt(data, t.field.path) || "";
    var list = getAt(data, listPath(t.field)) || [], i = findItem(list, t.itemId);
    return i < 0 ? null : (list[i][t.field.key] || "");
  }

  // verifySoon compares, once nothing is unsent, every text with the server's at the same
  // version and takes the server's where they differ: after catching up from a whole copy
  // (which rebases over a computed difference, not the real history) they end up identical.
  var verifyTimer = 0;
  function verifySoon() {
    if (verifyTimer) return;
    var tries = 0;
    verifyTimer = setTimeout(function check() {
      if (gone || ++tries > 30) { verifyTimer = 0; return; }
      if (unsent()) { verifyTimer = setTimeout(check, 500); return; }
      fetch(cfg.docApi, { credentials: "same-origin", cache: "no-store" })
        .then(function (res) { if (!res.ok) throw new Error("HTTP " + res.status); return res.json(); })
        .then(function (d) {
          if (d.version !== version || unsent()) { verifyTimer = setTimeout(check, 500); return; }
          verifyTimer = 0;
          var data = (d.content && d.content.data) || {};
          Object.keys(texts).forEach(function (k) {
            var t = texts[k], want = textValue(data, t);
            if (want === null || t.base === want) return;
            // Should not happen: say so (tests fail on it), then take the server's text.
            console.warn("loreweave editor: " + k + " differed from the server's copy at version " + version + "; took the server's");
            showText(t, want);
          });
        })
        .catch(function () { verifyTimer = setTimeout(check, 1000); });
    }, 300);
  }

  document.addEventListener("loreweave:ops", function (e) { handleOps(e.detail || {}); });
  document.addEventListener("loreweave:snapshot", function (e) {
    var d = e.detail || {};
    if (typeof d.version !== "number" || d.version <= version) return;
    var data = d.data;
    if (typeof data === "string") { try { data = JSON.parse(data); } catch (err) { return; } }
    resync({ version: d.version, data: data || {} });
  });

  // ---- start ------------------------------------------------------------------------------------

  fields.forEach(function (f) {
    var c = makeControl(f, null);
    c.field = f;
    controls.push(c);
    form.append(c.el);
  });
  showAll();
  root.hidden = false;
  document.documentElement.classList.add("has-tool-editor");
  status();
})();
