package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/internal/codeintel/langclient"
	"github.com/gemini-ls/gemini-ls/internal/codeintel/langclient/langservertest"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// codeModule is a Go module where calc.Scale, defined in one package, is
// called from 20 places over five files of another: its references are
// 21 places (the declaration included) in six files.
func codeModule() map[string]string {
	files := map[string]string{
		"go.mod": "module example.com/bench\n\ngo 1.22\n",
		"calc/calc.go": `package calc

// Scale multiplies x by n: the function every caller in package app names.
func Scale(x, n int) int {
	return x * n
}
`,
	}
	for f := 1; f <= 5; f++ {
		var sb strings.Builder
		fmt.Fprintf(&sb, "package app\n\nimport \"example.com/bench/calc\"\n")
		for c := 1; c <= 4; c++ {
			fmt.Fprintf(&sb, "\n// F%d%d scales x by %d.\nfunc F%d%d(x int) int {\n\treturn calc.Scale(x, %d) + %d\n}\n", f, c, c, f, c, c, f)
		}
		files[fmt.Sprintf("app/f%d.go", f)] = sb.String()
	}
	return files
}

// codeIntelCase is one question, asked of gopls directly and through
// navigate_code.
type codeIntelCase struct {
	op     string // navigate_code's operation
	method string // the LSP request
	file   string // relative to the module
	line   int    // 1-based
	symbol string
	// head is how navigate_code's answer starts.
	head string
}

var codeIntelCases = []codeIntelCase{
	{"references", "textDocument/references", "calc/calc.go", 4, "Scale", "21 references to Scale (from gopls):"},
	{"definition", "textDocument/definition", "app/f3.go", 7, "Scale", "1 definition of Scale (from gopls):"},
	{"hover", "textDocument/hover", "app/f3.go", 7, "Scale", "Scale (from gopls):"},
}

// BenchmarkCodeIntelOverhead is what gemini-ls adds to a language
// server's own answer (issue 58's goal: p50 ≤ 2 ms): each iteration asks
// the same question of two gopls processes over the same module, in turn
// (which goes first alternates), so that both meet the same load.
//
//   - gopls: a minimal LSP client in this process (rawEditor) sends the
//     request to its own gopls and receives the answer: request written →
//     answer read and handed to the caller, not decoded.
//   - tool: navigate_code's Build and Execute over a langclient.Manager
//     with its own gopls, as the agent runs a call: the file read as
//     read_file reads it, the symbol found on its line, the request sent
//     (the document already open, unchanged, so no didChange), the answer
//     decoded, each place checked against the ignore rules and its line
//     read from disk, the listing formatted.
//
// Both servers have the files asked about open and have answered a
// references request in full before timing starts.
//
// Metrics per operation: gopls-* and tool-* (median, p90, max);
// overhead-p50-ms, tool's median minus gopls's; overhead-paired-median-ms
// and -p90-ms, of the per-iteration differences; answer-bytes, the size
// of gopls's result.
func BenchmarkCodeIntelOverhead(b *testing.B) {
	gopls := langservertest.Find(b, "gopls")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	root := tempRoot(b)
	writeFiles(b, root, codeModule())

	direct := startRawGopls(ctx, b, gopls, root)
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		b.Fatal(err)
	}
	manager := langclient.New(ws, nil, nil, nil)
	b.Cleanup(func() {
		if err := manager.Close(context.Background()); err != nil {
			b.Errorf("closing the language servers: %v", err)
		}
	})
	navigate, ok := tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws, CodeIntel: manager})...).Get(tools.NavigateCodeName)
	if !ok {
		b.Fatal("navigate_code is not registered")
	}

	// Both servers loaded and answering in full.
	refs := codeIntelCases[0]
	if err := direct.ready(ctx, root, refs, 21); err != nil {
		b.Fatal(err)
	}
	if _, err := askTool(ctx, navigate, root, refs); err != nil {
		b.Fatal(err)
	}

	for _, c := range codeIntelCases {
		b.Run("op="+c.op, func(b *testing.B) {
			benchmarkCodeIntel(ctx, b, direct, navigate, root, c)
		})
	}
}

func benchmarkCodeIntel(ctx context.Context, b *testing.B, direct *rawGopls, navigate tools.Tool, root string, c codeIntelCase) {
	var answerBytes int
	askDirect := func() (time.Duration, error) {
		d, raw, err := direct.ask(ctx, root, c)
		if err == nil && (len(raw) < 10 || string(raw) == "null") {
			err = fmt.Errorf("gopls answered %s with %s", c.method, raw)
		}
		answerBytes = len(raw)
		return d, err
	}
	ask := func(n int) (viaGopls, viaTool time.Duration, err error) {
		if n%2 == 0 {
			if viaGopls, err = askDirect(); err == nil {
				viaTool, err = askTool(ctx, navigate, root, c)
			}
		} else {
			if viaTool, err = askTool(ctx, navigate, root, c); err == nil {
				viaGopls, err = askDirect()
			}
		}
		return viaGopls, viaTool, err
	}
	for n := range 5 { // warm both paths for this request
		if _, _, err := ask(n); err != nil {
			b.Fatal(err)
		}
	}
	var viaGopls, viaTool, diff []time.Duration
	n := 0
	for b.Loop() {
		g, t, err := ask(n)
		if err != nil {
			b.Fatal(err)
		}
		n++
		viaGopls = append(viaGopls, g)
		viaTool = append(viaTool, t)
		diff = append(diff, t-g)
	}
	dg, dt, dd := distributionOf(viaGopls), distributionOf(viaTool), distributionOf(diff)
	reportMS(b, "gopls", dg)
	reportMS(b, "tool", dt)
	b.ReportMetric(ms(dt.median()-dg.median()), "overhead-p50-ms")
	b.ReportMetric(ms(dd.median()), "overhead-paired-median-ms")
	b.ReportMetric(ms(dd.quantile(0.9)), "overhead-paired-p90-ms")
	b.ReportMetric(float64(answerBytes), "answer-bytes")
}

