// Entry for static/vendor/codemirror/codemirror.js. build.sh bundles this file
// with esbuild into one classic script (IIFE) that sets the global `CM`.
// Every name below is CodeMirror's own export, re-exported unchanged.
// @codemirror/collab is deliberately not included.
export {
  EditorState, EditorSelection, Transaction, Annotation, StateField, StateEffect,
  ChangeSet, Text, Compartment, RangeSetBuilder, Prec,
} from "@codemirror/state";
export {
  EditorView, keymap, Decoration, ViewPlugin, WidgetType, drawSelection,
  highlightSpecialChars, placeholder, dropCursor, highlightActiveLine,
} from "@codemirror/view";
export {
  defaultKeymap, history, historyKeymap, undo, redo, undoDepth, redoDepth,
  isolateHistory, invertedEffects,
} from "@codemirror/commands";
export {
  syntaxHighlighting, HighlightStyle, defaultHighlightStyle, indentOnInput, bracketMatching,
} from "@codemirror/language";
export { markdown, markdownLanguage } from "@codemirror/lang-markdown";
export { tags } from "@lezer/highlight";
export {
  autocompletion, startCompletion, closeCompletion, completionStatus, currentCompletions,
  selectedCompletion, acceptCompletion, moveCompletionSelection, pickedCompletion,
  insertCompletionText,
} from "@codemirror/autocomplete";
