// Package readme keeps README.md's generated parts equal to the code they
// describe: the list of the tools the model is declared is made here from
// the tool registry (tools.Builtin), never kept by hand.
//
// Invariant: what stands between a Begin and an End marker in README.md
// is what ToolList makes, byte for byte; `go generate .` at the module's
// root (cmd/readme) rewrites it, and the module's tests fail while it
// differs. Everything outside the markers is the README's own.
package readme
