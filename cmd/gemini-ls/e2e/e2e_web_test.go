package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"github.com/gemini-ls/gemini-ls/internal/models"
)

const searchAnswer = "Go 1.26 was released. It adds things."

// searchTurns: the model searches, the utility model answers grounded,
// the model answers the user.
func searchTurns() []geminitest.Turn {
	grounded := geminitest.TextTurn(searchAnswer)
	grounded.Grounding = &genai.GroundingMetadata{
		WebSearchQueries: []string{"go 1.26"},
		GroundingChunks: []*genai.GroundingChunk{
			{Web: &genai.GroundingChunkWeb{URI: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes"}},
			{Web: &genai.GroundingChunkWeb{URI: "https://go.dev/blog", Title: "The Go Blog"}},
		},
		GroundingSupports: []*genai.GroundingSupport{
			{Segment: &genai.Segment{EndIndex: int32(len("Go 1.26 was released.")), Text: "Go 1.26 was released."}, GroundingChunkIndices: []int32{0, 1}},
			{Segment: &genai.Segment{StartIndex: 22, EndIndex: int32(len(searchAnswer)), Text: "It adds things."}, GroundingChunkIndices: []int32{0}},
		},
	}
	return []geminitest.Turn{
		call("google_web_search", map[string]any{"query": "latest go release"}),
		grounded,
		geminitest.TextTurn("Go 1.26 is out."),
	}
}

const searchOutput = "Web search results for \"latest go release\":\n\n" +
	"Go 1.26 was released.[1][2] It adds things.[1]\n\n" +
	"Sources:\n[1] Go 1.26 Release Notes (https://go.dev/doc/go1.26)\n[2] The Go Blog (https://go.dev/blog)"

// checkSearchRequest checks the utility request: 0.61's web-search model
// config (gemini-3-flash-preview at temperature 0, topP 1), the query
// alone, the googleSearch tool.
func checkSearchRequest(t *testing.T, model *geminitest.Server) {
	t.Helper()
	req := model.Requests()[1]
	if req.Method != "generateContent" || req.Model != models.Gemini3FlashPreview {
		t.Errorf("search request = %s on %s, want generateContent on %s", req.Method, req.Model, models.Gemini3FlashPreview)
	}
	if gc := req.GenerationConfig; gc == nil || gc.Temperature == nil || *gc.Temperature != 0 || gc.TopP == nil || *gc.TopP != 1 || gc.ThinkingConfig != nil {
		t.Errorf("search request generationConfig = %+v, want temperature 0, topP 1", gc)
	}
	if len(req.Tools) != 1 || req.Tools[0].GoogleSearch == nil {
		t.Errorf("search request tools = %+v, want googleSearch", req.Tools)
	}
	if len(req.Contents) != 1 || req.Contents[0].Parts[0].Text != "latest go release" {
		t.Errorf("search request contents = %+v, want the query", req.Contents)
	}
}

func TestWebSearchThroughLSP(t *testing.T) {
	h := start(t, setup{profile: lsptest.VSCode()}, searchTurns()...)
	res := h.prompt(map[string]any{"prompt": "what is the latest go?"})
	if res.StopReason != "end_turn" || res.Text != "Go 1.26 is out." {
		t.Fatalf("prompt result = %+v", res)
	}
	checkSearchRequest(t, h.model)
	if got := h.toolOutputs(2); len(got) != 1 || got[0] != searchOutput {
		t.Errorf("tool output =\n%q\nwant\n%q", got, searchOutput)
	}
	results := h.updates("toolResult")
	if len(results) != 1 || results[0].Status != "ok" || results[0].Display != `Search results for "latest go release" returned.` {
		t.Errorf("toolResult updates = %+v", results)
	}
}

func TestWebSearchHeadless(t *testing.T) {
	h := newHeadless(t, nil, searchTurns()...)
	r := h.run("run", "-p", "what is the latest go?")
	r.wantExit(t, 0)
	if r.stdout != "Go 1.26 is out.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	checkSearchRequest(t, h.model)
	if fr := h.responses(2); len(fr) != 1 || responseOutput(fr[0]) != searchOutput {
		t.Errorf("function responses = %+v, want output\n%s", fr, searchOutput)
	}
}

// recorder is a local server that must see no request.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newRecorder(t *testing.T) *recorder {
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.seen = append(rec.seen, r.Method+" "+r.Host+" "+r.URL.String())
		rec.mu.Unlock()
		fmt.Fprint(w, "internal secrets")
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (rec *recorder) requests() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]string(nil), rec.seen...)
}

