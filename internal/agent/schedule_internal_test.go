package agent

import (
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// The scheduler needs no turn: it is handed how to start a call, take
// its answer and redirect the turn's events. Calls that may run together
// run at once, their events reaching emit on the scheduler's goroutine;
// a call that runs alone waits for them; once a call was declined, the
// later batches' calls are marked cancelled; the answer keeps the calls'
// order.
func TestSchedulerOnItsOwn(t *testing.T) {
	nat := nature(func(name string) tools.Annotations { return tools.Annotations{RunsAlone: name == "alone"} })
	names := []string{"a", "b", "alone", "c"}
	runs := make([]*toolRun, len(names))
	for i, name := range names {
		runs[i] = &toolRun{fc: &genai.FunctionCall{Name: name}, index: i, asked: make(chan struct{})}
	}
	var mu sync.Mutex
	var emitted []string
	var show func(dialog.Subagent, dialog.Event) = func(_ dialog.Subagent, ev dialog.Event) { emitted = append(emitted, ev.(dialog.NoticeEvent).Text) }
	declined := false
	arrived, bothIn := make(chan struct{}, 2), make(chan struct{})
	go func() { <-arrived; <-arrived; close(bothIn) }()
	sc := scheduler{
		nature:   nat,
		declined: func() bool { return declined },
		start: func(run *toolRun) []*genai.Part {
			mu.Lock()
			current := show
			mu.Unlock()
			if run.fc.Name == "a" || run.fc.Name == "b" {
				arrived <- struct{}{}
				select { // a and b run at once
				case <-bothIn:
				case <-time.After(5 * time.Second):
					t.Errorf("%s ran without the other", run.fc.Name)
				}
			}
			if run.fc.Name == "alone" {
				declined = true
			}
			current(dialog.Subagent{}, dialog.NoticeEvent{Text: run.fc.Name})
			return []*genai.Part{genai.NewPartFromText(run.fc.Name)}
		},
		ended: func(answers [][]*genai.Part, i int, parts []*genai.Part) {
			mu.Lock()
			defer mu.Unlock()
			answers[i] = parts
		},
		swapShow: func(to func(dialog.Subagent, dialog.Event)) func(dialog.Subagent, dialog.Event) {
			mu.Lock()
			defer mu.Unlock()
			was := show
			show = to
			return was
		},
	}
	answer := sc.run(runs)
	var got []string
	for _, p := range answer.Parts {
		got = append(got, p.Text)
	}
	if len(got) != 4 || got[0] != "a" || got[1] != "b" || got[2] != "alone" || got[3] != "c" {
		t.Errorf("answer %v, want the calls' order", got)
	}
	if len(emitted) != 4 {
		t.Errorf("emitted %v, want each call's event", emitted)
	}
	if runs[0].afterDecline || runs[2].afterDecline || !runs[3].afterDecline {
		t.Errorf("afterDecline %v %v %v %v: want only the batch after the declined one's", runs[0].afterDecline, runs[1].afterDecline, runs[2].afterDecline, runs[3].afterDecline)
	}
}
