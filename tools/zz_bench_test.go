package tools

import (
	"testing"
)

func BenchmarkZZGlobGoroot(b *testing.B) {
	ws, _ := gorootWorkspace(b)
	tool, _ := NewRegistry(Builtin(Options{Workspace: ws})...).Get(GlobName)
	c, _ := tool.Build(map[string]any{"pattern": "**/*.go"})
	for b.Loop() {
		c.Execute(b.Context())
	}
}
func BenchmarkZZGrepGoroot(b *testing.B) {
	ws, _ := gorootWorkspace(b)
	tool, _ := NewRegistry(Builtin(Options{Workspace: ws})...).Get(GrepSearchName)
	c, _ := tool.Build(map[string]any{"pattern": "func main"})
	c.(*grepCall).engine = inProcessGrep{}
	for b.Loop() {
		c.Execute(b.Context())
	}
}
