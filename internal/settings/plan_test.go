package settings

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// general.plan.directory names a directory inside the project; unset, it
// names none, and each session has its own under ~/.gemini/tmp.
func TestPlansDir(t *testing.T) {
	root := filepath.FromSlash("/home/ada/proj")
	if runtime.GOOS == "windows" {
		root = `C:` + root
	}
	for _, tc := range []struct {
		directory, want, wrong string
	}{
		{"", "", ""},
		{"docs/plans", filepath.Join(root, "docs", "plans"), ""},
		{filepath.Join(root, "plans"), filepath.Join(root, "plans"), ""},
		{"../elsewhere", "", "outside the project root"},
		{filepath.FromSlash("/tmp/plans"), "", "outside the project root"},
	} {
		got, err := Plan{Directory: tc.directory}.PlansDir(root)
		if got != tc.want || (err == nil) != (tc.wrong == "") || (err != nil && !strings.Contains(err.Error(), tc.wrong)) {
			t.Errorf("PlansDir with directory %q = %q, %v; want %q, an error saying %q", tc.directory, got, err, tc.want, tc.wrong)
		}
	}
}
