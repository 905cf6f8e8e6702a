package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// patience bounds a wait for something that must happen: generous, as
// the machine is shared; only a broken scheduler reaches it.
const patience = 10 * time.Second

// barrier lets n goroutines through once all n are in it; all reports
// false for one that waited patience in vain.
type barrier struct {
	n    int
	in   atomic.Int32
	full chan struct{}
	once sync.Once
}

func newBarrier(n int) *barrier { return &barrier{n: n, full: make(chan struct{})} }

func (b *barrier) all() bool {
	if int(b.in.Add(1)) == b.n {
		b.once.Do(func() { close(b.full) })
	}
	select {
	case <-b.full:
		return true
	case <-time.After(patience):
		return false
	}
}

// gatedTool is a read-only tool whose calls run exec with the call's path.
func gatedTool(name string, exec func(ctx context.Context, path string) (tools.Result, error)) fakeTool {
	return fakeTool{name: name, build: func(args map[string]any) (tools.Call, error) {
		path, _ := args["path"].(string)
		return fakeCall{title: name + " " + path, kind: dialog.KindRead, exec: func(ctx context.Context) (tools.Result, error) {
			return exec(ctx, path)
		}}, nil
	}}
}

// Four read-only calls of one answer are all running at once, and their
// results go back in the order of the calls.
func TestCallsOfOneAnswerRunAtOnce(t *testing.T) {
	b := newBarrier(4)
	slow := gatedTool("slow_read", func(_ context.Context, path string) (tools.Result, error) {
		if !b.all() {
			return tools.Result{}, fmt.Errorf("%s ran alone: the calls did not run at once", path)
		}
		return tools.Result{Output: "read " + path}, nil
	})
	var calls []geminitest.Chunk
	for _, p := range []string{"a", "b", "c", "d"} {
		calls = append(calls, geminitest.Chunk{Call: geminitest.Call("slow_read", map[string]any{"path": p})})
	}
	srv := geminitest.NewTestServer(t, geminitest.Turn{Chunks: calls}, geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(slow)})
	res, _ := prompt(t, a.NewSession(), "read")
	if res.ToolCalls != 4 {
		t.Fatalf("result = %+v", res)
	}
	fr := responses(t, srv.Requests()[1])
	for i, p := range []string{"a", "b", "c", "d"} {
		if fr[i].Response["output"] != "read "+p {
			t.Errorf("response %d = %v, want read %s", i, fr[i].Response, p)
		}
	}
}

// A call with wait_for_previous starts only once the calls before it
// ended.
func TestWaitForPreviousOrdersACall(t *testing.T) {
	laterStarted := make(chan struct{})
	var firstEnded atomic.Bool
	first := gatedTool("first", func(context.Context, string) (tools.Result, error) {
		defer firstEnded.Store(true)
		select {
		case <-laterStarted:
			return tools.Result{}, fmt.Errorf("the waiting call started while this one ran")
		case <-time.After(300 * time.Millisecond):
		}
		return tools.Result{Output: "first"}, nil
	})
	later := gatedTool("later", func(context.Context, string) (tools.Result, error) {
		close(laterStarted)
		return tools.Result{Output: fmt.Sprintf("first ended: %v", firstEnded.Load())}, nil
	})
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(
		geminitest.Call("first", nil),
		geminitest.Call("later", map[string]any{"wait_for_previous": true}),
	), geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(first, later)})
	prompt(t, a.NewSession(), "go")
	fr := responses(t, srv.Requests()[1])
	if fr[0].Response["output"] != "first" || fr[1].Response["output"] != "first ended: true" {
		t.Errorf("responses = %s", toJSON(fr))
	}
}

