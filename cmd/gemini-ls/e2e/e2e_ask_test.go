package e2e

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// askDatabase is an ask_user call of one question: which database, of
// three, several allowed when multi.
func askDatabase(multi bool) geminitest.Turn {
	return call("ask_user", map[string]any{"questions": []any{map[string]any{
		"header": "Database", "question": "Which database?", "type": "choice", "multiSelect": multi,
		"options": []any{
			map[string]any{"label": "PostgreSQL", "description": "Relational."},
			map[string]any{"label": "SQLite", "description": "One file."},
			map[string]any{"label": "Redis", "description": ""},
		},
	}}})
}

// The wording of ask_user's results, as Gemini CLI's (internal/tools/ask_user.go).
const (
	askDismissed  = "User dismissed ask_user dialog without answering."
	askGoOn       = "Carry on with your best judgement and state the assumptions you make, or stop and say in your reply what you need to know."
	askNobodyHere = "Nobody can answer your questions here: carry on with your best judgement and state the assumptions you make, or stop and say in your reply what you need to know."
)

// Our plugins are asked with gemini/ask, as a request or, for Neovim's,
// a gemini/request notification; the options chosen and the user's own
// words reach the model as Gemini CLI's dialog sends them.
func TestAskUserPluginAnswers(t *testing.T) {
	for _, profile := range []lsptest.Profile{lsptest.Plugin(), lsptest.NeovimPlugin()} {
		t.Run(profile.Name, func(t *testing.T) {
			h := start(t, setup{profile: profile}, askDatabase(true), geminitest.TextTurn("Noted."))
			var asked json.RawMessage
			h.client.OnAsk = func(_ context.Context, p json.RawMessage) any {
				asked = p
				return map[string]any{"chosen": []string{"2", "0"}, "text": "and a cache"}
			}
			if res := h.prompt(map[string]any{"prompt": "set up storage"}); res.Text != "Noted." {
				t.Fatalf("prompt result = %+v", res)
			}
			var params map[string]any
			if err := json.Unmarshal(asked, &params); err != nil {
				t.Fatalf("gemini/ask params %s: %v", asked, err)
			}
			want := map[string]any{
				"sessionId": params["sessionId"], "callId": params["callId"],
				"kind": "ask_user", "title": "Database", "text": "Which database?", "multiple": true, "freeText": true,
				"options": []any{
					map[string]any{"id": "0", "label": "PostgreSQL", "description": "Relational."},
					map[string]any{"id": "1", "label": "SQLite", "description": "One file."},
					map[string]any{"id": "2", "label": "Redis"},
				},
			}
			if !reflect.DeepEqual(params, want) || params["sessionId"] == "" || params["callId"] == "" {
				t.Errorf("gemini/ask params:\n%s\nwant %v", asked, want)
			}
			if got := h.toolOutputs(1); len(got) != 1 || got[0] != `{"answers":{"0":"PostgreSQL, Redis, and a cache"}}` {
				t.Errorf("the model was told %q", got)
			}
		})
	}
}

// Declining in the plugin is an answer the model hears.
func TestAskUserPluginDeclines(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin()}, askDatabase(false), geminitest.TextTurn("I will pick myself."))
	h.client.OnAsk = func(context.Context, json.RawMessage) any { return map[string]any{"declined": true} }
	if res := h.prompt(map[string]any{"prompt": "set up storage"}); res.Text != "I will pick myself." {
		t.Fatalf("prompt result = %+v", res)
	}
	if got := h.toolOutputs(1); len(got) != 1 || got[0] != askDismissed {
		t.Errorf("the model was told %q, want %q", got, askDismissed)
	}
	if r := h.updates("toolResult"); len(r) != 1 || r[0].Status != "ok" {
		t.Errorf("toolResult = %+v, want ok", r)
	}
}

// An editor without our plugin is asked with window/showMessageRequest:
// the options are its actions, with Decline; it offers one choice and no
// words of the user's own, and the model is told so.
func TestAskUserStockEditor(t *testing.T) {
	for _, c := range []struct {
		pick, want string
	}{
		{"SQLite", `{"answers":{"0":"SQLite"}}` + "\nNote: the user's editor could offer a choice of one option only, so at most one was chosen; the user's editor could offer the options only, not an answer in their own words"},
		{"Decline", askDismissed},
		{"", askDismissed},
		{"MySQL", "error: Asking the user failed: window/showMessageRequest was answered with \"MySQL\", which was not offered. " + askGoOn},
	} {
		t.Run(c.pick, func(t *testing.T) {
			h := start(t, setup{profile: lsptest.Eglot()}, askDatabase(true), geminitest.TextTurn("Done."))
			var message string
			var actions []string
			h.client.OnShowMessageRequest = func(m string, a []string) string { message, actions = m, a; return c.pick }
			if res := h.prompt(map[string]any{"prompt": "set up storage"}); res.Text != "Done." {
				t.Fatalf("prompt result = %+v", res)
			}
			if want := "Database\nWhich database?\n- PostgreSQL: Relational.\n- SQLite: One file."; message != want {
				t.Errorf("message %q, want %q", message, want)
			}
			if want := []string{"PostgreSQL", "SQLite", "Redis", "Decline"}; !reflect.DeepEqual(actions, want) {
				t.Errorf("actions %q, want %q", actions, want)
			}
			if got := h.toolOutputs(1); len(got) != 1 || got[0] != c.want {
				t.Errorf("the model was told %q, want %q", got, c.want)
			}
		})
	}
}

