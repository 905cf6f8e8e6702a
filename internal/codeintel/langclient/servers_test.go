package langclient

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestServersSetting: codeIntelligence.servers, as JSON, overrides a
// built-in's fields by name, disables one, and adds servers, tried
// before the built-ins.
func TestServersSetting(t *testing.T) {
	var configured map[string]ServerConfig
	setting := `{
		"gopls": {"cmd": ["/opt/gopls", "-remote=auto"]},
		"clangd": {"enabled": false},
		"zls": {"cmd": ["zls"], "filetypes": ["zig"], "root_markers": ["build.zig"]},
		"pylsp": {"cmd": ["pylsp"], "filetypes": ["python"]},
		"nothing": {"filetypes": ["x"]}
	}`
	if err := json.Unmarshal([]byte(setting), &configured); err != nil {
		t.Fatal(err)
	}
	specs := mergeServers(configured)
	var names []string
	byName := map[string]serverSpec{}
	for _, s := range specs {
		names = append(names, s.name)
		byName[s.name] = s
	}
	want := []string{"pylsp", "zls", "gopls", "rust-analyzer", "pyright", "basedpyright", "typescript-language-server", "jdtls"}
	if !slices.Equal(names, want) {
		t.Errorf("servers %v, want %v", names, want)
	}
	gopls := byName["gopls"]
	if !slices.Equal(gopls.cmd, []string{"/opt/gopls", "-remote=auto"}) || !slices.Equal(gopls.filetypes, []string{"go", "gomod", "gowork"}) || !slices.Contains(gopls.rootMarkers, "go.mod") {
		t.Errorf("overridden gopls = %+v, want the command replaced and the rest kept", gopls)
	}
	if zls := byName["zls"]; !slices.Equal(zls.rootMarkers, []string{"build.zig"}) {
		t.Errorf("added zls = %+v", zls)
	}
}

func TestFiletypes(t *testing.T) {
	for _, tc := range []struct {
		path, hint string
		want       []string
	}{
		{"/p/main.go", "", []string{"go"}},
		{"/p/go.mod", "", []string{"gomod", "mod"}},
		{"/p/App.TSX", "", []string{"typescriptreact", "tsx"}},
		{"/p/x.h", "cpp", []string{"c", "cpp", "h"}},
		{"/p/build.zig", "", []string{"zig"}},
		{"/p/Makefile", "make", []string{"make"}},
	} {
		if got := filetypes(tc.path, tc.hint); !slices.Equal(got, tc.want) {
			t.Errorf("filetypes(%q, %q) = %v, want %v", tc.path, tc.hint, got, tc.want)
		}
	}
}

// TestFindRoot: the nearest marker above the file wins, and none above
// the workspace root counts.
func TestFindRoot(t *testing.T) {
	outer := writeTree(t, map[string]string{
		"go.mod":          "",
		"ws/sub/go.mod":   "",
		"ws/sub/pkg/a.go": "",
		"ws/other/b.go":   "",
	})
	ws := filepath.Join(outer, "ws")
	markers := []string{"go.work", "go.mod", ".git"}
	if got, want := findRoot(filepath.Join(ws, "sub", "pkg", "a.go"), ws, markers), filepath.Join(ws, "sub"); got != want {
		t.Errorf("root of a.go = %s, want %s", got, want)
	}
	if got := findRoot(filepath.Join(ws, "other", "b.go"), ws, markers); got != ws {
		t.Errorf("root of b.go = %s, want the workspace root %s (the go.mod above it is outside)", got, ws)
	}
	if err := os.Mkdir(filepath.Join(ws, "other", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, want := findRoot(filepath.Join(ws, "other", "b.go"), ws, markers), filepath.Join(ws, "other"); got != want {
		t.Errorf("root of b.go in a git repository = %s, want %s", got, want)
	}
}

// TestURIRoundTrip: a path made a URI and read back is the same path, as
// the documents and diagnostics are keyed by it (on Windows, its drive
// letter's case too).
func TestURIRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a b", "ü.go")
	if got := uriPath(fileURI(path)); got != path {
		t.Errorf("uriPath(fileURI(%q)) = %q", path, got)
	}
	if got := uriPath("untitled:Untitled-1"); got != "" {
		t.Errorf("uriPath of an untitled document = %q, want none", got)
	}
}
