package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// The model of every request `gemini-ls run` sends for a model name, and
// the classifier's answer where an auto routes: what Gemini CLI 0.61 sent
// to the same fake for the same settings (bench/compare-0.61/models.sh,
// docs/benchmarks.md). An alias never reaches the API; a routed prompt's
// tool-call continuation stays on the model it was routed to.
func TestRunModelRouting(t *testing.T) {
	low := geminitest.TextTurn(`{"complexity_reasoning":"Simple read.","complexity_score":10}`)
	high := geminitest.TextTurn(`{"complexity_reasoning":"Architecture.","complexity_score":95}`)
	flash := geminitest.TextTurn(`{"reasoning":"Simple read.","model_choice":"flash"}`)
	pro := geminitest.TextTurn(`{"reasoning":"Architecture.","model_choice":"pro"}`)
	fails := geminitest.Turn{Err: &geminitest.APIError{Code: 400, Message: "classifier refused"}}
	garbage := geminitest.TextTurn("not json")
	call := geminitest.CallTurn(geminitest.Call("list_directory", map[string]any{"dir_path": "."}))
	done := geminitest.TextTurn("Done.")
	const (
		classifier = "generateContent gemini-3.5-flash-lite"
		custom     = "streamGenerateContent gemini-3.1-pro-preview-customtools"
		pro31      = "streamGenerateContent gemini-3.1-pro-preview"
		flash38    = "streamGenerateContent gemini-3.8-flash"
	)
	for _, tc := range []struct {
		name, model string
		turns       []geminitest.Turn
		want        []string
	}{
		{"auto low", "auto", []geminitest.Turn{low, call, done}, []string{classifier, flash38, flash38}},
		{"auto high", "auto", []geminitest.Turn{high, call, done}, []string{classifier, custom, custom}},
		{"auto classifier fails", "auto", []geminitest.Turn{fails, done}, []string{classifier, pro31}},
		{"auto classifier garbage", "auto", []geminitest.Turn{garbage, garbage, garbage, garbage, garbage, done},
			[]string{classifier, classifier, classifier, classifier, classifier, pro31}},
		{"auto-gemini-3 low", "auto-gemini-3", []geminitest.Turn{low, done}, []string{classifier, flash38}},
		{"auto-gemini-2.5 flash", "auto-gemini-2.5", []geminitest.Turn{flash, done}, []string{classifier, flash38}},
		{"auto-gemini-2.5 pro", "auto-gemini-2.5", []geminitest.Turn{pro, done}, []string{classifier, "streamGenerateContent gemini-2.5-pro"}},
		{"auto-gemini-2.5 classifier fails", "auto-gemini-2.5", []geminitest.Turn{fails, done}, []string{classifier, "streamGenerateContent gemini-2.5-pro"}},
		{"pro", "pro", []geminitest.Turn{done}, []string{pro31}},
		{"flash", "flash", []geminitest.Turn{done}, []string{flash38}},
		{"flash-lite", "flash-lite", []geminitest.Turn{done}, []string{"streamGenerateContent gemini-3.5-flash-lite"}},
		{"concrete", "gemini-2.5-flash", []geminitest.Turn{done}, []string{"streamGenerateContent gemini-2.5-flash"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHeadless(t, map[string]string{"README.md": "hello\n"}, tc.turns...)
			writeFiles(t, homeOf(t, h.env), map[string]string{
				".gemini/settings.json": `{"model": {"name": "` + tc.model + `"}}`,
			})
			r := h.runIn(h.root, h.withoutEnv("GEMINI_MODEL"), "run", "-p", "list the files here", "--output-format", "json", "--approval-mode", "yolo")
			r.wantExit(t, 0)
			var got []string
			for _, req := range h.model.Requests() {
				got = append(got, req.Method+" "+req.Model)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("requests =\n  %s\nwant\n  %s\nstderr: %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "), r.stderr)
			}
			res := decodeOne(t, r.stdout)
			for _, w := range tc.want {
				if m := strings.Fields(w)[1]; res.Stats.Models[m].API.TotalRequests == 0 {
					t.Errorf("stats.models = %+v, lacks %s", res.Stats.Models, m)
				}
			}
		})
	}
}