// Two replaces of one file in one answer land in order, the second on
// what the first left.
func TestTwoReplacesOfOneFileLandInOrder(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "a.txt")
	if err := os.WriteFile(file, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(
		geminitest.Call("replace", map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "two"}),
		geminitest.Call("replace", map[string]any{"file_path": "a.txt", "old_string": "two", "new_string": "three"}),
	), geminitest.TextTurn("ok"))
	ui := front{lander: &diskLander{}}
	a, _ := newAgent(t, srv, agent.Config{
		Tools:     tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws})...),
		Workspace: ws, ApprovalMode: dialog.ApprovalAutoEdit})
	ui.prompt(t, a.NewSession(), "edit")
	got, err := os.ReadFile(file)
	if err != nil || string(got) != "three\n" {
		t.Errorf("file = %q (%v), want three: %s", got, err, toJSON(responses(t, srv.Requests()[1])))
	}
}

// A read-only call runs while another call's question waits for the
// user.
func TestReadOnlyCallDoesNotWaitOnAQuestion(t *testing.T) {
	read := make(chan struct{})
	reader := gatedTool("read_file", func(context.Context, string) (tools.Result, error) {
		close(read)
		return tools.Result{Output: "read"}, nil
	})
	sh := &shellTool{}
	conf := &confirmer{answer: func(ctx context.Context, _ dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
		select { // the user answers once the read is done
		case <-read:
			return dialog.ProceedOnce, nil
		case <-time.After(patience):
			return dialog.Cancel, nil
		}
	}}
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(
		geminitest.Call("run_shell_command", map[string]any{"command": "make"}),
		geminitest.Call("read_file", map[string]any{"path": "a"}),
	), geminitest.TextTurn("ok"))
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool(), reader)})
	ui.prompt(t, a.NewSession(), "go")
	if got := sh.commands(); len(got) != 1 {
		t.Errorf("ran %q: the question waited for the read, which waited for it", got)
	}
}

// overlapWatch is a Confirmer that allows every call, holding each
// question open a while; overlap counts the questions put while another
// was open.
func overlapWatch() (*confirmer, chan struct{}) {
	var asking atomic.Int32
	overlap := make(chan struct{}, 8)
	conf := &confirmer{answer: func(context.Context, dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
		if asking.Add(1) > 1 {
			overlap <- struct{}{}
		}
		defer asking.Add(-1)
		select { // a question asked meanwhile would show here
		case <-overlap:
			overlap <- struct{}{}
		case <-time.After(100 * time.Millisecond):
		}
		return dialog.ProceedOnce, nil
	}}
	return conf, overlap
}

// The questions of calls running at once reach the front end one at a
// time, in call order.
func TestQuestionsReachTheFrontEndOneAtATime(t *testing.T) {
	conf, overlap := overlapWatch()
	sh := &shellTool{}
	srv := geminitest.NewTestServer(t, shellTurn("make a", "make b", "make c"), geminitest.TextTurn("ok"))
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool())})
	ui.prompt(t, a.NewSession(), "go")
	if len(overlap) > 0 {
		t.Errorf("%d questions were put while another was open", len(overlap))
	}
	var asked []string
	for _, r := range conf.asked() {
		asked = append(asked, r.Details)
	}
	if fmt.Sprint(asked) != "[make a make b make c]" {
		t.Errorf("asked %q, want in call order", asked)
	}
}

