// Package examples holds the example tools (examples/tools/*: a tool.json manifest and its
// test fixtures each), embedded so that `loreweave tools init` can write one out.
package examples

import "embed"

// Tools holds examples/tools: one directory per tool.
//
//go:embed tools
var Tools embed.FS
