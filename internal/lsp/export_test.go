package lsp

// Prose is prose, for the external tests.
var Prose = prose
