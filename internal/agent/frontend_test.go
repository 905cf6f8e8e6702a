package agent_test

// What front ends read of a session (History, Info, the model and the
// approval mode) and ask of it (Compress), as the ACP front end's session
// replay and slash commands use them.

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

func TestModelAndApprovalModeAsSet(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	a, _ := newAgent(t, srv, agent.Config{Model: "gemini-2.5-pro", ApprovalMode: dialog.ApprovalAutoEdit})
	if a.Model() != "gemini-2.5-pro" || a.ApprovalMode() != dialog.ApprovalAutoEdit {
		t.Fatalf("Model, ApprovalMode = %s, %s", a.Model(), a.ApprovalMode())
	}
	a.SetModel("gemini-2.5-flash")
	a.SetApprovalMode(dialog.ApprovalYolo)
	if a.Model() != "gemini-2.5-flash" || a.ApprovalMode() != dialog.ApprovalYolo {
		t.Errorf("after the changes: Model, ApprovalMode = %s, %s", a.Model(), a.ApprovalMode())
	}
}

// History has one user content per prompt, the calls and their
// responses; Info counts the prompts and tokens.
func TestHistoryAndInfo(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": "a.go"})),
		geminitest.TextTurn("It is a Go file."),
		geminitest.TextTurn("Second answer."))
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	s := a.NewSession()
	prompt(t, s, "What is a.go?")
	prompt(t, s, "And then?")
	h, err := s.History()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range h {
		got = append(got, describe(c))
	}
	want := []string{
		`user [{"text":"What is a.go?"}]`,
		`model [{"functionCall":{"id":"call_1","args":{"path":"a.go"},"name":"read_file"}}]`,
		`user [{"functionResponse":{"id":"call_1","name":"read_file","response":{"output":"contents of a.go"}}}]`,
		`model [{"text":"It is a Go file."}]`,
		`user [{"text":"And then?"}]`,
		`model [{"text":"Second answer."}]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("History:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if agent.CompressedPrefix(h) != 0 {
		t.Error("an uncompressed history has a compressed prefix")
	}
	info := s.Info()
	if info.ID != s.ID() || info.Prompts != 2 || info.Title != "What is a.go?" || info.Usage.TotalTokens == 0 || !info.Live {
		t.Errorf("Info = %+v", info)
	}
}

// While a prompt runs, the history is the prompt's: History and Compress
// wait for it to end (a Compress given up on meanwhile changes nothing).
func TestHistoryAndCompressOfABusySession(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.Turn{Hang: true})
	a, _ := newAgent(t, srv, agent.Config{})
	s := a.NewSession()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		promptCtx(ctx, s, "hang")
	}()
	if _, err := srv.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	gaveUp, stop := context.WithCancel(context.Background())
	stop()
	if _, err := s.Compress(gaveUp); !errors.Is(err, context.Canceled) {
		t.Errorf("Compress given up on while a prompt runs: %v, want it to have waited", err)
	}
	history := make(chan int, 1)
	go func() {
		h, _ := s.History()
		history <- len(h)
	}()
	cancel()
	<-done
	if n := <-history; n == 0 {
		t.Error("History, waiting for the prompt, read no history")
	}
}

// Compress summarises now, under the threshold, and the compressed
// session is what a restart resumes.
func TestCompressNow(t *testing.T) {
	store := newStore(t)
	turns := append(conversation(),
		geminitest.TextTurn(snapshot), // the summary
		geminitest.TextTurn("fourth answer"))
	srv := checked(geminitest.NewTestServer(t, turns...))
	// A window so large that nothing would compress by itself.
	a, _ := newAgent(t, srv, agent.Config{Store: store})
	s := a.NewSession()
	converse(t, s)
	info, err := s.Compress(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.Before != 600 || info.After == 0 || info.After >= info.Before {
		t.Errorf("Compress = %+v", info)
	}
	h, _ := s.History()
	if agent.CompressedPrefix(h) != 2 || h[0].Parts[0].Text != snapshot {
		t.Fatalf("history after Compress: %q", texts(h))
	}
	equalTexts(t, "kept history", h[2:], "user: "+midPrompt, "model: "+midAnswer, "user: "+shortPrompt, "model: "+shortAnswer)

	// A new agent over the same store resumes the compressed history, and
	// the transcript still has every exchange.
	b, _ := newAgent(t, srv, agent.Config{Store: store})
	resumed, err := b.Session(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	rh, _ := resumed.History()
	if len(rh) != len(h) || agent.CompressedPrefix(rh) != 2 {
		t.Errorf("resumed history: %q", texts(rh))
	}
	_, exchanges, err := b.Transcript(context.Background(), s.ID())
	if err != nil || len(exchanges) != 3 {
		t.Errorf("transcript: %+v, %v", exchanges, err)
	}
	prompt(t, resumed, "fourth")
	last := srv.Requests()[len(srv.Requests())-1]
	if last.Contents[0].Parts[0].Text != snapshot {
		t.Errorf("the resumed request starts with %q", last.Contents[0].Parts[0].Text)
	}
}

func TestCompressNothing(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	a, _ := newAgent(t, srv, agent.Config{})
	if _, err := a.NewSession().Compress(context.Background()); !errors.Is(err, agent.ErrNothingToCompress) {
		t.Errorf("Compress of an empty session: %v", err)
	}
}

func TestCompressedPrefix(t *testing.T) {
	user := genai.NewContentFromText("<state_snapshot/>", genai.RoleUser)
	ack := genai.NewContentFromText("Got it. Thanks for the additional context!", genai.RoleModel)
	other := genai.NewContentFromText("Got it.", genai.RoleModel)
	for _, c := range []struct {
		h    []*genai.Content
		want int
	}{
		{nil, 0},
		{[]*genai.Content{user}, 0},
		{[]*genai.Content{user, ack}, 2},
		{[]*genai.Content{user, other}, 0},
		{[]*genai.Content{ack, user}, 0},
	} {
		if got := agent.CompressedPrefix(c.h); got != c.want {
			t.Errorf("CompressedPrefix(%q) = %d, want %d", texts(c.h), got, c.want)
		}
	}
}