// Cancelling the turn while its calls run stops every one of them: each
// has returned by the time Prompt does, answered as cancelled.
func TestCancelStopsEveryRunningCall(t *testing.T) {
	b := newBarrier(3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var running atomic.Int32
	block := gatedTool("block", func(ctx context.Context, path string) (tools.Result, error) {
		running.Add(1)
		defer running.Add(-1)
		if !b.all() {
			t.Errorf("%s ran alone: the calls did not run at once", path)
		}
		cancel()
		<-ctx.Done()
		return tools.Result{}, ctx.Err()
	})
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(
		geminitest.Call("block", map[string]any{"path": "a"}),
		geminitest.Call("block", map[string]any{"path": "b"}),
		geminitest.Call("block", map[string]any{"path": "c"}),
	), geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(block)})
	s := a.NewSession()
	res, evs := promptCtx(ctx, s, "go")
	if res.StopReason != dialog.StopCancelled {
		t.Fatalf("result = %+v", res)
	}
	if n := running.Load(); n != 0 {
		t.Errorf("%d calls still running after the turn ended", n)
	}
	results := only[dialog.ToolResultEvent](evs)
	if len(results) != 3 {
		t.Fatalf("results = %+v", results)
	}
	for _, r := range results {
		if r.Result.Status != dialog.StatusCancelled {
			t.Errorf("result = %+v, want cancelled", r.Result)
		}
	}
	prompt(t, s, "next")
	fr := srv.Requests()[1].Contents[2].Parts
	for i, p := range fr {
		if p.FunctionResponse == nil || p.FunctionResponse.Response["error"] != "The user cancelled the operation while this call was running." {
			t.Errorf("response %d = %s", i, toJSON(p))
		}
	}
	if len(fr) != 3 {
		t.Errorf("%d responses, want 3", len(fr))
	}
}

// An update_topic call runs first and alone, as Gemini CLI 0.61 runs it
// (_startBatch sorts it to the front; _isParallelizable never lets it
// share a batch): it has ended before the reads of its answer start, they
// still run at once, and its result goes back first.
func TestUpdateTopicRunsFirstAndAlone(t *testing.T) {
	var mu sync.Mutex
	var log []string
	record := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		log = append(log, s)
	}
	b := newBarrier(2)
	read := gatedTool("slow_read", func(_ context.Context, path string) (tools.Result, error) {
		record("start " + path)
		if !b.all() {
			return tools.Result{}, fmt.Errorf("%s ran alone: the reads did not run at once", path)
		}
		return tools.Result{Output: "read " + path}, nil
	})
	topic := gatedTool(tools.UpdateTopicName, func(context.Context, string) (tools.Result, error) {
		record("start topic")
		time.Sleep(50 * time.Millisecond) // a read running beside it would start meanwhile
		record("end topic")
		return tools.Result{Output: "topic set"}, nil
	})
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(
		geminitest.Call("slow_read", map[string]any{"path": "a"}),
		geminitest.Call(tools.UpdateTopicName, nil),
		geminitest.Call("slow_read", map[string]any{"path": "b"}),
	), geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(read, topic)})
	prompt(t, a.NewSession(), "go")
	mu.Lock()
	defer mu.Unlock()
	if len(log) != 4 || log[0] != "start topic" || log[1] != "end topic" {
		t.Errorf("ran %v, want the topic started and ended before either read", log)
	}
	fr := responses(t, srv.Requests()[1])
	if len(fr) != 3 || fr[0].Name != tools.UpdateTopicName || fr[1].Response["output"] != "read a" || fr[2].Response["output"] != "read b" {
		t.Errorf("responses = %s, want update_topic's, then a's, then b's", toJSON(fr))
	}
}

