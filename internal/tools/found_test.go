package tools

import (
	"slices"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// The searches name what they found for the user to open, in the order
// their output lists it: grep_search each matching line (or each file,
// names_only), glob each file, list_directory each entry.
func TestSearchesNameWhatTheyFound(t *testing.T) {
	tw := newTestWorkspace(t, demoFiles())
	tw.touch("main.go", 0)
	tw.touch("pkg/util/strings.go", time.Hour)
	cases := []struct {
		name string
		args map[string]any
		want []dialog.Location
	}{
		{GrepSearchName, map[string]any{"pattern": "TODO"}, []dialog.Location{
			{Path: tw.abs("README.md"), Line: 4}, {Path: tw.abs("main.go"), Line: 9}, {Path: tw.abs("pkg/util/strings.go"), Line: 6}}},
		{GrepSearchName, map[string]any{"pattern": "TODO", "names_only": true}, []dialog.Location{
			{Path: tw.abs("README.md")}, {Path: tw.abs("main.go")}, {Path: tw.abs("pkg/util/strings.go")}}},
		{GrepSearchName, map[string]any{"pattern": "no such text anywhere"}, nil},
		{GlobName, map[string]any{"pattern": "**/*.go"}, []dialog.Location{{Path: tw.abs("pkg/util/strings.go")}, {Path: tw.abs("main.go")}}},
		{ListDirectoryName, map[string]any{"path": "."}, []dialog.Location{
			{Path: tw.abs("pkg"), Dir: true}, {Path: tw.abs(".gitignore")}, {Path: tw.abs("go.mod")}, {Path: tw.abs("main.go")}, {Path: tw.abs("README.md")}}},
	}
	for _, c := range cases {
		res := run(t, tw.tool(c.name, Options{}), c.args)
		if !slices.Equal(res.Found, c.want) {
			t.Errorf("%s %v found %+v, want %+v", c.name, c.args, res.Found, c.want)
		}
	}
	if res := run(t, tw.tool(ReadFileName, Options{}), map[string]any{"file_path": "main.go"}); res.Found != nil {
		t.Errorf("read_file names %+v found", res.Found)
	}
}
