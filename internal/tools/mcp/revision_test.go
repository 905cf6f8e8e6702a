package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/mcptest"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/oauth"
)

// legacyServer is a go-sdk server that speaks 2025-11-25 and no later,
// as Gemini CLI's servers do: it records the methods it is sent and the
// capabilities its client declared at initialize.
type legacyServer struct {
	url string

	mu       sync.Mutex
	methods  []string
	declared *sdk.ClientCapabilities
}

func newLegacyServer(t *testing.T) *legacyServer {
	l := &legacyServer{}
	srv := sdk.NewServer(&sdk.Implementation{Name: "legacy", Version: "1"}, &sdk.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echoes the message."},
		func(_ context.Context, _ *sdk.CallToolRequest, a struct {
			Message string `json:"message"`
		}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "legacy echo: " + a.Message}}}, nil, nil
		})
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			l.mu.Lock()
			l.methods = append(l.methods, method)
			if p, ok := req.GetParams().(*sdk.InitializeParams); ok {
				l.declared = p.Capabilities
			}
			l.mu.Unlock()
			return next(ctx, method, req)
		}
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	l.url = ts.URL
	return l
}

// tsServer is the TypeScript SDK v2 server's command, npm-installed in
// testdata/tsserver (make test-go does it; CI runs that): the test skips,
// saying why, only where node or the modules are missing, and never in CI,
// which must compare.
func tsServer(t *testing.T) (command string, args []string) {
	node := platformtest.Tool(t, "node")
	dir, err := filepath.Abs(filepath.Join("testdata", "tsserver"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server", "package.json")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("@modelcontextprotocol/server is not installed in testdata/tsserver (npm ci --prefix internal/tools/mcp/testdata/tsserver, which make test-go runs): %v", err)
		}
		t.Skip("@modelcontextprotocol/server is not installed in testdata/tsserver: run npm ci --prefix internal/tools/mcp/testdata/tsserver (CI does)")
	}
	return node, []string{filepath.Join(dir, "server.mjs")}
}

// asked records the questions put to the user and answers each with the
// next of answers.
type asked struct {
	mu        sync.Mutex
	questions []dialog.Question
	answers   []dialog.Answer
}

func (a *asked) ask(_ context.Context, q dialog.Question) (dialog.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.questions = append(a.questions, q)
	if len(a.answers) == 0 {
		return dialog.Answer{}, dialog.ErrCannotAsk
	}
	next := a.answers[0]
	a.answers = a.answers[1:]
	return next, nil
}

// callWith runs tool's call with info and returns what it returned.
func callWith(ctx context.Context, t *testing.T, tool tools.Tool, args map[string]any, info tools.CallInfo) (tools.Result, error) {
	t.Helper()
	call, err := tool.Build(args)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return call.Execute(ctx, info)
}