// When the user declines a call, the calls of the later batches of its
// answer are cancelled unasked and unrun, as Gemini CLI 0.61 cancels
// the calls still queued (cancelAllQueued); the declined call's own batch
// runs on, and a later call refused as built keeps its error.
func TestADeclinedCallCancelsTheLaterBatches(t *testing.T) {
	var readMu sync.Mutex
	var readPaths []string
	reader := gatedTool("read_file", func(_ context.Context, path string) (tools.Result, error) {
		readMu.Lock()
		defer readMu.Unlock()
		readPaths = append(readPaths, path)
		return tools.Result{Output: "read " + path}, nil
	})
	sh := &shellTool{}
	conf := &confirmer{answer: func(context.Context, dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
		return dialog.Cancel, nil
	}}
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(
		geminitest.Call("run_shell_command", map[string]any{"command": "make a"}),
		geminitest.Call("read_file", map[string]any{"path": "a"}),
		geminitest.Call("run_shell_command", map[string]any{"command": "make b", "wait_for_previous": true}),
		geminitest.Call("read_file", map[string]any{"path": "c"}),
		geminitest.Call("no_such_tool", nil),
	), geminitest.TextTurn("ok"))
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool(), reader)})
	_, evs := ui.prompt(t, a.NewSession(), "go")
	if asked := conf.asked(); len(asked) != 1 || asked[0].Details != "make a" {
		t.Errorf("asked %+v, want only about make a", asked)
	}
	if got := sh.commands(); len(got) != 0 {
		t.Errorf("ran %q", got)
	}
	if fmt.Sprint(readPaths) != "[a]" {
		t.Errorf("read %v, want only a, of the declined call's batch", readPaths)
	}
	fr := responses(t, srv.Requests()[1])
	cancelled := map[string]any{"error": "The user declined an earlier call of this answer, so this call was cancelled before it ran."}
	if len(fr) != 5 ||
		fr[0].Response["error"] != "The user declined to run this command." ||
		fr[1].Response["output"] != "read a" ||
		fmt.Sprint(fr[2].Response) != fmt.Sprint(cancelled) ||
		fmt.Sprint(fr[3].Response) != fmt.Sprint(cancelled) ||
		!strings.Contains(fmt.Sprint(fr[4].Response["error"]), "no_such_tool") {
		t.Errorf("responses = %s", toJSON(fr))
	}
	var statuses []string
	for _, ev := range only[dialog.ToolResultEvent](evs) {
		statuses = append(statuses, ev.Result.CallID+":"+string(ev.Result.Status))
	}
	slices.Sort(statuses)
	if want := []string{"call_1:rejected", "call_2:ok", "call_3:cancelled", "call_4:cancelled", "call_5:error"}; !slices.Equal(statuses, want) {
		t.Errorf("the front end was told %v, want %v", statuses, want)
	}
}

// An edit the user declines as it is shown cancels the later calls of its
// answer, as Gemini CLI 0.61's scheduler cancels the queued calls on any
// confirmation answered with no, an edit's too (cancelAllQueued); an edit
// the front end refused with nobody to ask (dialog.Refused, a headless
// run's) is no user's no, and the later calls run.
func TestADeclinedEditCancelsTheLaterCallsARefusedOneDoesNot(t *testing.T) {
	for _, c := range []struct {
		outcome dialog.Outcome
		ran     bool
		later   string
	}{
		{dialog.Declined, false, "The user declined an earlier call of this answer, so this call was cancelled before it ran."},
		{dialog.Refused, true, ""},
	} {
		t.Run(string(c.outcome), func(t *testing.T) {
			var read atomic.Bool
			reader := gatedTool("read_file", func(context.Context, string) (tools.Result, error) {
				read.Store(true)
				return tools.Result{Output: "read"}, nil
			})
			lander := landerFunc(func(_ context.Context, req dialog.LandRequest) (dialog.Landing, error) {
				if !req.Ask {
					t.Errorf("landed %+v unasked", req)
				}
				return dialog.Landing{Decision: dialog.Decision{Outcome: c.outcome, Reason: "no"}}, nil
			})
			srv := geminitest.NewTestServer(t, geminitest.CallTurn(
				geminitest.Call(tools.ReplaceName, map[string]any{"text": "no\n"}),
				geminitest.Call("read_file", map[string]any{"path": "a"}),
			), geminitest.TextTurn("ok"))
			ui := front{lander: lander}
			a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(editTool(), reader)})
			ui.prompt(t, a.NewSession(), "go")
			fr := responses(t, srv.Requests()[1])
			if read.Load() != c.ran || len(fr) != 2 || fr[0].Response["error"] != "This change was not applied: no. The file was not modified." {
				t.Fatalf("read: %v, want %v; responses = %s", read.Load(), c.ran, toJSON(fr))
			}
			if got, _ := fr[1].Response["error"].(string); got != c.later {
				t.Errorf("the later call answered %s, want error %q", toJSON(fr[1]), c.later)
			}
		})
	}
}

