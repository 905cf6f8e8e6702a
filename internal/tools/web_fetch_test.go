package tools

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/tools/web"
)

func publicSite(t *testing.T, privateURL func() string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Page A</title></head><body><h2>About</h2><p>x < y &amp; "quoted"</p></body></html>`)
	})
	mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "plain B")
	})
	mux.HandleFunc("/to-private", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, privateURL()+"/secret", http.StatusFound)
	})
	mux.HandleFunc("/to-intranet", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://intranet.test/secret", http.StatusFound)
	})
	return mux
}

func newWebFetch(t *testing.T, turns ...geminitest.Turn) (*fakeWeb, *geminitest.Server, *Defined[webFetchParams]) {
	var fw *fakeWeb
	fw = newFakeWeb(t, publicSite(t, func() string { return fw.private.URL }))
	srv, u := newFakeUtility(t, turns...)
	return fw, srv, webFetch(u, web.NewFetcher(fw.opts))
}

func runWebFetch(t *testing.T, tool *Defined[webFetchParams], prompt string) Result {
	t.Helper()
	call, err := tool.Build(map[string]any{"prompt": prompt})
	if err != nil {
		t.Fatal(err)
	}
	res, err := call.Execute(context.Background(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestWebFetchSummarisesWithSources(t *testing.T) {
	_, srv, tool := newWebFetch(t, geminitest.TextTurn("A is about x; B is plain."))
	res := runWebFetch(t, tool, "Summarize http://public.test/a and http://PUBLIC.test:80/b/ please")
	want := "<untrusted_context>\nA is about x; B is plain.\n\nSources:\n[1] Page A (http://public.test/a)\n[2] Untitled (http://public.test/b)\n</untrusted_context>"
	if res.Output != want || res.Error != "" {
		t.Errorf("Output =\n%s\nwant\n%s\n(error %q)", res.Output, want, res.Error)
	}
	if res.Display != "Content processed from 2 of 2 URL(s)." {
		t.Errorf("Display = %q", res.Display)
	}
	got := requestText(srv.Requests()[0])
	for _, part := range []string{
		"<user_instructions>\nSummarize http://public.test/a and http://PUBLIC.test:80/b/ please\n</user_instructions>",
		// The converter writes "<" as "&lt;"; the prompt escapes its "&".
		"<source url=\"http://public.test/a\">\n## About\n\nx &amp;lt; y &amp; &quot;quoted&quot;\n</source>\n<source url=\"http://public.test/b\">\nplain B\n</source>",
		"Do not attempt to access the URL(s) again.",
	} {
		if !strings.Contains(got, part) {
			t.Errorf("summary prompt lacks %q:\n%s", part, got)
		}
	}
	if tools := srv.Requests()[0].Tools; len(tools) != 0 {
		t.Errorf("summary request declared tools %+v", tools)
	}
	// The page was fetched here, as 0.61's fallback does: its alias. The
	// fake utility names the model after it.
	if m := srv.Requests()[0].Model; m != models.WebFetchFallback {
		t.Errorf("the summary was asked as %q, want 0.61's %q", m, models.WebFetchFallback)
	}
}

func TestWebFetchRefusesPrivateAddresses(t *testing.T) {
	fw, _, tool := newWebFetch(t) // no model turn: a summary request would fail the test
	_, port, _ := net.SplitHostPort(fw.private.Listener.Addr().String())
	targets := []string{
		"http://127.0.0.1:" + port + "/",
		"http://10.1.2.3/",
		"http://169.254.169.254/latest/meta-data",
		"http://[::1]:" + port + "/",
		"http://intranet.test/",
		"http://public.test/to-private",
		"http://public.test/to-intranet",
	}
	res := runWebFetch(t, tool, "Read "+strings.Join(targets, " "))
	if !strings.HasPrefix(res.Error, "All fetch attempts failed: ") {
		t.Fatalf("result = %+v, want every fetch refused", res)
	}
	for _, target := range targets {
		if !strings.Contains(res.Error, target+": access to ") {
			t.Errorf("error does not say %s was refused:\n%s", target, res.Error)
		}
	}
	if got := fw.privateRequests(); len(got) > 0 {
		t.Errorf("requests reached the private server: %q", got)
	}
}

func TestWebFetchSomeRefused(t *testing.T) {
	fw, srv, tool := newWebFetch(t, geminitest.TextTurn("B says plain."))
	res := runWebFetch(t, tool, "Compare http://10.0.0.1/admin with http://public.test/b")
	wantStart := "<untrusted_context>\n[Warning] The following URLs could not be fetched:\nhttp://10.0.0.1/admin: access to 10.0.0.1 is not allowed: it is a private address\n\nB says plain.\n\nSources:\n[1] Untitled (http://public.test/b)"
	if !strings.HasPrefix(res.Output, wantStart) {
		t.Errorf("Output =\n%s\nwant it to start\n%s", res.Output, wantStart)
	}
	if !strings.Contains(res.Display, "Content processed from 1 of 2 URL(s).") || !strings.Contains(res.Display, "http://10.0.0.1/admin: access to 10.0.0.1 is not allowed") {
		t.Errorf("Display = %q", res.Display)
	}
	if got := requestText(srv.Requests()[0]); !strings.Contains(got, "<source url=\"http://10.0.0.1/admin\">\nError: access to 10.0.0.1 is not allowed") {
		t.Errorf("summary prompt does not report the refusal:\n%s", got)
	}
	if got := fw.privateRequests(); len(got) > 0 {
		t.Errorf("requests reached the private server: %q", got)
	}
}

func TestWebFetchBuild(t *testing.T) {
	tool := webFetch(nil, nil)
	for _, tc := range []struct{ prompt, err string }{
		{"  ", "The 'prompt' parameter cannot be empty and must contain URL(s) and instructions."},
		{"summarize example.com", "The 'prompt' must contain at least one valid URL (starting with http:// or https://)."},
		{"get ftp://example.com/x and file:///etc/passwd", "Error(s) in prompt URLs:\n- Unsupported protocol in URL: \"ftp://example.com/x\". Only http and https are supported.\n- Unsupported protocol in URL: \"file:///etc/passwd\". Only http and https are supported."},
		{"see (https://example.com)", "Error(s) in prompt URLs:\n- Malformed URL detected: \"(https://example.com)\"."},
		{"see http://", "Error(s) in prompt URLs:\n- Malformed URL detected: \"http://\"."},
	} {
		if _, err := tool.Build(map[string]any{"prompt": tc.prompt}); err == nil || err.Error() != tc.err {
			t.Errorf("Build(%q) = %v, want %q", tc.prompt, err, tc.err)
		}
	}
	var many []string
	for i := range 21 {
		many = append(many, fmt.Sprintf("https://example.com/%d", i))
	}
	if _, err := tool.Build(map[string]any{"prompt": strings.Join(many, " ")}); err == nil || !strings.Contains(err.Error(), "at most 20") {
		t.Errorf("21 URLs: %v", err)
	}
	if _, err := tool.Build(map[string]any{"prompt": strings.Join(many[:20], " ") + " " + many[0] + "/"}); err != nil {
		t.Errorf("20 URLs, one repeated: %v", err)
	}

	call, err := tool.Build(map[string]any{"prompt": "Explain https://github.com/google/go-cmp/blob/master/cmp/compare.go and HTTPS://Example.COM:443 and https://example.com/ and http://example.com:8080/docs/"})
	if err != nil {
		t.Fatal(err)
	}
	c := call.Confirmation()
	wantURLs := "https://raw.githubusercontent.com/google/go-cmp/master/cmp/compare.go\nhttps://example.com/\nhttp://example.com:8080/docs"
	if c == nil || c.Kind != "fetch" || c.Details != wantURLs {
		t.Fatalf("Confirmation = %+v, want the URLs to fetch:\n%s", c, wantURLs)
	}
	if want := "Fetch " + strings.ReplaceAll(wantURLs, "\n", ", "); c.Subject != want {
		t.Errorf("Subject = %q, want %q", c.Subject, want)
	}
	if strings.Join(c.AllowKeys, " ") != "web_fetch:raw.githubusercontent.com web_fetch:example.com" {
		t.Errorf("AllowKeys = %q, want the hosts", c.AllowKeys)
	}
	if kindOf(tool) != dialog.KindFetch {
		t.Errorf("Kind = %q", kindOf(tool))
	}
}

func TestWebFetchBudget(t *testing.T) {
	long, short := strings.Repeat("é", 300000), "short"
	results := []fetched{{page: web.Page{Text: long}}, {err: fmt.Errorf("x")}, {page: web.Page{Text: short}}}
	budget(results)
	if results[2].page.Text != short {
		t.Errorf("the short page was cut: %q", results[2].page.Text)
	}
	want := strings.Repeat("é", maxFetchedContent-len(short)) + truncationWarning
	if results[0].page.Text != want {
		t.Errorf("long page: %d characters, want %d with the warning", len([]rune(results[0].page.Text)), len([]rune(want)))
	}
}
