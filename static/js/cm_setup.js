// LoreCM: the CodeMirror set-up every Markdown editor of the web app shares (the card
// editor's sections, a folder's description): the theme, in the page theme's colours, the
// Markdown highlighting, and the extensions every such editor has. Loaded after the vendored
// CodeMirror (window.CM).
(function () {
  "use strict";
  var CM = window.CM;
  if (!CM) return;

  var theme = CM.EditorView.theme({
    "&": { backgroundColor: "var(--surface)", color: "var(--ink)", fontSize: "1rem" },
    ".cm-content": { fontFamily: "var(--serif)", lineHeight: "1.6", padding: ".6rem 0", caretColor: "var(--ink)" },
    ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--ink)" },
    "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "color-mix(in srgb, var(--accent) 30%, transparent)" },
    ".cm-placeholder": { color: "var(--muted)" },
    // Links to documents, shown by name (see linkChips below).
    ".cm-doclink": { color: "var(--accent)", textDecoration: "underline", textUnderlineOffset: "2px", borderRadius: "3px",
      padding: "0 .1em", backgroundColor: "color-mix(in srgb, var(--accent) 9%, transparent)" },
    ".cm-doclink-broken": { color: "var(--danger)", textDecorationStyle: "dashed", backgroundColor: "color-mix(in srgb, var(--danger) 9%, transparent)" },
    ".cm-doclink-creating": { color: "var(--muted)", fontStyle: "italic", textDecoration: "none" },
    // The link picker, in the page's colours.
    ".cm-tooltip": { backgroundColor: "var(--surface)", color: "var(--ink)", border: "1px solid var(--line)", borderRadius: "6px",
      boxShadow: "0 4px 16px rgba(0,0,0,.18)" },
    ".cm-tooltip.cm-tooltip-autocomplete > ul": { fontFamily: "var(--font)", fontSize: ".95rem", maxHeight: "16rem",
      minWidth: "min(16rem, calc(100vw - 2rem))", maxWidth: "min(26rem, calc(100vw - 1rem))" },
    ".cm-tooltip.cm-tooltip-autocomplete > ul > li": { padding: ".4rem .7rem", lineHeight: "1.3", whiteSpace: "normal", overflowWrap: "anywhere" },
    ".cm-tooltip.cm-tooltip-autocomplete > ul > li[aria-selected]": { backgroundColor: "var(--accent)", color: "var(--accent-ink)" },
    ".cm-completionDetail": { marginLeft: ".6em", fontStyle: "normal", fontSize: ".8rem", opacity: ".8" },
    ".lw-link-create .cm-completionLabel": { fontStyle: "italic" },
  });
  var highlight = CM.HighlightStyle.define([
    { tag: CM.tags.heading, fontWeight: "bold", color: "var(--accent)" },
    { tag: CM.tags.emphasis, fontStyle: "italic" },
    { tag: CM.tags.strong, fontWeight: "bold" },
    { tag: CM.tags.link, color: "var(--accent)", textDecoration: "underline" },
    { tag: CM.tags.url, color: "var(--muted)" },
    { tag: CM.tags.monospace, fontFamily: "ui-monospace, monospace" },
    { tag: CM.tags.quote, color: "var(--muted)", fontStyle: "italic" },
    { tag: [CM.tags.processingInstruction, CM.tags.meta], color: "var(--muted)" },
  ]);

  // Enter in a list item starts the next item with its marker ("- ", "2. "), and writers
  // used to plain text type one anyway: a marker typed first thing on an item Enter just
  // started takes the place of the one Enter put there instead of doubling it ("- - ").
  // Elsewhere a marker stays as typed ("- - -" is a rule).
  var listMarker = /^([\s>]*)([-*+]|\d+[.)]) $/;
  var continuedItem = CM.StateField.define({
    // The end of the marker Enter put on the cursor's line, or -1.
    create: function () { return -1; },
    update: function (end, tr) {
      var state = tr.state, head = state.selection.main.head, line = state.doc.lineAt(head);
      if (tr.docChanged && tr.annotation(CM.Transaction.userEvent) === "input") {
        // The markdown keymap's Enter dispatches its changes as plain "input".
        return head === line.to && listMarker.test(line.text) ? head : -1;
      }
      if (end < 0) return end;
      end = tr.changes.mapPos(end, -1);
      return end > line.from && end <= head && state.doc.lineAt(end).number === line.number ? end : -1;
    },
  });
  var singleMarker = CM.EditorView.inputHandler.of(function (view, from, to, text) {
    if (text !== " " || from !== to) return false;
    var end = view.state.field(continuedItem), line = view.state.doc.lineAt(from);
    if (end < 0 || from !== line.to) return false;
    var auto = listMarker.exec(line.text.slice(0, end - line.from));
    var typed = view.state.doc.sliceString(end, from);
    if (!auto || !/^([-*+]|\d+[.)])$/.test(typed)) return false;
    var ordered = /\d/.test(auto[2]);
    if (ordered !== /\d/.test(typed) || (ordered && auto[2].slice(-1) !== typed.slice(-1))) return false;
    var start = line.from + auto[1].length;
    view.dispatch({ changes: { from: start, to: from, insert: typed + " " },
      selection: CM.EditorSelection.cursor(start + typed.length + 1), userEvent: "input.type" });
    return true;
  });

  // ---- links to documents --------------------------------------------------------------------
  // A link is stored by id, [[doc:ID]] or [[doc:ID|shown text]] (ops/links.go). The editor
  // shows it as a chip with the target's name (or the shown text): one atomic range, so the
  // cursor steps over it and Backspace deletes it whole. Typing [[ (or @ after a space) opens a
  // picker over the world's documents; picking one writes its link, and "Create …" makes a
  // card of the typed name first. What it needs is in the page's #link-editor-data
  // (views.LinkEditorData): addresses and the names of the documents the text links already.
  var linkCfg = null;
  var names = {};    // id -> current name
  var missing = {};  // id -> true: no such document in this era (a broken link)
  var asked = {};    // id -> true: its name has been asked for
  var linkViews = [];

  function links() {
    if (linkCfg === null) {
      var el = document.getElementById("link-editor-data");
      linkCfg = el ? JSON.parse(el.textContent) : false;
      if (linkCfg) {
        Object.keys(linkCfg.names || {}).forEach(function (id) { names[id] = linkCfg.names[id]; });
        (linkCfg.missing || []).forEach(function (id) { missing[id] = true; });
      }
    }
    return linkCfg;
  }

  function withQuery(url, q) { return url + (url.indexOf("?") < 0 ? "?" : "&") + q; }

  var namesChanged = CM.StateEffect.define();
  function redrawLinks() {
    linkViews.forEach(function (v) { v.dispatch({ effects: namesChanged.of(null) }); });
  }
  function learn(id, name) {
    if (names[id] === name && !missing[id]) return;
    names[id] = name;
    delete missing[id];
    redrawLinks();
  }
  // askName fetches the name of a linked document the page did not know, once.
  function askName(id) {
    var cfg = links();
    if (!cfg || asked[id]) return;
    asked[id] = true;
    fetch(cfg.documentApi.replace("{id}", encodeURIComponent(id)), { credentials: "same-origin" })
      .then(function (r) {
        if (r.status === 404) { missing[id] = true; redrawLinks(); return null; }
        return r.ok ? r.json() : null;
      })
      .then(function (d) { if (d && d.name) learn(id, d.name); })
      .catch(function () { asked[id] = false; });
  }

  var LINK = /\[\[\s*doc:([A-Za-z0-9_-]{1,64})\s*(?:\|([^\[\]\n]*))?\]\]/g;

  class LinkChip extends CM.WidgetType {
    constructor(id, text, name, broken) { super(); this.id = id; this.text = text; this.name = name; this.broken = broken; }
    eq(o) { return o.id === this.id && o.text === this.text && o.name === this.name && o.broken === this.broken; }
    toDOM() {
      var span = document.createElement("span");
      span.className = "cm-doclink" + (this.broken ? " cm-doclink-broken" : "");
      span.dataset.docId = this.id;
      span.dataset.testid = "link-chip";
      var cfg = links();
      if (this.broken) {
        span.title = "Broken link: the document was deleted or is not in this era";
      } else if (cfg) {
        span.dataset.href = cfg.documentPage.replace("{id}", encodeURIComponent(this.id));
      }
      span.textContent = this.text || this.name || (this.broken ? "missing document" : "…");
      return span;
    }
    ignoreEvent() { return false; }
  }

  function linkDecorations(view) {
    var b = new CM.RangeSetBuilder();
    var text = view.state.doc.toString(), m;
    LINK.lastIndex = 0;
    while ((m = LINK.exec(text))) {
      var id = m[1], shown = (m[2] || "").trim();
      if (m[0].length > 404) continue; // ops/links.go: longer brackets are text
      if (!names[id] && !missing[id]) askName(id);
      b.add(m.index, m.index + m[0].length, CM.Decoration.replace({ widget: new LinkChip(id, shown, names[id] || "", !!missing[id]) }));
    }
    return b.finish();
  }

  var linkChips = CM.ViewPlugin.fromClass(class {
    constructor(view) { this.view = view; this.decorations = linkDecorations(view); linkViews.push(view); }
    update(u) {
      if (u.docChanged || u.transactions.some(function (tr) { return tr.effects.some(function (e) { return e.is(namesChanged); }); })) {
        this.decorations = linkDecorations(u.view);
      }
    }
    destroy() { var i = linkViews.indexOf(this.view); if (i >= 0) linkViews.splice(i, 1); }
  }, {
    decorations: function (p) { return p.decorations; },
    provide: function (plugin) {
      return CM.EditorView.atomicRanges.of(function (view) {
        var p = view.plugin(plugin);
        return p ? p.decorations : CM.Decoration.none;
      });
    },
  });

  // Cards being created from the picker: where their link goes once the server answers,
  // mapped through the edits made meanwhile, and shown as "Creating …".
  var creatingAdd = CM.StateEffect.define(), creatingDone = CM.StateEffect.define();
  class Creating extends CM.WidgetType {
    constructor(name) { super(); this.name = name; }
    eq(o) { return o.name === this.name; }
    toDOM() {
      var span = document.createElement("span");
      span.className = "cm-doclink cm-doclink-creating";
      span.textContent = "Creating “" + this.name + "”…";
      return span;
    }
  }
  var creating = CM.StateField.define({
    create: function () { return []; },
    update: function (list, tr) {
      list = list.map(function (c) { return { token: c.token, name: c.name, pos: tr.changes.mapPos(c.pos, -1) }; });
      tr.effects.forEach(function (e) {
        if (e.is(creatingAdd)) list = list.concat([e.value]);
        if (e.is(creatingDone)) list = list.filter(function (c) { return c.token !== e.value; });
      });
      return list;
    },
    provide: function (f) {
      return CM.EditorView.decorations.from(f, function (list) {
        return CM.Decoration.set(list.map(function (c) {
          return CM.Decoration.widget({ widget: new Creating(c.name), side: 1 }).range(c.pos);
        }), true);
      });
    },
  });

  var announcer = null;
  function announce(text) {
    if (!announcer) {
      announcer = document.createElement("div");
      announcer.className = "sr-only";
      announcer.setAttribute("role", "status");
      announcer.dataset.testid = "link-announcer";
      document.body.appendChild(announcer);
    }
    announcer.textContent = text;
  }

  function insertLink(view, from, to, id, name, completion) {
    learn(id, name);
    var markup = "[[doc:" + id + "]]";
    var spec = { changes: { from: from, to: to, insert: markup }, selection: { anchor: from + markup.length }, userEvent: "input.complete" };
    if (completion) spec.annotations = CM.pickedCompletion.of(completion);
    view.dispatch(spec);
    announce("Linked to " + name);
  }

  var createSeq = 0;
  function createAndLink(view, completion, from, to, name, typed) {
    var cfg = links(), token = ++createSeq;
    view.dispatch({ changes: { from: from, to: to, insert: "" }, effects: creatingAdd.of({ token: token, name: name, pos: from }),
      annotations: CM.pickedCompletion.of(completion), userEvent: "input.complete" });
    announce("Creating the card " + name + "…");
    function finish(insert, selectAfter) {
      var c = view.state.field(creating, false), here = null;
      (c || []).forEach(function (x) { if (x.token === token) here = x; });
      if (!here) return;
      var spec = { effects: creatingDone.of(token), userEvent: "input.complete" };
      if (insert) {
        spec.changes = { from: here.pos, insert: insert };
        if (view.state.selection.main.empty && view.state.selection.main.head === here.pos) spec.selection = { anchor: here.pos + insert.length };
      }
      view.dispatch(spec);
    }
    fetch(cfg.createUrl, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": cfg.csrf },
      body: JSON.stringify({ name: name, documentType: "card" }),
    }).then(function (r) {
      return r.json().catch(function () { return null; }).then(function (b) { return { ok: r.ok, status: r.status, body: b }; });
    }).then(function (r) {
      if (r.ok && r.body && r.body.id) {
        learn(r.body.id, r.body.name);
        finish("[[doc:" + r.body.id + "]]");
        announce("Created the card " + r.body.name + " and linked to it");
      } else {
        finish(typed);
        announce("The card was not created: " + (r.body && r.body.error ? r.body.error.message : "the server answered " + r.status));
      }
    }).catch(function () {
      finish(typed);
      announce("The card was not created: the server could not be reached");
    });
  }

  // linkSource offers the world's documents for [[query or @query before the cursor.
  function linkSource(ctx) {
    var cfg = links();
    if (!cfg) return null;
    var line = ctx.state.doc.lineAt(ctx.pos);
    var before = line.text.slice(Math.max(0, ctx.pos - line.from - 120), ctx.pos - line.from);
    var m = /\[\[([^\[\]\n|]{0,100})$/.exec(before), trigger = "[[", query;
    if (m) {
      query = m[1];
      if (/^\s*doc:/.test(query)) return null;
    } else {
      // @ starts a link at the start of a line or after a space or an opening bracket; its
      // query is one word (a longer name is found by its first word).
      m = /(?:^|[\s(])@([^\s@\[\]]{0,60})$/.exec(before);
      if (!m) return null;
      trigger = "@";
      query = m[1];
    }
    var from = ctx.pos - query.length - trigger.length, to = ctx.pos;
    if (trigger === "[[" && ctx.state.doc.sliceString(to, to + 2) === "]]") to += 2;
    var q = query.trim();
    var url = q ? withQuery(cfg.searchUrl, "perPage=8&q=" + encodeURIComponent(query.replace(/^\s+/, "")))
      : withQuery(cfg.listUrl, "perPage=8");
    var ctl = typeof AbortController === "function" ? new AbortController() : null;
    if (ctl) ctx.addEventListener("abort", function () { ctl.abort(); });
    return fetch(url, { credentials: "same-origin", cache: "no-store", signal: ctl ? ctl.signal : undefined })
      .then(function (r) { return r.ok ? r.json() : { items: [] }; })
      .catch(function () { return { items: [] }; })
      .then(function (body) {
        var items = ((body && body.items) || []).filter(function (hit) { return hit.id !== cfg.self; }), exact = false;
        var options = items.map(function (hit) {
          if (hit.name.toLowerCase() === q.toLowerCase()) exact = true;
          return {
            label: hit.name, detail: hit.documentType, type: "doclink",
            apply: function (view, completion, f, t) { insertLink(view, f, t, hit.id, hit.name, completion); },
          };
        });
        // After @ (typed in passing more often than [[), "Create" is offered only below other
        // options, never alone and so selected: Enter at the end of "@someone" keeps its
        // meaning unless a document was offered.
        if (q && !exact && cfg.createUrl && (trigger === "[[" || options.length)) {
          options.push({
            label: "Create “" + q + "”", detail: "new card", type: "create",
            apply: function (view, completion, f, t) { createAndLink(view, completion, f, t, q, view.state.doc.sliceString(f, t)); },
          });
        }
        if (!options.length) return null;
        return { from: from, to: to, options: options, filter: false };
      });
  }

  // linkEditing is what a Markdown editor has for links when the page holds link data.
  function linkEditing() {
    if (!links()) return [];
    return [
      linkChips,
      creating,
      CM.autocompletion({
        override: [linkSource],
        icons: false,
        closeOnBlur: true,
        activateOnTypingDelay: 120,
        maxRenderedOptions: 20,
        tooltipClass: function () { return "lw-link-picker"; },
        optionClass: function (c) { return c.type === "create" ? "lw-link-create" : ""; },
      }),
      // The picker's list box is named for what it lists (CodeMirror says "Completions").
      CM.EditorState.phrases.of({ Completions: "Documents to link" }),
      CM.Prec.high(CM.keymap.of([{ key: "Tab", run: CM.acceptCompletion }])),
      // Ctrl+click (⌘+click) on a chip opens its document in a new tab; a plain click edits.
      CM.EditorView.domEventHandlers({
        click: function (ev) {
          var chip = (ev.ctrlKey || ev.metaKey) && ev.target.closest && ev.target.closest(".cm-doclink[data-href]");
          if (!chip) return false;
          window.open(chip.dataset.href, "_blank", "noopener");
          return true;
        },
      }),
    ];
  }

  window.LoreCM = {
    // markdownEditor returns the extensions of a Markdown editor: nonce is the page's style
    // nonce (its CSP allows CodeMirror's stylesheet by it), label names the text for screen
    // readers. With the page's link data it also has the link picker and link chips. Undo and redo (Ctrl+Z, Ctrl+Shift+Z) cover this editor's own typing only:
    // changes from others are dispatched with addToHistory false.
    markdownEditor: function (nonce, label) {
      return [
        CM.EditorView.cspNonce.of(nonce || ""),
        CM.EditorState.lineSeparator.of("\n"),
        // With "\n" as the only line separator a pasted or dropped "\r\n" (as many clipboards
        // hold it) would stay in the text, while the server stores "\n": the two would count
        // positions differently from there on. Text comes in with the server's line ending.
        CM.EditorView.clipboardInputFilter.of(function (text) { return text.replace(/\r\n?/g, "\n"); }),
        CM.history(),
        CM.drawSelection(),
        CM.highlightSpecialChars(),
        CM.EditorView.lineWrapping,
        CM.markdown(),
        continuedItem,
        singleMarker,
        CM.syntaxHighlighting(highlight),
        CM.keymap.of(CM.defaultKeymap.concat(CM.historyKeymap)),
        CM.placeholder("Write here (Markdown)…"),
        theme,
        CM.EditorView.contentAttributes.of({ "aria-label": label, "aria-multiline": "true" }),
      ].concat(linkEditing());
    },
    // replace sets the editor's text to text as a change from elsewhere (not undoable here),
    // touching only what differs, so the cursor and this editor's undo history keep their
    // places in the text around it.
    replace: function (view, text) {
      var have = view.state.doc.toString();
      if (have === text) return;
      view.dispatch({ changes: changes(have, text), annotations: CM.Transaction.addToHistory.of(false) });
    },
    changes: changes,
  };

  // changes returns the changes [{from, to, insert}] that turn text a into text b, ascending
  // in a's coordinates, each stretch the two share left alone (Myers' diff, by UTF-16 unit,
  // never cutting a surrogate pair).
  // Changes from elsewhere are applied as these, not as one replacement of everything between
  // the first and the last difference, so that undo and redo find their text where it went.
  // Past MAX_EDITS differences it gives up and replaces that middle whole.
  var MAX_EDITS = 2000;
  function changes(a, b) {
    var start = 0, max = Math.min(a.length, b.length);
    while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
    var end = 0;
    while (end < max - start && a.charCodeAt(a.length - 1 - end) === b.charCodeAt(b.length - 1 - end)) end++;
    var n = a.length - end - start, m = b.length - end - start;
    var whole = [{ from: start, to: start + n, insert: b.slice(start, start + m) }];
    if (!n || !m) return n || m ? wholePairs(a, whole) : [];
    var limit = Math.min(n + m, MAX_EDITS), off = limit + 1;
    var v = new Int32Array(2 * limit + 3), trace = [], d, k, x, y;
    for (d = 0; d <= limit; d++) {
      trace.push(v.slice());
      for (k = -d; k <= d; k += 2) {
        x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1;
        y = x - k;
        while (x < n && y < m && a.charCodeAt(start + x) === b.charCodeAt(start + y)) { x++; y++; }
        v[off + k] = x;
        if (x >= n && y >= m) return wholePairs(a, backtrack(trace, d, n, m, off, start, b));
      }
    }
    return wholePairs(a, whole);
  }

  // wholePairs widens changes that would cut a surrogate pair of a by the half they cut
  // (a writer's emoji is replaced whole), joining changes that then meet.
  function wholePairs(a, cs) {
    function cuts(i) {
      return i > 0 && i < a.length && (a.charCodeAt(i - 1) & 0xfc00) === 0xd800 && (a.charCodeAt(i) & 0xfc00) === 0xdc00;
    }
    var out = [];
    cs.forEach(function (c) {
      if (cuts(c.from)) { c.from--; c.insert = a.charAt(c.from) + c.insert; }
      if (cuts(c.to)) { c.insert += a.charAt(c.to); c.to++; }
      var last = out[out.length - 1];
      if (last && c.from <= last.to) {
        // What both took in twice is the same unit of a, at the end of one, the start of the other.
        last.insert += c.insert.slice(last.to - c.from);
        last.to = c.to;
      } else {
        out.push(c);
      }
    });
    return out;
  }

  // backtrack walks Myers' trace back from the end, then joins neighbouring edits into changes.
  function backtrack(trace, dEnd, n, m, off, start, b) {
    var edits = [], x = n, y = m, d, k, down, pk, px;
    for (d = dEnd; d > 0; d--) {
      var v = trace[d];
      k = x - y;
      down = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]);
      pk = down ? k + 1 : k - 1;
      px = v[off + pk];
      // down: b's unit at y-coordinate px-pk is inserted at a's px; right: a's unit px goes.
      edits.push(down ? { at: px, ins: b.charAt(start + px - pk) } : { at: px, ins: null });
      x = px;
      y = px - pk;
    }
    var out = [], last = null;
    for (var i = edits.length - 1; i >= 0; i--) {
      var e = edits[i], at = start + e.at;
      if (!last || last.to !== at) { last = { from: at, to: at, insert: "" }; out.push(last); }
      if (e.ins === null) last.to++;
      else last.insert += e.ins;
    }
    return out;
  }
})();