// A tool no list in gemini-ls names runs alone when it says so
// (Annotations.RunsAlone), or when it edits files: the call before it
// has ended when it starts, and the calls after it start once it has
// ended, still at once among themselves. The scheduler reads it from
// the tool, so a tool added needs nothing of internal/agent/schedule.go.
func TestAToolThatSaysItRunsAloneRunsAlone(t *testing.T) {
	for name, a := range map[string]tools.Annotations{"runs alone": {RunsAlone: true}, "edits files": {EditsFiles: true}} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var log []string
			record := func(s string) {
				mu.Lock()
				defer mu.Unlock()
				log = append(log, s)
			}
			b := newBarrier(2)
			read := gatedTool("slow_read", func(_ context.Context, path string) (tools.Result, error) {
				record("start " + path)
				if path != "a" && !b.all() {
					return tools.Result{}, fmt.Errorf("%s ran alone: the reads after the lone call did not run at once", path)
				}
				time.Sleep(20 * time.Millisecond) // a call running beside it would start meanwhile
				record("end " + path)
				return tools.Result{Output: "read " + path}, nil
			})
			alone := annotatedTool{fakeTool: gatedTool("probe_alone", func(context.Context, string) (tools.Result, error) {
				record("start alone")
				time.Sleep(50 * time.Millisecond) // a call running beside it would start meanwhile
				record("end alone")
				return tools.Result{Output: "alone"}, nil
			}), annotations: a}
			srv := geminitest.NewTestServer(t, geminitest.CallTurn(
				geminitest.Call("slow_read", map[string]any{"path": "a"}),
				geminitest.Call("probe_alone", nil),
				geminitest.Call("slow_read", map[string]any{"path": "b"}),
				geminitest.Call("slow_read", map[string]any{"path": "c"}),
			), geminitest.TextTurn("ok"))
			ag, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(read, alone)})
			prompt(t, ag.NewSession(), "go")
			mu.Lock()
			defer mu.Unlock()
			if len(log) != 8 || strings.Join(log[:4], ", ") != "start a, end a, start alone, end alone" {
				t.Errorf("ran %v, want a, then the lone call, each ended before the next started, then b and c", log)
			}
			fr := responses(t, srv.Requests()[1])
			if len(fr) != 4 || fr[1].Response["output"] != "alone" || fr[2].Response["output"] != "read b" || fr[3].Response["output"] != "read c" {
				t.Errorf("responses = %s", toJSON(fr))
			}
		})
	}
}

// A tool that narrates the main agent's work (Annotations.Narrates) has
// its calls run first in their answer, as update_topic's: the scheduler
// reads it from the tool, not from its name.
func TestANarratingToolRunsFirst(t *testing.T) {
	var mu sync.Mutex
	var log []string
	record := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		log = append(log, s)
	}
	read := gatedTool("slow_read", func(_ context.Context, path string) (tools.Result, error) {
		record("read " + path)
		return tools.Result{Output: "read " + path}, nil
	})
	narrate := annotatedTool{fakeTool: gatedTool("probe_narrate", func(context.Context, string) (tools.Result, error) {
		record("narrate")
		return tools.Result{Output: "narrated"}, nil
	}), annotations: tools.Annotations{Narrates: true, RunsAlone: true}}
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(
		geminitest.Call("slow_read", map[string]any{"path": "a"}),
		geminitest.Call("probe_narrate", nil),
	), geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(read, narrate)})
	prompt(t, a.NewSession(), "go")
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(log, ", ") != "narrate, read a" {
		t.Errorf("ran %v, want the narration first", log)
	}
	if fr := responses(t, srv.Requests()[1]); len(fr) != 2 || fr[0].Name != "probe_narrate" {
		t.Errorf("responses = %s, want the narration's first", toJSON(fr))
	}
}
