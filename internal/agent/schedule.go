package agent

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// The calls of one model answer run as Gemini CLI 0.61's scheduler runs
// them: in batches, one after another, the calls of a batch at once. A
// batch is a run of calls that may go in parallel; a call that may not
// (one of a tool that runs alone, as edits do, or one whose
// wait_for_previous is true) is a batch of its own, so it starts once
// every earlier call has ended, and the later ones start once it has.
// Edits to one file thus land in order, each built on the file the one
// before left. What a tool is, the scheduler asks of the tool itself
// (tools.Annotations), never of a list of names.

// nature is what the tool a call names says it is; none for a tool not
// there.
type nature func(name string) tools.Annotations

// parallel reports whether fc may run alongside its neighbours: not a
// call of a tool that runs alone (tools.Annotations.Alone: 0.61's
// _isParallelizable names its edit tools and update_topic), and not
// asking with wait_for_previous to wait (only a boolean counts).
func (n nature) parallel(fc *genai.FunctionCall) bool {
	if n(fc.Name).Alone() {
		return false
	}
	wait, _ := fc.Args[tools.WaitForPrevious].(bool)
	return !wait
}

// batches splits calls into the runs that go at once, in order: each is
// calls[lo:hi] for one of the returned [lo, hi).
func (n nature) batches(calls []*genai.FunctionCall) [][2]int {
	var out [][2]int
	for lo := 0; lo < len(calls); {
		hi := lo + 1
		if n.parallel(calls[lo]) {
			for hi < len(calls) && n.parallel(calls[hi]) {
				hi++
			}
		}
		out = append(out, [2]int{lo, hi})
		lo = hi
	}
	return out
}

// toolRun is one call of a model answer as it runs.
type toolRun struct {
	fc *genai.FunctionCall
	// index is the call's place in the answer: questions wait in this order.
	index int
	// start is when it started and decision the user's answer about it,
	// for the session's stats.
	start    time.Time
	decision dialog.CallDecision
	// asked is closed once the call is past the questions asked before
	// it runs (or ended): a later call's question waits for it, so they
	// reach the user in call order and each is asked knowing the answers
	// before it ("always allow").
	asked     chan struct{}
	closeOnce sync.Once
	// afterDecline: the user declined a call of an earlier batch, so this
	// one is cancelled, not run.
	afterDecline bool
	// answered: the user answered a question the call put (CallInfo.Ask),
	// so a mode it switches to is theirs (turn.switchMode).
	answered atomic.Bool
	// notFound: the call named no tool the model was told of (lookUp).
	notFound bool
	// hookArgs are the arguments a BeforeTool hook gave the call in place
	// of the model's, nil when none did: it is logged with them, as 0.61
	// logs request.args, which the hook replaced.
	hookArgs map[string]any
	// tail: the call is one an AfterTool hook asked for in the place of
	// a call of the model's (tailcall.go); nil for the model's own.
	tail *tailOf
}

// ranWith are the arguments the call ran with: a BeforeTool hook's, else
// the model's.
func (run *toolRun) ranWith() map[string]any {
	if run.hookArgs != nil {
		return run.hookArgs
	}
	return run.fc.Args
}

// pastQuestions marks run past the questions asked before it runs.
func (run *toolRun) pastQuestions() {
	if run.asked != nil {
		run.closeOnce.Do(func() { close(run.asked) })
	}
}

// narrationFirst is calls with those of the tools that narrate
// (tools.Annotations.Narrates: update_topic) moved to the front, the
// order otherwise kept, as Gemini CLI 0.61's scheduler sorts a model
// answer's calls (_startBatch): the topic is set before the work it
// names, and the calls are run and answered in this order.
func (n nature) narrationFirst(calls []*genai.FunctionCall) []*genai.FunctionCall {
	ordered := slices.Clone(calls)
	slices.SortStableFunc(ordered, func(a, b *genai.FunctionCall) int {
		aFirst, bFirst := n(a.Name).Narrates, n(b.Name).Narrates
		switch {
		case aFirst && !bFirst:
			return -1
		case bFirst && !aFirst:
			return 1
		}
		return 0
	})
	return ordered
}

// runCalls runs the calls of one model answer and returns the user
// content answering them all, in the order of the calls, the narrating
// tools' first (narrationFirst). Once the turn's ctx ends, the calls not
// started are answered as cancelled, and the running ones end as their
// tools see it; none outlives runCalls.
func (t *turn) runCalls(calls []*genai.FunctionCall) *genai.Content {
	sc := scheduler{nature: nature(t.s.agent.annotations), declined: t.hasDeclined, start: t.startCall, ended: t.ended, swapShow: t.swapShow}
	calls = sc.nature.narrationFirst(calls)
	t.runs = make([]*toolRun, len(calls))
	for i, fc := range calls {
		t.runs[i] = &toolRun{fc: fc, index: i, asked: make(chan struct{})}
	}
	t.declined = false
	defer func() { t.runs = nil }()
	return sc.run(t.runs)
}

// swapShow has the turn's events go to show, and returns where they went.
func (t *turn) swapShow(show func(dialog.Subagent, dialog.Event)) func(dialog.Subagent, dialog.Event) {
	was := t.show
	t.show = show
	return was
}

// scheduler runs the calls of one model answer in batches, each batch's
// calls at once (nature.batches); the turn's part is handed to it.
type scheduler struct {
	nature nature
	// declined says the user declined a call of the answer so far.
	declined func() bool
	// start runs a call and returns the parts answering it; ended takes
	// the parts answering call i (turn.startCall, turn.ended).
	start func(run *toolRun) []*genai.Part
	ended func(answers [][]*genai.Part, i int, parts []*genai.Part)
	// swapShow has the turn's events go to show, returning where they
	// went before.
	swapShow func(show func(dialog.Subagent, dialog.Event)) func(dialog.Subagent, dialog.Event)
}

