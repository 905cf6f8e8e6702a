package tools

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sameWordElsewhere are strings that spell a tool's name and mean
// something else, by file: a word of another vocabulary.
var sameWordElsewhere = map[string]string{
	"internal/dialog/words.go:ask_user":           "a question's kind, dialog.QuestionAskUser",
	"internal/policy/policy.go:ask_user":          "a policy rule's decision",
	"internal/agent/sessionstore/file.go:replace": "a session file's record kind",
	"internal/lsp/updates.go:replace":             "the wire schema's example of a toolCall (a front end names no tool)",
	"internal/tools/editfix.go:replace":           "a property of the edit-fixing model's answer schema",
	"internal/memory/rules.go:glob":               "an Antigravity rule's trigger (trigger: glob)",
}

// A built-in tool's name is written once, in toolnames.go: every other
// Go file written by hand names it by its constant, so a list of tools
// cannot miss one or spell it apart.
func TestToolNamesAreWrittenOnce(t *testing.T) {
	names := append(Names(), ReadManyFilesName)
	root := filepath.Join("..", "..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || rel == "internal/tools/toolnames.go" {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			// Written from files that are not Go (internal/policy's
			// tables.go, from 0.61's policy files), which name tools as
			// 0.61 spells them.
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && slices.Contains(names, s) {
				if _, ok := sameWordElsewhere[rel+":"+s]; !ok {
					found = append(found, rel+": "+strconv.Quote(s))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: a tool's name written out; name it by its constant in internal/tools/toolnames.go", f)
	}
}

// Names holds every name toolnames.go declares, once.
func TestNamesListsEveryName(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "toolnames.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			for _, v := range s.(*ast.ValueSpec).Values {
				if lit, ok := v.(*ast.BasicLit); ok {
					name, _ := strconv.Unquote(lit.Value)
					declared = append(declared, name)
				}
			}
		}
	}
	listed := append(Names(), ReadManyFilesName)
	slices.Sort(declared)
	slices.Sort(listed)
	if !slices.Equal(declared, listed) || slices.Compact(slices.Clone(listed)) == nil || len(slices.Compact(slices.Clone(listed))) != len(listed) {
		t.Errorf("toolnames.go declares %q; Names and ReadManyFilesName list %q", declared, listed)
	}
}