// askTool runs navigate_code's call for c, as the agent runs a call
// (Build, then Execute), and checks its answer.
func askTool(ctx context.Context, navigate tools.Tool, root string, c codeIntelCase) (time.Duration, error) {
	args := map[string]any{"operation": c.op, "file_path": c.file, "line": c.line, "symbol": c.symbol}
	start := time.Now()
	call, err := navigate.Build(args)
	if err != nil {
		return 0, fmt.Errorf("navigate_code %s: %w", c.op, err)
	}
	res, err := call.Execute(ctx, tools.CallInfo{})
	d := time.Since(start)
	switch {
	case err != nil:
		return 0, fmt.Errorf("navigate_code %s: %w", c.op, err)
	case res.Error != "":
		return 0, fmt.Errorf("navigate_code %s failed: %s", c.op, res.Error)
	case !strings.HasPrefix(res.Output, c.head):
		return 0, fmt.Errorf("navigate_code %s answered %.300q, want it to start %q", c.op, res.Output, c.head)
	}
	return d, nil
}

// rawGopls is a gopls process spoken to by rawEditor, with no layer of
// gemini-ls's between.
type rawGopls struct {
	*rawEditor
	cmd *exec.Cmd
}

// startRawGopls starts gopls in root, initializes it as langclient does
// (the same capabilities, workspace/configuration answered with the
// defaults) and opens the files the cases ask about.
func startRawGopls(ctx context.Context, b *testing.B, path, root string) *rawGopls {
	b.Helper()
	cmd := exec.CommandContext(ctx, path)
	cmd.Dir = root
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		b.Fatalf("starting gopls: %v", err)
	}
	e := &rawEditor{w: stdin, waiting: map[int64]chan reply{}, onRequest: func(method string, params json.RawMessage) any {
		if method != "workspace/configuration" {
			return nil
		}
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(params, &p)
		return make([]any, len(p.Items)) // every section at its default
	}}
	go e.read(stdout)
	g := &rawGopls{rawEditor: e, cmd: cmd}
	b.Cleanup(func() {
		stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := g.shutdown(stop); err != nil {
			b.Logf("gopls shutdown: %v", err)
		}
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})

	rootURI := string(uri.File(root))
	params := map[string]any{
		"processId":        os.Getpid(),
		"clientInfo":       map[string]any{"name": "bench raw client"},
		"rootUri":          rootURI,
		"rootPath":         root,
		"workspaceFolders": []any{map[string]any{"uri": rootURI, "name": filepath.Base(root)}},
		"capabilities":     langclient.ClientCapabilities(),
	}
	if err := e.call(ctx, "initialize", params, nil); err != nil {
		b.Fatalf("gopls: %v", err)
	}
	if _, err := e.notify("initialized", map[string]any{}); err != nil {
		b.Fatal(err)
	}
	opened := map[string]bool{}
	for _, c := range codeIntelCases {
		if opened[c.file] {
			continue
		}
		opened[c.file] = true
		text, err := os.ReadFile(filepath.Join(root, c.file))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.notify("textDocument/didOpen", map[string]any{
			"textDocument": map[string]any{"uri": uri.File(filepath.Join(root, c.file)), "languageId": "go", "version": 1, "text": string(text)},
		}); err != nil {
			b.Fatal(err)
		}
	}
	return g
}

// params are c's LSP request params: the symbol's position on its line
// (ASCII: bytes are UTF-16 units).
func (c codeIntelCase) params(root string) (map[string]any, error) {
	text, err := os.ReadFile(filepath.Join(root, c.file))
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(text), "\n")
	col := strings.Index(lines[c.line-1], c.symbol)
	if col < 0 {
		return nil, fmt.Errorf("%s is not on line %d of %s", c.symbol, c.line, c.file)
	}
	p := map[string]any{
		"textDocument": map[string]any{"uri": uri.File(filepath.Join(root, c.file))},
		"position":     map[string]any{"line": c.line - 1, "character": col},
	}
	if c.method == "textDocument/references" {
		p["context"] = map[string]any{"includeDeclaration": true}
	}
	return p, nil
}

// ask sends c's request and returns how long its answer took, request
// written to answer handed over, and the answer's result.
func (g *rawGopls) ask(ctx context.Context, root string, c codeIntelCase) (time.Duration, json.RawMessage, error) {
	p, err := c.params(root)
	if err != nil {
		return 0, nil, err
	}
	start := time.Now()
	_, _, ch, err := g.send(c.method, p)
	if err != nil {
		return 0, nil, err
	}
	r, err := wait(ctx, c.method, ch)
	d := time.Since(start)
	if err != nil {
		return 0, nil, err
	}
	if r.Error != nil {
		return 0, nil, fmt.Errorf("%s: %w", c.method, r.Error)
	}
	return d, r.Result, nil
}

// ready waits until gopls answers c (a references request) with want
// locations: the module loaded.
func (g *rawGopls) ready(ctx context.Context, root string, c codeIntelCase, want int) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		_, raw, err := g.ask(ctx, root, c)
		if err != nil {
			return err
		}
		var locs []json.RawMessage
		_ = json.Unmarshal(raw, &locs)
		if len(locs) == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gopls still answers %s with %d locations, want %d", c.method, len(locs), want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