// run runs runs' calls and returns the content answering them all, in
// their order.
func (sc scheduler) run(runs []*toolRun) *genai.Content {
	calls := make([]*genai.FunctionCall, len(runs))
	for i, run := range runs {
		calls[i] = run.fc
	}
	answers := make([][]*genai.Part, len(runs))
	for _, b := range sc.nature.batches(calls) {
		if sc.declined() {
			// As Gemini CLI 0.61 cancels the calls still queued when the
			// user declines one (cancelAllQueued); the declined call's
			// own batch runs on.
			for _, run := range runs[b[0]:b[1]] {
				run.afterDecline = true
			}
		}
		sc.runBatch(runs, b[0], b[1], answers)
	}
	answer := &genai.Content{Role: genai.RoleUser}
	for _, parts := range answers {
		answer.Parts = append(answer.Parts, parts...)
	}
	return answer
}

// runBatch runs runs[lo:hi] at once, each answer in answers. Their
// events reach the turn's emit on this goroutine, one at a time, as
// Prompt promises.
func (sc scheduler) runBatch(runs []*toolRun, lo, hi int, answers [][]*genai.Part) {
	if hi-lo == 1 {
		sc.ended(answers, lo, sc.start(runs[lo]))
		return
	}
	events := make(chan shownEvent)
	show := sc.swapShow(func(from dialog.Subagent, ev dialog.Event) { events <- shownEvent{from, ev} })
	var running sync.WaitGroup
	for i := lo; i < hi; i++ {
		running.Go(func() { sc.ended(answers, i, sc.start(runs[i])) })
	}
	done := make(chan struct{})
	go func() { running.Wait(); close(done) }()
	for {
		select {
		case e := <-events:
			show(e.from, e.ev)
		case <-done:
			// Every send was taken before its call returned.
			sc.swapShow(show)
			return
		}
	}
}

// startCall runs run's call unless the turn was cancelled or a hook
// stopped it, and returns the parts answering it.
func (t *turn) startCall(run *toolRun) []*genai.Part {
	defer run.pastQuestions()
	fc := run.fc
	if t.ctx.Err() != nil {
		return []*genai.Part{functionResponse(fc, tools.Result{Error: cancelledMessage})}
	}
	if stop := t.stoppedByHook(); stop != "" {
		return []*genai.Part{functionResponse(fc, tools.Result{Error: hookStoppedPrefix + stop})}
	}
	t.mu.Lock()
	t.result.ToolCalls++
	t.mu.Unlock()
	run.start = t.s.agent.cfg.Now()
	return t.runCall(run)
}

// userDeclined records that the user declined a call of the answer
// being run.
func (t *turn) userDeclined() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.declined = true
}

func (t *turn) hasDeclined() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.declined
}

// stopByHookLater records that a hook stopped the agent's loop: the calls
// not started yet are not run, and the turn ends.
func (t *turn) stopByHookLater(reason string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hookStop = reason
}

func (t *turn) stoppedByHook() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.hookStop
}

// questionLine lets the questions of calls running at once reach the
// front end one at a time, the earliest call's first, as Gemini CLI 0.61
// shows the first call awaiting approval and queues the rest. A call
// that asks nothing never waits on it.
type questionLine struct {
	mu      sync.Mutex
	asking  bool
	waiting map[int]chan struct{} // by call index
}

// wait returns once the index-th call may ask, or with ctx's error; on
// nil the caller must call done after its question is answered.
func (q *questionLine) wait(ctx context.Context, index int) error {
	q.mu.Lock()
	if !q.asking {
		q.asking = true
		q.mu.Unlock()
		return nil
	}
	if q.waiting == nil {
		q.waiting = make(map[int]chan struct{})
	}
	turn := make(chan struct{})
	q.waiting[index] = turn
	q.mu.Unlock()
	select {
	case <-turn:
		return nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	_, still := q.waiting[index]
	delete(q.waiting, index)
	q.mu.Unlock()
	if !still { // its turn came as ctx ended: pass it on
		q.done()
	}
	return ctx.Err()
}

// done hands the line to the earliest call waiting.
func (q *questionLine) done() {
	q.mu.Lock()
	defer q.mu.Unlock()
	next := -1
	for i := range q.waiting {
		if next < 0 || i < next {
			next = i
		}
	}
	if next < 0 {
		q.asking = false
		return
	}
	close(q.waiting[next])
	delete(q.waiting, next)
}

// ask runs question, a question to the user about run's call, once the
// earlier calls are past their questions before running and no other
// call's question is before the user.
func ask[R any](t *turn, run *toolRun, question func() (R, error)) (R, error) {
	var zero R
	for _, earlier := range t.runs[:min(run.index, len(t.runs))] {
		select {
		case <-earlier.asked:
		case <-t.ctx.Done():
			return zero, t.ctx.Err()
		}
	}
	// A subagent's questions wait in its main turn's line, so that the
	// subagents running at once ask one at a time, as the main agent's
	// calls do: after the main agent's own calls, in call order.
	line, index := &t.questions, run.index
	if t.main != nil {
		line, index = &t.main.questions, (t.mainIndex+1)<<16|run.index
	}
	if err := line.wait(t.ctx, index); err != nil {
		return zero, err
	}
	defer line.done()
	if t.clock != nil {
		t.clock.Pause()
		defer t.clock.Resume()
	}
	return question()
}

// shownEvent is an event of a call running in a batch, on its way to the
// turn's goroutine, with the subagent it is of.
type shownEvent struct {
	from dialog.Subagent
	ev   dialog.Event
}
