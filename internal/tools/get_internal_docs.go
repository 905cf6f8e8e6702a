package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// get_internal_docs, as Gemini CLI 0.61 has it (get-internal-docs.ts,
// chunk-JDPZ4CE3.js:339022-339129): the cli_help agent's one tool, which
// lists the documentation and reads one file of it. 0.61 reads its own
// docs directory; gemini-ls reads its own documentation, README.md and
// docs/*.md, carried in the binary (the module root's Docs), so its texts
// name gemini-ls where 0.61's name Gemini CLI. It is no tool of the main
// agent's: 0.61 gives it to cli_help alone (chunk-JDPZ4CE3.js:339188).

// NewGetInternalDocs is get_internal_docs over docs, the documentation
// by its paths (geminils.Docs()). docs is trusted not to lead outside
// itself (an embed.FS has no symbolic links); the model's path is kept
// inside it. Its kind is 0.61's Kind.Think.
func NewGetInternalDocs(docs fs.FS) Tool {
	return Define(Spec{
		Name:        GetInternalDocsName,
		Description: "Returns the content of gemini-ls internal documentation files. If no path is provided, returns a list of all available documentation paths.",
		Annotations: Annotations{Kind: dialog.KindThink, ReadOnly: true},
	}, func(p getInternalDocsParams) (Call, error) {
		return &getInternalDocsCall{docs: docs, path: p.Path}, nil
	})
}

// getInternalDocsParams is 0.61's schema (chunk-JDPZ4CE3.js:282352): one
// optional path, no wait_for_previous (0.61 declares the tool by its
// getSchema, which adds none).
type getInternalDocsParams struct {
	Path string `json:"path,omitempty" jsonschema:"The relative path to the documentation file (e.g., 'docs/configuration.md'). If omitted, lists all available documentation."`
}

type getInternalDocsCall struct {
	docs fs.FS
	path string // "" : list
}

// Title is 0.61's getDescription.
func (c *getInternalDocsCall) Title() string {
	if c.path != "" {
		return "Reading internal documentation: " + c.path
	}
	return "Listing all available internal documentation."
}

// Confirmation: 0.61's shouldConfirmExecute is false.
func (c *getInternalDocsCall) Confirmation() *Confirmation { return nil }

// Execute lists the documentation or reads one file of it, with 0.61's
// texts; a failure is an error result saying why (0.61's
// EXECUTION_FAILED), the model told the message, the user 0.61's
// "Failed to access documentation: ...".
func (c *getInternalDocsCall) Execute(_ context.Context, _ CallInfo) (Result, error) {
	if c.path == "" {
		files, err := docFiles(c.docs)
		if err != nil {
			return docsFailure(err), nil
		}
		var list strings.Builder
		for i, f := range files {
			if i > 0 {
				list.WriteByte('\n')
			}
			list.WriteString("- " + f)
		}
		return Result{
			Output:  "Available gemini-ls documentation files:\n\n" + list.String(),
			Display: fmt.Sprintf("Found %d documentation files.", len(files)),
		}, nil
	}
	name, err := docPath(c.path)
	if err != nil {
		return docsFailure(err), nil
	}
	data, err := fs.ReadFile(c.docs, name)
	if err != nil {
		return docsFailure(err), nil
	}
	return Result{Output: string(data), Display: "Successfully read documentation: " + c.path}, nil
}

func docsFailure(err error) Result {
	return Result{Error: err.Error(), Status: dialog.StatusError, Display: "Failed to access documentation: " + err.Error()}
}

// errOutsideDocs is 0.61's refusal of a path that leads outside the
// documentation (chunk-JDPZ4CE3.js:339089).
var errOutsideDocs = errors.New("Access denied: Requested path is outside the documentation directory.")

// docPath is p, relative to the documentation's root, as an fs.FS names
// it; a path that leads outside the root is refused, as 0.61 refuses
// what resolves outside its docs directory: an absolute one, or one whose
// ".." climb above the root ("docs/../README.md" stays inside and is
// read). Backslashes separate, as Node's path.resolve takes them on
// Windows.
func docPath(p string) (string, error) {
	p = strings.ReplaceAll(p, `\`, "/")
	if path.IsAbs(p) || (len(p) >= 2 && p[1] == ':') {
		return "", errOutsideDocs
	}
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", errOutsideDocs
	}
	return clean, nil
}

// docFiles are the documentation's Markdown files (0.61's glob
// "**/*.{md,mdx}"), sorted.
func docFiles(docs fs.FS) ([]string, error) {
	var files []string
	err := fs.WalkDir(docs, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".mdx")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the documentation: %w", err)
	}
	slices.Sort(files)
	return files, nil
}
