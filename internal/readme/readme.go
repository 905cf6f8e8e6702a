package readme

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// The markers around the generated tool list in README.md: HTML comments,
// which Markdown does not show.
const (
	Begin = "<!-- tool list: made by `go generate .` from the tool registry (internal/readme); do not edit -->\n"
	End   = "<!-- end of the tool list -->\n"
)

// DeclaredTools are the names of the built-in tools gemini-ls declares to
// the model, in the registry's order: always are those every front end
// declares (plan mode's and activate_skill among them, as Gemini CLI 0.61
// declares them), editor those declared only where the user's editor can
// answer them, code those declared only where a language server answers
// (the editor's, or one gemini-ls starts).
func DeclaredTools() (always, editor, code []string) {
	everywhere := tools.Options{Plan: tools.PlanOptions{Enabled: true}, Skills: &skills.Catalog{}}
	for _, t := range tools.Builtin(everywhere) {
		always = append(always, t.Name())
	}
	added := func(opts tools.Options) []string {
		var out []string
		for _, t := range tools.Builtin(opts) {
			if !slices.Contains(always, t.Name()) {
				out = append(out, t.Name())
			}
		}
		return out
	}
	withEditor := everywhere
	withEditor.Diagnostics = noEditor{}
	withServer := everywhere
	withServer.CodeIntel = noEditor{}
	return always, added(withEditor), added(withServer)
}

// noEditor stands for an editor that can answer get_diagnostics and a
// language server, so that Builtin declares what it declares with them;
// the list never runs a tool.
type noEditor struct{}

var errNoEditor = errors.New("no editor: the README's tool list runs no tool")

func (noEditor) Diagnostics(context.Context, []string) ([]dialog.FileDiagnostics, error) {
	return nil, errNoEditor
}

func (noEditor) Ask(context.Context, codeintel.Request) (codeintel.Answer, error) {
	return codeintel.Answer{}, errNoEditor
}

// ToolList is the Markdown README.md holds between Begin and End.
func ToolList() string {
	always, editor, code := DeclaredTools()
	return fmt.Sprintf("The model's tools (%d): %s.\nIn an editor whose plugin answers for them, also: %s.\nWhere a language server answers (the editor's own, or one gemini-ls finds on PATH), also: %s.\n",
		len(always), codeList(always), codeList(editor), codeList(code))
}

// codeList is names as inline code, comma-separated.
func codeList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "`" + n + "`"
	}
	return strings.Join(quoted, ", ")
}

// Generated is the text between the markers in readme, and an error when
// they are missing, out of order or there twice.
func Generated(readme string) (string, error) {
	return between(readme, Begin, End, "tool list")
}

// Update returns readme with ToolList between its markers.
func Update(readme string) (string, error) {
	return Replace(readme, Begin, End, "tool list", ToolList())
}
