// Stand-in for @codemirror/lang-html, which build.sh aliases to this file.
// @codemirror/lang-markdown imports exactly two names from it:
//   html(config)              -> used for `.support` and `.language.parser`
//   htmlCompletionSource(ctx) -> used to complete "<tag" names
// The real package brings the HTML, CSS and JavaScript grammars (most of the
// bundle's size). With this stub, Markdown still parses and highlights
// normally; raw HTML blocks and inline tags are simply not parsed as HTML
// (parseCode mounts no HTML parser when htmlParser is undefined), and no HTML
// tag completions are offered.
export function html() {
  return { support: [], language: { parser: undefined } };
}
export function htmlCompletionSource() {
  return null;
}
