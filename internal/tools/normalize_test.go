package tools

import (
	"maps"
	"reflect"
	"testing"
)

// A call made with the argument names gemini-ls declared before it
// followed Gemini CLI 0.61 is normalized to the call 0.61 would have made,
// which is what hooks and policy rules see; the model's call, kept in the
// history, is not changed.
func TestNormalizeArgs(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	for _, tc := range []struct {
		tool      string
		old, want map[string]any
	}{
		{ReadFileName, map[string]any{"path": "a.go"}, map[string]any{"file_path": "a.go"}},
		{ReadFileName, map[string]any{"path": "a.go", "offset": 10.0, "limit": 20.0}, map[string]any{"file_path": "a.go", "start_line": 11.0, "end_line": 30.0}},
		{ReadFileName, map[string]any{"path": "a.go", "offset": 0.0}, map[string]any{"file_path": "a.go", "start_line": 1.0}},
		{ReadFileName, map[string]any{"path": "a.go", "limit": 5.0}, map[string]any{"file_path": "a.go", "end_line": 5.0}},
		{ReadFileName, map[string]any{"file_path": "a.go", "path": "a.go"}, map[string]any{"file_path": "a.go"}},
		{ListDirectoryName, map[string]any{"path": ".", "respect_git_ignore": false}, map[string]any{"dir_path": ".", "file_filtering_options": map[string]any{"respect_git_ignore": false, "respect_gemini_ignore": false}}},
		{GlobName, map[string]any{"pattern": "*.go", "path": "src"}, map[string]any{"pattern": "*.go", "dir_path": "src"}},
		{GrepSearchName, map[string]any{"pattern": "x", "path": "src", "include": "*.go"}, map[string]any{"pattern": "x", "dir_path": "src", "include_pattern": "*.go"}},
		{ShellName, map[string]any{"command": "ls", "directory": "sub"}, map[string]any{"command": "ls", "dir_path": "sub"}},
		{ReplaceName, map[string]any{"file_path": "a", "old_string": "x", "new_string": "y", "expected_replacements": 2.0},
			map[string]any{"file_path": "a", "old_string": "x", "new_string": "y", "expected_replacements": 2.0, "allow_multiple": true}},
		{ReplaceName, map[string]any{"file_path": "a", "old_string": "x", "new_string": "y", "expected_replacements": 1.0},
			map[string]any{"file_path": "a", "old_string": "x", "new_string": "y", "expected_replacements": 1.0}},
		// 0.61's names pass as they are.
		{ReadFileName, map[string]any{"file_path": "a.go", "start_line": 3.0}, map[string]any{"file_path": "a.go", "start_line": 3.0}},
		{WriteFileName, map[string]any{"file_path": "a.go", "content": "x"}, map[string]any{"file_path": "a.go", "content": "x"}},
	} {
		tool := tw.tool(tc.tool, Options{})
		old := maps.Clone(tc.old)
		got, err := NormalizeArgs(tool, tc.old)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %v: normalized to %v, %v; want %v", tc.tool, old, got, err, tc.want)
		}
		if !reflect.DeepEqual(tc.old, old) {
			t.Errorf("%s: the call itself was changed to %v", tc.tool, tc.old)
		}
	}
}
