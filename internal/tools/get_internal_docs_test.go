package tools

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

func testDocs() fstest.MapFS {
	return fstest.MapFS{
		"README.md":              {Data: []byte("# gemini-ls\n")},
		"docs/configuration.md":  {Data: []byte("# Configuration\n")},
		"docs/acp.md":            {Data: []byte("# ACP\n")},
		"docs/guide/intro.mdx":   {Data: []byte("Intro.\n")},
		"docs/screenshots/a.png": {Data: []byte("\x89PNG")},
		"docs/notes.txt":         {Data: []byte("not Markdown\n")},
	}
}

// get_internal_docs is declared as 0.61 declares it: one optional string
// "path", no wait_for_previous, derived from its parameter struct; it is
// read-only, asks nothing, and is a thinking call. It is not one of the
// main agent's tools.
func TestGetInternalDocsDeclaration(t *testing.T) {
	tool := NewGetInternalDocs(testDocs())
	d := tool.Declaration()
	if d.Name != "get_internal_docs" || tool.Name() != "get_internal_docs" {
		t.Errorf("named %q, %q", d.Name, tool.Name())
	}
	if d.Description != "Returns the content of gemini-ls internal documentation files. If no path is provided, returns a list of all available documentation paths." {
		t.Errorf("description %q", d.Description)
	}
	want := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"path": map[string]any{
				"type":        "string",
				"description": "The relative path to the documentation file (e.g., 'docs/configuration.md'). If omitted, lists all available documentation.",
			},
		},
	}
	if !reflect.DeepEqual(d.ParametersJsonSchema, want) {
		t.Errorf("parameters\n%v\nwant\n%v", d.ParametersJsonSchema, want)
	}
	if got := d.ParametersJsonSchema; !reflect.DeepEqual(got, declaredSchema(reflect.TypeFor[getInternalDocsParams](), nil)) {
		t.Errorf("parameters %v are not what jsonschema-go derives", got)
	}
	if a := AnnotationsOf(tool); a != (Annotations{Kind: dialog.KindThink, ReadOnly: true}) {
		t.Errorf("annotations %+v", a)
	}
	call := build(t, tool, nil)
	if call.Confirmation() != nil || kindOf(tool) != dialog.KindThink || call.Title() != "Listing all available internal documentation." {
		t.Errorf("call: confirmation %v, kind %s, title %q", call.Confirmation(), kindOf(tool), call.Title())
	}
	if title := build(t, tool, map[string]any{"path": "README.md"}).Title(); title != "Reading internal documentation: README.md" {
		t.Errorf("title %q", title)
	}
	if msg := buildError(t, tool, map[string]any{"path": 3}); msg != "params/path must be string" {
		t.Errorf("a number as path: %q", msg)
	}
	tw := newTestWorkspace(t, nil)
	for _, b := range Builtin(Options{Workspace: tw.ws}) {
		if b.Name() == GetInternalDocsName {
			t.Error("get_internal_docs is one of the main agent's tools")
		}
	}
}

// Without a path, it lists every Markdown file (.md, .mdx), sorted, in
// 0.61's words.
func TestGetInternalDocsLists(t *testing.T) {
	tool := NewGetInternalDocs(testDocs())
	for _, args := range []map[string]any{nil, {"path": ""}} {
		res := run(t, tool, args)
		wantOutput(t, res, "Available gemini-ls documentation files:\n\n- README.md\n- docs/acp.md\n- docs/configuration.md\n- docs/guide/intro.mdx")
		if res.Display != "Found 4 documentation files." {
			t.Errorf("display %q", res.Display)
		}
	}
}

// With a path, it reads that file; a path with ".." that stays inside the
// documentation is read, as 0.61 resolves it.
func TestGetInternalDocsReads(t *testing.T) {
	tool := NewGetInternalDocs(testDocs())
	res := run(t, tool, map[string]any{"path": "docs/configuration.md"})
	wantOutput(t, res, "# Configuration\n")
	if res.Display != "Successfully read documentation: docs/configuration.md" {
		t.Errorf("display %q", res.Display)
	}
	for _, p := range []string{"docs/../README.md", "./README.md", `docs\acp.md`} {
		res := run(t, tool, map[string]any{"path": p})
		if res.Error != "" || !strings.HasPrefix(res.Output, "# ") {
			t.Errorf("%s: output %q, error %q", p, res.Output, res.Error)
		}
	}
}

// A path leading outside the documentation is refused with 0.61's error,
// and nothing outside is read; a missing file is an error naming it.
func TestGetInternalDocsRefusesOutside(t *testing.T) {
	tool := NewGetInternalDocs(testDocs())
	for _, p := range []string{"../go.mod", "docs/../../go.mod", "/etc/passwd", `..\go.mod`, "C:/Windows/win.ini", ".."} {
		res := run(t, tool, map[string]any{"path": p})
		const denied = "Access denied: Requested path is outside the documentation directory."
		if res.Error != denied || res.Status != dialog.StatusError || res.Output != "" || res.Display != "Failed to access documentation: "+denied {
			t.Errorf("%s: %+v", p, res)
		}
	}
	res := run(t, tool, map[string]any{"path": "docs/missing.md"})
	if res.Status != dialog.StatusError || !strings.Contains(res.Error, "docs/missing.md") || !strings.Contains(res.Error, "not exist") {
		t.Errorf("missing file: %+v", res)
	}
}