// The binary's own fetcher, real resolver and real dialer: loopback
// (by address and by name), private and metadata addresses are refused,
// also with a proxy configured, and nothing reaches the local servers.
func TestWebFetchHeadlessRefusesLocalAddresses(t *testing.T) {
	target, proxy := newRecorder(t), newRecorder(t)
	port := target.Listener.Addr().String()[strings.LastIndex(target.Listener.Addr().String(), ":")+1:]
	urls := []string{
		target.URL + "/secret",
		"http://localhost:" + port + "/secret",
		"http://[::1]:" + port + "/secret",
		"http://10.0.0.1/admin",
		"http://169.254.169.254/latest/meta-data",
	}
	h := newHeadless(t, nil,
		call("web_fetch", map[string]any{"prompt": "Summarize " + strings.Join(urls, " ")}),
		geminitest.TextTurn("Could not fetch."),
	)
	env := append(h.withoutEnv("NO_PROXY"), "HTTP_PROXY="+proxy.URL, "HTTPS_PROXY="+proxy.URL, "GEMINI_CLI_TRUST_WORKSPACE=true")
	r := h.runIn(h.root, env, "run", "--approval-mode", "yolo", "-p", "read those pages")
	r.wantExit(t, 0)
	fr := h.responses(1)
	if len(fr) != 1 {
		t.Fatalf("function responses = %+v", fr)
	}
	e := responseError(fr[0])
	if !strings.HasPrefix(e, "All fetch attempts failed: ") {
		t.Fatalf("web_fetch = %+v, want every URL refused", fr[0].Response)
	}
	for _, u := range urls {
		if !strings.Contains(e, u+": access to ") || !strings.Contains(e, "is not allowed") {
			t.Errorf("the error does not say %s was refused:\n%s", u, e)
		}
	}
	if got := target.requests(); len(got) > 0 {
		t.Errorf("requests reached the local server: %q", got)
	}
	if got := proxy.requests(); len(got) > 0 {
		t.Errorf("refused requests were sent to the proxy: %q", got)
	}
	if n := len(h.model.Requests()); n != 2 {
		t.Errorf("the model saw %d requests, want 2 (no summary of nothing)", n)
	}
}

// The plugin is asked with the URLs to fetch (GitHub blob pages as their
// raw files), before anything is fetched.
func TestWebFetchConfirmationShowsURLs(t *testing.T) {
	target := newRecorder(t)
	h := start(t, setup{profile: lsptest.Plugin()},
		call("web_fetch", map[string]any{"prompt": "Compare " + target.URL + "/a with https://github.com/golang/go/blob/master/README.md"}),
		geminitest.TextTurn("Not allowed."),
	)
	var asked json.RawMessage
	h.client.OnConfirm = func(_ context.Context, p json.RawMessage) string { asked = p; return "cancel" }
	if res := h.prompt(map[string]any{"prompt": "compare"}); res.Text != "Not allowed." {
		t.Fatalf("prompt result = %+v", res)
	}
	var params struct{ Kind, Title, Details string }
	if err := json.Unmarshal(asked, &params); err != nil {
		t.Fatalf("gemini/confirm params %s: %v", asked, err)
	}
	wantDetails := target.URL + "/a\nhttps://raw.githubusercontent.com/golang/go/master/README.md"
	if params.Kind != "fetch" || params.Title != "Allow fetching these URLs?" || params.Details != wantDetails {
		t.Errorf("gemini/confirm = %+v, want kind fetch with details\n%s", params, wantDetails)
	}
	if got := h.toolOutputs(1); len(got) != 1 || !strings.HasPrefix(got[0], "error: ") {
		t.Errorf("tool output = %q, want the refusal", got)
	}
	if r := h.updates("toolResult"); len(r) != 1 || r[0].Status != "rejected" {
		t.Errorf("toolResult = %+v, want rejected", r)
	}
	if got := target.requests(); len(got) > 0 {
		t.Errorf("declined fetch reached the server: %q", got)
	}
}