// homeOf is the HOME in env.
func homeOf(t *testing.T, env []string) string {
	for _, kv := range env {
		if home, ok := strings.CutPrefix(kv, "HOME="); ok {
			return home
		}
	}
	t.Fatal("no HOME in the environment")
	return ""
}

// With no model named anywhere (no --model, GEMINI_MODEL or model.name)
// the model is auto, as Gemini CLI 0.61's default: the first request is
// the classifier's, on its flash-lite model, and the prompt goes where it
// routed.
func TestRunDefaultModelRoutes(t *testing.T) {
	h := newHeadless(t, nil,
		geminitest.TextTurn(`{"complexity_reasoning":"Simple.","complexity_score":10}`), geminitest.TextTurn("hi"))
	r := h.runIn(h.root, h.withoutEnv("GEMINI_MODEL"), "run", "-p", "hi", "--output-format", "json")
	r.wantExit(t, 0)
	var got []string
	for _, req := range h.model.Requests() {
		got = append(got, req.Method+" "+req.Model)
	}
	want := []string{"generateContent gemini-3.5-flash-lite", "streamGenerateContent gemini-3.8-flash"}
	if !slices.Equal(got, want) {
		t.Fatalf("requests = %q, want %q\nstderr: %s", got, want, r.stderr)
	}
	if res := decodeOne(t, r.stdout); res.Response != "hi" || len(res.Stats.Models) != 2 {
		t.Errorf("response %q, stats.models %+v; want hi, both models", res.Response, res.Stats.Models)
	}
}

// Over ACP, with no model named: the session's model option is auto, the
// prompt is routed (the classifier's request first), and the answer's
// _meta.quota names the concrete model that answered, as Gemini CLI
// 0.61's ACP agent reports it.
func TestACPDefaultModelRoutesAndReportsIt(t *testing.T) {
	answer := geminitest.TextTurn("Planned.")
	answer.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 40, CandidatesTokenCount: 2, TotalTokenCount: 42}
	h := startACP(t, acpSetup{noSession: true, env: []string{"GEMINI_MODEL="}},
		geminitest.TextTurn(`{"complexity_reasoning":"Architecture.","complexity_score":95}`), answer)
	res, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.session = res.SessionId
	if got := configOption(t, res.ConfigOptions, "model").CurrentValue; got != "auto" {
		t.Errorf("model option's current value = %q, want auto", got)
	}
	got := h.mustPrompt("design the service", sdk.StopReasonEndTurn)
	var models []string
	for _, req := range h.model.Requests() {
		models = append(models, req.Model)
	}
	if want := []string{"gemini-3.5-flash-lite", "gemini-3.1-pro-preview-customtools"}; !slices.Equal(models, want) {
		t.Errorf("requests went to %q, want %q", models, want)
	}
	meta, _ := json.Marshal(got.Meta)
	const want = `{"quota":{"model_usage":[{"model":"gemini-3.1-pro-preview-customtools","token_count":{"input_tokens":40,"output_tokens":2}}],"token_count":{"input_tokens":40,"output_tokens":2}}}`
	if string(meta) != want {
		t.Errorf("_meta = %s\nwant %s", meta, want)
	}
}

// Over LSP, with no model named: the prompt is routed, and its usage
// update names the concrete model that answered, so an editor can show it.
func TestLSPUsageNamesTheRoutedModel(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), env: []string{"GEMINI_MODEL="}},
		geminitest.TextTurn(`{"complexity_reasoning":"Simple.","complexity_score":10}`), geminitest.TextTurn("Hi."))
	h.prompt(map[string]any{"prompt": "hi"})
	var models []string
	for _, m := range h.client.Messages("gemini/update") {
		var u struct{ Kind, Model string }
		_ = json.Unmarshal(m.Params, &u)
		if u.Kind == "usage" {
			models = append(models, u.Model)
		}
	}
	if !slices.Equal(models, []string{"gemini-3.8-flash"}) {
		t.Errorf("usage updates name %q, want one naming gemini-3.8-flash", models)
	}
}
