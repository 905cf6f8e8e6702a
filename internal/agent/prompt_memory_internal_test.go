package agent

import (
	"strings"
	"testing"
)

// The memory section names the tools that can edit and the real paths,
// leaves out a tier without a path, as 0.61 does, and is left out when
// no tool can edit: it would ask for what the model cannot do.
func TestMemoryFilesSection(t *testing.T) {
	got := memoryFilesSection([]string{"replace", "write_file"}, `C:\Users\u\.gemini\tmp\p\memory\MEMORY.md`, "/home/u/.gemini/GEMINI.md")
	for _, want := range []string{
		"editing markdown files directly with `replace` or `write_file`. There is no `save_memory` tool.",
		"**Private Project Memory** (`C:/Users/u/.gemini/tmp/p/memory/MEMORY.md`)",
		"**Global Personal Memory** (`/home/u/.gemini/GEMINI.md`)",
		"update the global personal memory file",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	bare := memoryFilesSection([]string{"write_file"}, "", "")
	if strings.Contains(bare, "Private Project Memory**") || strings.Contains(bare, "Global Personal Memory") || !strings.Contains(bare, "with `write_file`.") {
		t.Errorf("without paths:\n%s", bare)
	}
	if s := memoryFilesSection(nil, "/m/MEMORY.md", "/g/GEMINI.md"); s != "" {
		t.Errorf("without an editing tool: %q", s)
	}
}
