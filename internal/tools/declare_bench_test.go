package tools

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// BenchmarkFirstDeclarations is what a process's first request pays for
// the built-in tools' declarations: every schema derived, as nothing is
// memoised yet.
func BenchmarkFirstDeclarations(b *testing.B) {
	ws, err := workspace.New([]string{b.TempDir()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	catalog, _ := skills.Discover(skills.Config{UserDir: b.TempDir()})
	b.ReportAllocs()
	for b.Loop() {
		schemaCache.Clear()
		for _, tool := range Builtin(Options{Workspace: ws, Plan: PlanOptions{Enabled: true}, Skills: catalog}) {
			_ = tool.Declaration()
		}
	}
}
