package langclient

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// goModule is a module of two packages: Hello called from two places, an
// interface with an implementation, a method.
var goModule = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.22\n",
	"greet/greet.go": `package greet

// Greeter says hello.
type Greeter interface {
	Greet(name string) string
}

// English greets in English.
type English struct{}

// Greet is English's greeting.
func (English) Greet(name string) string { return Hello(name) + "!" }

// Hello says hello to name.
func Hello(name string) string {
	return "hello, " + name
}
`,
	"main.go": `package main

import (
	"fmt"

	"example.com/m/greet"
)

func main() {
	fmt.Println(greet.Hello("world"))
	var g greet.Greeter = greet.English{}
	fmt.Println(g.Greet("you"))
}
`,
}

// TestGopls asks the real gopls each operation about a small module,
// then renames Hello and checks the module still builds without it.
func TestGopls(t *testing.T) {
	langserver(t, "gopls")
	goTool := platformtest.Tool(t, "go")
	root := writeTree(t, goModule)
	m := newManager(t, root, nil)
	ctx := context.Background()
	mainGo := filepath.Join(root, "main.go")
	greetGo := filepath.Join(root, "greet", "greet.go")

	ask := func(t *testing.T, req codeintel.Request) json.RawMessage {
		t.Helper()
		a, err := m.Ask(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", req.Op, err)
		}
		if a.Source != "gopls" {
			t.Errorf("Source = %q, want gopls", a.Source)
		}
		return a.Result
	}

	t.Run("references", func(t *testing.T) {
		got := locations(t, root, ask(t, at(t, codeintel.References, greetGo, "func Hello", "Hello")))
		slices.Sort(got)
		want := []string{
			lineOf(t, root, "greet/greet.go", "func Hello"),
			lineOf(t, root, "greet/greet.go", "return Hello(name)"),
			lineOf(t, root, "main.go", "greet.Hello("),
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("references of Hello = %v, want %v", got, want)
		}
	})

	t.Run("definition across packages", func(t *testing.T) {
		got := locations(t, root, ask(t, at(t, codeintel.Definition, mainGo, "greet.Hello(", "Hello")))
		if want := []string{lineOf(t, root, "greet/greet.go", "func Hello")}; !slices.Equal(got, want) {
			t.Errorf("definition of greet.Hello = %v, want %v", got, want)
		}
	})

	t.Run("implementation", func(t *testing.T) {
		got := locations(t, root, ask(t, at(t, codeintel.Implementation, greetGo, "type Greeter", "Greeter")))
		if want := []string{lineOf(t, root, "greet/greet.go", "type English")}; !slices.Equal(got, want) {
			t.Errorf("implementations of Greeter = %v, want %v", got, want)
		}
	})

	t.Run("hover", func(t *testing.T) {
		raw := ask(t, at(t, codeintel.Hover, mainGo, "greet.Hello(", "Hello"))
		if !strings.Contains(string(raw), "func greet.Hello(name string) string") || !strings.Contains(string(raw), "Hello says hello to name") {
			t.Errorf("hover of Hello = %s, want its signature and doc", raw)
		}
	})

	t.Run("document symbols", func(t *testing.T) {
		var symbols []struct {
			Name     string `json:"name"`
			Children []struct {
				Name string `json:"name"`
			} `json:"children"`
		}
		req := at(t, codeintel.DocumentSymbols, greetGo, "package greet", "greet")
		if err := json.Unmarshal(ask(t, req), &symbols); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range symbols {
			names = append(names, s.Name)
		}
		for _, want := range []string{"Greeter", "English", "Hello"} {
			if !slices.Contains(names, want) {
				t.Errorf("document symbols %v lack %s", names, want)
			}
		}
	})

	t.Run("workspace symbols", func(t *testing.T) {
		raw := ask(t, codeintel.Request{Op: codeintel.WorkspaceSymbols, Path: root, Query: "Hello"})
		var symbols []struct {
			Name     string   `json:"name"`
			Location location `json:"location"`
		}
		if err := json.Unmarshal(raw, &symbols); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, s := range symbols {
			found = found || strings.HasSuffix(s.Name, "Hello") && s.Location.where(root) == lineOf(t, root, "greet/greet.go", "func Hello")
		}
		if !found {
			t.Errorf("workspace symbols for Hello = %s, want greet.Hello at its line", raw)
		}
	})

	t.Run("incoming calls", func(t *testing.T) {
		raw := ask(t, at(t, codeintel.IncomingCalls, greetGo, "func Hello", "Hello"))
		var calls []struct {
			From struct {
				Name string `json:"name"`
			} `json:"from"`
		}
		if err := json.Unmarshal(raw, &calls); err != nil {
			t.Fatal(err)
		}
		var callers []string
		for _, c := range calls {
			callers = append(callers, c.From.Name)
		}
		slices.Sort(callers)
		if want := []string{"Greet", "main"}; !slices.Equal(callers, want) {
			t.Errorf("callers of Hello = %v, want %v", callers, want)
		}
	})

	t.Run("outgoing calls", func(t *testing.T) {
		raw := ask(t, at(t, codeintel.OutgoingCalls, greetGo, "func (English) Greet", "Greet"))
		if !strings.Contains(string(raw), `"Hello"`) {
			t.Errorf("calls from Greet = %s, want Hello", raw)
		}
	})

	t.Run("the text asked about, not the file on disk", func(t *testing.T) {
		// An unsaved buffer: a line more above Hello's call than on disk.
		req := at(t, codeintel.Definition, mainGo, "greet.Hello(", "Hello")
		req.Text = strings.Replace(req.Text, "func main() {\n", "func main() {\n\t// a line the disk lacks\n", 1)
		req.Position.Line++
		got := locations(t, root, ask(t, req))
		if want := []string{lineOf(t, root, "greet/greet.go", "func Hello")}; !slices.Equal(got, want) {
			t.Errorf("definition from the edited text = %v, want %v", got, want)
		}
		// The disk's text again, which the rename below edits.
		ask(t, at(t, codeintel.Definition, mainGo, "greet.Hello(", "Hello"))
	})

	t.Run("rename", func(t *testing.T) {
		req := at(t, codeintel.Rename, greetGo, "func Hello", "Hello")
		req.NewName = "Salute"
		changed := applyWorkspaceEdit(t, ask(t, req))
		if len(changed) != 2 {
			t.Errorf("the rename changed %v, want greet.go and main.go", changed)
		}
		cmd := exec.Command(goTool, "vet", "./...")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go vet after the rename: %v\n%s", err, out)
		}
		for _, path := range []string{mainGo, greetGo} {
			data, _ := os.ReadFile(path)
			if strings.Contains(string(data), "Hello") {
				t.Errorf("%s still names Hello:\n%s", path, data)
			}
		}
	})

	t.Run("rename refused", func(t *testing.T) {
		req := at(t, codeintel.Rename, mainGo, `"world"`, `world"`) // inside a string
		req.NewName = "x"
		_, err := m.Ask(ctx, req)
		if err == nil || !strings.HasPrefix(err.Error(), "the language server refused to rename here: ") {
			t.Errorf("renaming inside a string: %v, want the server's refusal", err)
		}
	})
}
