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

  window.LoreCM = {
    // markdownEditor returns the extensions of a Markdown editor: nonce is the page's style
    // nonce (its CSP allows CodeMirror's stylesheet by it), label names the text for screen
    // readers. Undo and redo (Ctrl+Z, Ctrl+Shift+Z) cover this editor's own typing only:
    // changes from others are dispatched with addToHistory false.
    markdownEditor: function (nonce, label) {
      return [
        CM.EditorView.cspNonce.of(nonce || ""),
        CM.EditorState.lineSeparator.of("\n"),
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
      ];
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