// An editor that can ask nothing (it answers showMessageRequest with
// MethodNotFound, as Helix did before 25.07): the model is told nobody
// can answer.
func TestAskUserEditorThatCannotAsk(t *testing.T) {
	h := start(t, setup{profile: lsptest.NoQuestions()}, askDatabase(false), geminitest.TextTurn("Guessing."))
	if res := h.prompt(map[string]any{"prompt": "set up storage"}); res.Text != "Guessing." {
		t.Fatalf("prompt result = %+v", res)
	}
	want := "error: The user could not be asked: cannot ask the user: this editor cannot show a question. " + askNobodyHere
	if got := h.toolOutputs(1); len(got) != 1 || got[0] != want {
		t.Errorf("the model was told %q, want %q", got, want)
	}
}

// ACP: the question is a permission request about the call, its options
// the question's (allow_once) and a Decline (reject_once); the option
// chosen reaches the model, and Decline is the dismissal.
func TestACPAskUser(t *testing.T) {
	for _, c := range []struct {
		answer acptest.Answer
		want   string
	}{
		{"1", `{"answers":{"0":"SQLite"}}` + "\nNote: the user's editor could offer a choice of one option only, so at most one was chosen; the user's editor could offer the options only, not an answer in their own words"},
		{acptest.RejectOnce, askDismissed},
	} {
		t.Run(string(c.answer), func(t *testing.T) {
			h := startACP(t, acpSetup{cfg: acptest.Config{Answer: func(sdk.RequestPermissionRequest) acptest.Answer { return c.answer }}},
				askDatabase(true), geminitest.TextTurn("Done."))
			h.mustPrompt("set up storage", sdk.StopReasonEndTurn)
			perms := h.client.Permissions()
			if len(perms) != 1 {
				t.Fatalf("%d permission requests, want 1", len(perms))
			}
			p := perms[0]
			var options []string
			for _, o := range p.Options {
				options = append(options, string(o.OptionId)+" "+o.Name+" "+string(o.Kind))
			}
			wantOptions := []string{"0 PostgreSQL allow_once", "1 SQLite allow_once", "2 Redis allow_once", "_decline Decline reject_once"}
			if !reflect.DeepEqual(options, wantOptions) {
				t.Errorf("options %q, want %q", options, wantOptions)
			}
			if p.ToolCall.Title == nil || *p.ToolCall.Title != "Database" {
				t.Errorf("tool call title %v, want Database", p.ToolCall.Title)
			}
			content, _ := json.Marshal(p.ToolCall.Content)
			if !strings.Contains(string(content), `Which database?\n\n- **PostgreSQL**: Relational.\n- **SQLite**: One file.`) {
				t.Errorf("tool call content %s does not hold the question", content)
			}
			fr := h.functionResponses(1)
			if len(fr) != 1 || fr[0]["output"] != c.want {
				t.Errorf("the model was told %v, want output %q", fr, c.want)
			}
		})
	}
}

// Headless, nobody can answer, so ask_user is not offered (as in Gemini
// CLI 0.61): a call of it is answered, in 0.61's words, that there is no
// such tool, and the model goes on.
func TestRunAskUserNobodyCanAnswer(t *testing.T) {
	h := newHeadless(t, nil, askDatabase(false), geminitest.TextTurn("Assuming PostgreSQL."))
	r := h.run("run", "-p", "set up storage")
	r.wantExit(t, 0)
	reqs := h.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	last := reqs[1].Contents[len(reqs[1].Contents)-1]
	if len(last.Parts) != 1 || last.Parts[0].FunctionResponse == nil {
		t.Fatalf("last content %+v, want the ask_user response", last)
	}
	want := `Tool "ask_user" not found.`
	if got := responseError(last.Parts[0].FunctionResponse); !strings.HasPrefix(got, want) {
		t.Errorf("the model was told\n%q\nwant\n%q", got, want)
	}
}

// ACP's "cancelled" outcome says the prompt turn was cancelled: the
// question is not taken as declined, the turn ends cancelled, and the
// model is not asked again.
func TestACPAskUserCancelled(t *testing.T) {
	h := startACP(t, acpSetup{cfg: acptest.Config{Answer: func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.Cancelled }}},
		askDatabase(false), geminitest.TextTurn("never sent"))
	h.mustPrompt("set up storage", sdk.StopReasonCancelled)
	if n := len(h.model.Requests()); n != 1 {
		t.Errorf("the model saw %d requests, want 1 (nothing after the cancelled question)", n)
	}
}
