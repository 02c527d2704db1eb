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
    // touching only what differs, so the cursor stays where it was.
    replace: function (view, text) {
      var have = view.state.doc.toString();
      if (have === text) return;
      var start = 0, max = Math.min(have.length, text.length);
      while (start < max && have.charCodeAt(start) === text.charCodeAt(start)) start++;
      var end = 0;
      while (end < max - start && have.charCodeAt(have.length - 1 - end) === text.charCodeAt(text.length - 1 - end)) end++;
      view.dispatch({ changes: { from: start, to: have.length - end, insert: text.slice(start, text.length - end) },
        annotations: CM.Transaction.addToHistory.of(false) });
    },
  };
})();