// One suite for the two revisions: a go-sdk v1.8 stateless server
// (2026-07-28), the TypeScript v2 server (2026-07-28 only), and a
// 2025-11-25 server, started together.
func TestRevisions20260728And20251125(t *testing.T) {
	modern := mcptest.NewStateless(t, false)
	modernJSON := mcptest.NewStateless(t, true) // its answers JSON, not SSE
	legacy := newLegacyServer(t)
	servers := map[string]settings.MCPServer{
		"modern": {HTTPURL: modern.URL},
		"json":   {HTTPURL: modernJSON.URL},
		"stdio":  {Command: testServer, Args: []string{"-tasks"}}, // go-sdk v1.8 over stdio
		"legacy": {HTTPURL: legacy.url},
	}
	withTS := false
	if _, err := exec.LookPath("node"); err == nil {
		if _, err := os.Stat(filepath.Join("testdata", "tsserver", "node_modules", "@modelcontextprotocol", "server")); err == nil {
			command, args := tsServer(t)
			servers["ts"] = settings.MCPServer{Command: command, Args: args}
			withTS = true
		}
	}
	m, logs := startedWith(t, Config{Servers: servers})
	if w := warnings(logs); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}

	t.Run("discovered, not initialized", func(t *testing.T) {
		methods := modern.Methods()
		if !slices.Contains(methods, "server/discover") || slices.Contains(methods, "initialize") {
			t.Errorf("the 2026-07-28 server was sent %v: want server/discover and no initialize", methods)
		}
		for _, name := range []string{"mcp_modern_echo", "mcp_modern_deploy", "mcp_modern_build", "mcp_modern_wait"} {
			find(t, m, name)
		}
		if got := run(t, find(t, m, "mcp_modern_echo"), map[string]any{"message": "hi"}); got.Output != "stateless echo: hi" {
			t.Errorf("echo = %+v", got)
		}
	})

	t.Run("2025-11-25 server initialized as by Gemini CLI 0.61", func(t *testing.T) {
		if got := run(t, find(t, m, "mcp_legacy_echo"), map[string]any{"message": "old"}); got.Output != "legacy echo: old" {
			t.Errorf("echo = %+v", got)
		}
		legacy.mu.Lock()
		defer legacy.mu.Unlock()
		if !slices.Contains(legacy.methods, "initialize") {
			t.Errorf("the 2025-11-25 server was sent %v: want initialize", legacy.methods)
		}
		// 0.61 declares neither: no elicitation outside a call, no
		// extension of 2026-07-28.
		if d := legacy.declared; d == nil || d.Elicitation != nil || len(d.Extensions) > 0 {
			t.Errorf("initialize declared %+v: want no elicitation and no extensions", d)
		}
	})

	t.Run("input_required asked through the call's question path", func(t *testing.T) {
		a := &asked{answers: []dialog.Answer{{Chosen: []string{"staging"}}}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := callWith(ctx, t, find(t, m, "mcp_modern_deploy"), nil, tools.CallInfo{Ask: a.ask})
		if err != nil || res.Output != "deployed to staging" {
			t.Fatalf("deploy = %+v, %v", res, err)
		}
		if len(a.questions) != 1 {
			t.Fatalf("asked %d questions", len(a.questions))
		}
		q := a.questions[0]
		ids := []string{}
		for _, o := range q.Options {
			ids = append(ids, o.ID)
		}
		if q.Kind != dialog.QuestionAskUser || !strings.Contains(q.Title, "modern") || !strings.Contains(q.Text, "Deploy where?") ||
			!strings.Contains(q.Text, "Environment") || !slices.Equal(ids, []string{"staging", "production"}) || q.FreeText {
			t.Errorf("the question: %+v", q)
		}
		// Nobody to ask: the call fails, saying so.
		_, err = callWith(ctx, t, find(t, m, "mcp_modern_deploy"), nil, tools.CallInfo{})
		if err == nil || !strings.Contains(err.Error(), `MCP server "modern" asked`) {
			t.Errorf("with nobody to ask: %v", err)
		}
	})

	for _, c := range []struct {
		alias  string
		server *mcptest.StatelessServer
	}{{"modern", modern}, {"json", modernJSON}, {"stdio", nil}} {
		t.Run("a task polled to completion, its question answered, from "+c.alias, func(t *testing.T) {
			if c.server != nil {
				c.server.Finish() // the stdio server's build finishes once confirmed
			}
			a := &asked{answers: []dialog.Answer{{Chosen: []string{"true"}}}}
			var progress []string
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := callWith(ctx, t, find(t, m, "mcp_"+c.alias+"_build"), nil, tools.CallInfo{Ask: a.ask, Progress: func(s string) { progress = append(progress, s) }})
			if err != nil || res.Output != "built (confirmed: true)" {
				t.Fatalf("build = %+v, %v", res, err)
			}
			if len(a.questions) != 1 || !strings.Contains(a.questions[0].Text, "Build now?") || len(a.questions[0].Options) != 2 {
				t.Errorf("questions: %+v", a.questions)
			}
			all := strings.Join(progress, "\n")
			for _, want := range []string{": working: queued", ": input_required: waiting for a confirmation", ": completed: done"} {
				if !strings.Contains(all, want) {
					t.Errorf("progress shown:\n%s\nwant a line with %q", all, want)
				}
			}
			if c.server == nil {
				return // no HTTP headers to see
			}
			names := c.server.TaskNames()
			if len(names) == 0 {
				t.Fatal("no tasks/* request")
			}
			for _, n := range names {
				if name, id, _ := strings.Cut(n, "="); name != id {
					t.Errorf("a tasks/* request's Mcp-Name %q, its taskId %q", name, id)
				}
			}
			methods := c.server.Methods()
			if !slices.Contains(methods, "tasks/get") || !slices.Contains(methods, "tasks/update") {
				t.Errorf("methods: %v", methods)
			}
		})
	}

	t.Run("a task cancelled with the turn", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// The turn is cancelled once the task is shown running.
		res, err := callWith(ctx, t, find(t, m, "mcp_modern_wait"), nil, tools.CallInfo{Progress: func(string) { cancel() }})
		if err == nil || !strings.Contains(err.Error(), "was cancelled on the server") {
			t.Fatalf("wait = %+v, %v: want the task cancelled", res, err)
		}
		select {
		case id := <-modern.Cancelled():
			if !strings.Contains(err.Error(), id) {
				t.Errorf("cancelled %s; the error: %v", id, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the server was never sent tasks/cancel")
		}
	})

	t.Run("a task cancelled with the turn, over stdio", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := callWith(ctx, t, find(t, m, "mcp_stdio_wait"), nil, tools.CallInfo{Progress: func(string) { cancel() }})
		if err == nil || !strings.Contains(err.Error(), "was cancelled on the server") {
			t.Fatalf("wait = %+v, %v: want the task cancelled", res, err)
		}
	})

	t.Run("listing re-fetched when its ttlMs runs out, not per prompt", func(t *testing.T) {
		count := func() int {
			n := 0
			for _, method := range modern.Methods() {
				if method == "tools/list" {
					n++
				}
			}
			return n
		}
		before := count()
		for range 20 {
			m.Tools() // each model request reads them
		}
		if after := count(); after > before+1 {
			// At most one re-fetch may fall due meanwhile, not one a read.
			t.Errorf("tools/list sent %d times during 20 reads", after-before)
		}
		modern.AddTool("fresh")
		deadline := time.Now().Add(20 * time.Second)
		for !slices.Contains(names(m), "mcp_modern_fresh") {
			if time.Now().After(deadline) {
				t.Fatalf("the tool added on the server never appeared: %v (tools/list sent %d times)", names(m), count())
			}
			time.Sleep(20 * time.Millisecond)
		}
	})

	t.Run("TypeScript v2 server", func(t *testing.T) {
		if !withTS {
			tsServer(t) // skips, saying why
		}
		if got := run(t, find(t, m, "mcp_ts_echo"), map[string]any{"message": "hi"}); got.Output != "ts echo: hi" {
			t.Errorf("echo = %+v", got)
		}
		a := &asked{answers: []dialog.Answer{{Chosen: []string{"production"}}}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := callWith(ctx, t, find(t, m, "mcp_ts_deploy"), nil, tools.CallInfo{Ask: a.ask})
		if err != nil || res.Output != "ts deployed to production" || len(a.questions) != 1 {
			t.Fatalf("deploy = %+v, %v; asked %+v", res, err, a.questions)
		}
	})

	t.Run("a wrong iss refused with a sentence", func(t *testing.T) {
		srv := mcptest.NewOAuth(t)
		srv.SendIss("https://posing.example")
		file := filepath.Join(t.TempDir(), oauth.FileName)
		browse := func(_, authURL string) { go func() { _ = mcptest.Browse(authURL) }() }
		m, _ := startedWith(t, Config{Servers: map[string]settings.MCPServer{"secure": {HTTPURL: srv.URL, OAuth: &settings.MCPOAuth{Enabled: true}}}, TokenFile: file, ShowAuthURL: browse})
		st := m.Servers()[0]
		want := `the sign-in was refused: its answer came from the authorization server "https://posing.example", not from ` + srv.Issuer + ` where it was started, so another server may be posing as it (RFC 9207); its code was not used`
		if st.State != StateUnauthenticated || !strings.Contains(st.Error, want) {
			t.Fatalf("status: %+v\nwant the error to say: %s", st, want)
		}
		if c := srv.Counts(); c.CodeGrants != 0 {
			t.Errorf("the code was exchanged: %+v", c)
		}
		if _, err := os.Stat(file); err == nil {
			t.Error("a token was stored")
		}
		// The right iss signs in, and the issuer is kept with the token.
		srv.SendIss(srv.Issuer)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := m.Authenticate(ctx, "secure"); err != nil {
			t.Fatal(err)
		}
		var creds []oauth.Credentials
		data, _ := os.ReadFile(file)
		if err := json.Unmarshal(data, &creds); err != nil || len(creds) != 1 || creds[0].Issuer != srv.Issuer {
			t.Errorf("stored: %s (%v)", data, err)
		}
		// From a discovered issuer, an answer without an iss is refused
		// too, as Gemini CLI 0.61 refuses it.
		srv.SendIss("")
		if err := m.Authenticate(ctx, "secure"); err == nil || !strings.Contains(err.Error(), "named no issuer (RFC 9207), so it may not be its own; its code was not used") {
			t.Errorf("without an iss: %v", err)
		}
	})
}
