package agent

import (
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// write_todos is declared exactly where Gemini CLI 0.61 declares it: on
// the Gemini 2 models that are not previews, never on Gemini 3, an auto
// or an alias (1.4k tokens a request there); the other tools on every
// model. A model changed (/model) declares by the new one, and a call of
// write_todos where it is not declared tells the user why.
func TestWriteTodosDeclaredAsIn061(t *testing.T) {
	reg := tools.NewRegistry(namedTool(tools.ReadFileName), namedTool(tools.WriteTodosName))
	for model, todos := range map[string]bool{
		models.Gemini25Pro: true, models.Gemini25Flash: true, models.Gemini25FlashLite: true, "gemini-2.0-flash": true,
		models.Auto: false, models.AutoGemini25: false, models.AutoGemini3: false, models.Pro: false,
		models.Gemini3ProPreview: false, models.Gemini31ProPreview: false, models.Gemini3FlashPreview: false, models.LatestFlash: false,
	} {
		a := New(Config{Tools: reg, Model: model})
		want := []string{tools.ReadFileName}
		if todos {
			want = append(want, tools.WriteTodosName)
		}
		if got := a.declaredNames(toolsKey{mode: dialog.ApprovalDefault}); !slices.Equal(got, want) {
			t.Errorf("%s: declared %q, want %q", model, got, want)
		}
	}
	a := New(Config{Tools: reg, Model: models.Gemini25Flash})
	a.SetModel(models.Gemini3FlashPreview)
	if got := a.declaredNames(toolsKey{mode: dialog.ApprovalDefault}); slices.Contains(got, tools.WriteTodosName) {
		t.Errorf("after /model %s: declared %q", models.Gemini3FlashPreview, got)
	}
	got, not := a.notOffered(tools.WriteTodosName, toolsKey{mode: dialog.ApprovalDefault})
	if want := "write_todos is offered to the model only on Gemini 2 models, as Gemini CLI 0.61 offers it, not on gemini-3-flash-preview"; len(got) < len(want) || got[:len(want)] != want || not != nil {
		t.Errorf("the user is told %q (%+v)", got, not)
	}
}
