//go:build linux

package bench

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestTheDependencyFloorLinksEveryDependency: the linkdeps build of the
// trivial server, the floor BenchmarkSpawnToInitialize sets beside
// gemini-ls, imports exactly the packages outside the standard library
// that gemini-ls's own packages import. A dependency added or dropped
// moves the floor with it, instead of leaving it measuring another
// program. (Linux's alone: the Windows run under Wine has no go
// command, and the list is the same everywhere.)
func TestTheDependencyFloorLinksEveryDependency(t *testing.T) {
	const module = "github.com/gemini-ls/gemini-ls"
	ours := thirdParty(goList(t, "-deps", "-f",
		`{{if .Module}}{{if eq .Module.Path "`+module+`"}}{{join .Imports "\n"}}{{end}}{{end}}`,
		module+"/cmd/gemini-ls"), module)
	floor := thirdParty(goList(t, "-tags", "linkdeps", "-f", `{{join .Imports "\n"}}`, "./testdata/trivialserver"), module)
	if len(ours) == 0 {
		t.Fatal("go list found no dependency of gemini-ls")
	}
	for _, p := range ours {
		if !slices.Contains(floor, p) {
			t.Errorf("testdata/trivialserver/deps.go does not import %s, which gemini-ls imports", p)
		}
	}
	for _, p := range floor {
		if !slices.Contains(ours, p) {
			t.Errorf("testdata/trivialserver/deps.go imports %s, which gemini-ls does not", p)
		}
	}
}

// goList runs go list with args and returns its lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return strings.Fields(string(out))
}

// thirdParty is the sorted, distinct paths of imports that are neither the
// standard library's (no dot in the first element) nor module's own.
func thirdParty(imports []string, module string) []string {
	var out []string
	for _, p := range imports {
		first, _, _ := strings.Cut(p, "/")
		if !strings.Contains(first, ".") || p == module || strings.HasPrefix(p, module+"/") {
			continue
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
