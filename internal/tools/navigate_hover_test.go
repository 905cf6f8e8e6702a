package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/codeintel/langclient"
	"github.com/gemini-ls/gemini-ls/internal/codeintel/langclient/langservertest"
)

// withheldHover is what the model is told of Greet's hover when Greet is
// declared where it may not read.
func withheldHover(symbol, source, why string) string {
	return "The hover text of " + symbol + " (from " + source + ") is withheld: " + symbol + " is declared " + why +
		", and its hover shows that declaration (its value, signature or documentation), which you may not read."
}

// A hover shows the symbol's declaration wherever that is, so it is
// withheld, saying why, when the symbol is declared where the model may
// not read: an ignored file, outside the workspace, .git, a URI naming
// no file; one such declaration among readable ones is enough. The
// hover itself is then not asked for.
func TestNavigateCodeWithholdsHoversOfHiddenDeclarations(t *testing.T) {
	tw := codeWorkspace(t)
	tw.write(".git/config", "[core]\n")
	outside := filepath.Join(t.TempDir(), "other.go")
	readable := loc(tw.abs("greet/greet.go"), 3, 5)
	for _, c := range []struct {
		where, definition, why string
	}{
		{"an ignored file", loc(tw.abs("secret/s.go"), 1, 15), "in a file ignored by .gitignore or .geminiignore"},
		{"outside the workspace", loc(outside, 0, 6), "outside the workspace"},
		{".git", loc(tw.abs(".git/config"), 0, 1), "in .git"},
		{"a URI naming no file", `{"uri": "jar:file:///lib.jar!/Greet.java", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}}}`, "outside the workspace"},
		{"a readable file and an ignored one", readable + "," + loc(tw.abs("secret/s.go"), 1, 15), "in a file ignored by .gitignore or .geminiignore"},
	} {
		t.Run(c.where, func(t *testing.T) {
			f := &fakeServer{answer: func(req codeintel.Request) (string, error) {
				if req.Op == codeintel.Definition {
					return "[" + c.definition + "]", nil
				}
				return `{"contents": {"kind": "markdown", "value": "const Greet = \"s3cr3t\""}}`, nil
			}}
			res := run(t, tw.tool(NavigateCodeName, Options{CodeIntel: f}), map[string]any{"operation": "hover", "file_path": "main.go", "line": 6, "symbol": "Greet"})
			wantOutput(t, res, withheldHover("Greet", "fakels", c.why))
			for _, req := range f.asked {
				if req.Op == codeintel.Hover {
					t.Errorf("the hover was asked for, though its declaration may not be read")
				}
			}
		})
	}

	// Declared where the model may read, or nowhere: the hover is shown.
	for _, definition := range []string{"[" + readable + "]", "[]", "null"} {
		f := &fakeServer{answer: func(req codeintel.Request) (string, error) {
			if req.Op == codeintel.Definition {
				return definition, nil
			}
			return `{"contents": "func Greet(name string) string"}`, nil
		}}
		res := run(t, tw.tool(NavigateCodeName, Options{CodeIntel: f}), map[string]any{"operation": "hover", "file_path": "main.go", "line": 6, "symbol": "Greet"})
		wantOutput(t, res, "Greet (from fakels):\nfunc Greet(name string) string")
	}
}

// goplsModule is a module whose main.go uses three constants: one in a
// package .geminiignore ignores, one in a module outside the workspace
// (replaced by a directory elsewhere), one the model may read.
func goplsModule(t *testing.T, outsideDir string) map[string]string {
	t.Helper()
	return map[string]string{
		"go.mod":           "module example.com/m\n\ngo 1.22\n\nrequire example.com/outside v0.0.0\n\nreplace example.com/outside => " + filepath.ToSlash(outsideDir) + "\n",
		".geminiignore":    "secret/\n",
		"secret/secret.go": "package secret\n\n// Secret is in an ignored file.\nconst Secret = \"ignored-s3cr3t\"\n",
		"public/public.go": "package public\n\n// Public may be read.\nconst Public = \"public-value\"\n",
		"main.go": "package main\n\nimport (\n\t\"example.com/m/public\"\n\t\"example.com/m/secret\"\n\t\"example.com/outside\"\n)\n\n" +
			"var (\n\t_ = secret.Secret\n\t_ = outside.Secret\n\t_ = public.Public\n)\n\nfunc main() {}\n",
	}
}

// With the real gopls, whose hover of a constant shows its value: the
// hover of a constant declared in an ignored file, or outside the
// workspace, shows no value and says why; that of a readable one does.
func TestNavigateCodeHoverWithGoplsWithholdsHiddenConstants(t *testing.T) {
	langservertest.Find(t, "gopls")
	outsideDir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"go.mod":     "module example.com/outside\n\ngo 1.22\n",
		"outside.go": "package outside\n\n// Secret is outside the workspace.\nconst Secret = \"outside-s3cr3t\"\n",
	} {
		if err := os.WriteFile(filepath.Join(outsideDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tw := newTestWorkspace(t, goplsModule(t, outsideDir))
	servers := langclient.New(tw.ws, nil, nil, nil)
	t.Cleanup(func() {
		if err := servers.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	tool := tw.tool(NavigateCodeName, Options{CodeIntel: servers})
	hover := func(line int, symbol string) string {
		t.Helper()
		res := run(t, tool, map[string]any{"operation": "hover", "file_path": "main.go", "line": line, "symbol": symbol})
		if res.Error != "" {
			t.Fatalf("hover of %s on line %d: %s", symbol, line, res.Error)
		}
		return res.Output
	}
	// The readable constant first: it shows gopls shows values.
	if got := hover(12, "Public"); !strings.Contains(got, `"public-value"`) {
		t.Fatalf("hover of public.Public = %q, want its value", got)
	}
	for _, c := range []struct {
		line  int
		value string
		why   string
	}{
		{10, "ignored-s3cr3t", "in a file ignored by .gitignore or .geminiignore"},
		{11, "outside-s3cr3t", "outside the workspace"},
	} {
		got := hover(c.line, "Secret")
		if strings.Contains(got, c.value) {
			t.Errorf("hover on line %d showed the value of a constant the model may not read:\n%s", c.line, got)
		}
		if want := withheldHover("Secret", "gopls", c.why); got != want {
			t.Errorf("hover on line %d:\n%s\nwant:\n%s", c.line, got, want)
		}
	}
}
