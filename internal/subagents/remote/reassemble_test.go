package remote

import (
	"fmt"
	"slices"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
)

// chunks cuts s into pieces of 64 bytes, the last shorter.
func chunks(s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(64, len(s))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func statusEvent(state a2a.TaskState, text string) *a2a.TaskStatusUpdateEvent {
	ev := &a2a.TaskStatusUpdateEvent{TaskID: "t", ContextID: "c", Status: a2a.TaskStatus{State: state}}
	if text != "" {
		ev.Status.Message = a2a.NewMessage(a2a.MessageRoleAgent, a2a.TextPart{Text: text})
	}
	return ev
}

func artifactEvent(id, text string, appendIt bool) *a2a.TaskArtifactUpdateEvent {
	return &a2a.TaskArtifactUpdateEvent{TaskID: "t", ContextID: "c", Append: appendIt,
		Artifact: &a2a.Artifact{ID: a2a.ArtifactID(id), Parts: a2a.ContentParts{a2a.TextPart{Text: text}}}}
}

// Following a task takes time linear in what the agent sent, event by
// event: an artifact streamed in small pieces, messages by the
// thousand, before or after an artifact, artifacts by the thousand, a
// demand for authorization among messages.
func TestReassemblerIsLinear(t *testing.T) {
	for _, c := range []struct {
		name   string
		events func(pieces []string) []a2a.Event
	}{
		{"one artifact streamed", func(pieces []string) []a2a.Event {
			evs := []a2a.Event{artifactEvent("a", "", false)}
			for _, p := range pieces {
				evs = append(evs, artifactEvent("a", p, true))
			}
			return evs
		}},
		{"messages", func(pieces []string) []a2a.Event {
			var evs []a2a.Event
			for i, p := range pieces {
				evs = append(evs, statusEvent(a2a.TaskStateWorking, p+fmt.Sprint(i%2)))
			}
			return evs
		}},
		{"messages after an artifact", func(pieces []string) []a2a.Event {
			evs := []a2a.Event{artifactEvent("a", "answer", false)}
			for i, p := range pieces {
				evs = append(evs, a2a.NewMessage(a2a.MessageRoleAgent, a2a.TextPart{Text: p + fmt.Sprint(i%2)}))
			}
			return evs
		}},
		{"artifacts", func(pieces []string) []a2a.Event {
			var evs []a2a.Event
			for i, p := range pieces {
				evs = append(evs, artifactEvent(fmt.Sprint(i), p, false))
			}
			return evs
		}},
		{"the first of two artifacts streamed", func(pieces []string) []a2a.Event {
			evs := []a2a.Event{artifactEvent("a", "", false), artifactEvent("b", "last", false)}
			for _, p := range pieces {
				evs = append(evs, artifactEvent("a", p, true))
			}
			return evs
		}},
		{"authorization among messages", func(pieces []string) []a2a.Event {
			var evs []a2a.Event
			for i, p := range pieces {
				evs = append(evs, statusEvent(a2a.TaskStateAuthRequired, ""), statusEvent(a2a.TaskStateWorking, p+fmt.Sprint(i%2)))
			}
			return evs
		}},
	} {
		lineartest.Linear(t, c.name, lineartest.Repeat("abcdefghij "), func(input string) {
			r := &run{c: &Client{}, progress: func(Progress) {}}
			for _, ev := range c.events(chunks(input)) {
				r.update(ev)
			}
			if text := r.re.String(); len(text) < len(input) {
				t.Errorf("%s: %d bytes of text from %d", c.name, len(text), len(input))
			}
		})
	}
}

// eventsOf reads a fuzzer's script as A2A events, each from an operation
// byte, an argument byte and a text whose length the next byte gives.
func eventsOf(script []byte) []a2a.Event {
	states := []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateAuthRequired, a2a.TaskStateCompleted, a2a.TaskStateInputRequired}
	var evs []a2a.Event
	for len(script) >= 3 {
		op, arg, n := script[0], script[1], min(int(script[2]), len(script)-3)
		text := string(script[3 : 3+n])
		script = script[3+n:]
		id, name := fmt.Sprintf("a%d", arg%3), ""
		if arg&4 != 0 {
			name = "n" + fmt.Sprint(arg%2)
		}
		switch op % 7 {
		case 0:
			evs = append(evs, statusEvent(states[int(arg)%len(states)], text))
		case 1:
			evs = append(evs, a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: text}))
		case 2:
			evs = append(evs, a2a.NewMessage(a2a.MessageRoleAgent, a2a.TextPart{Text: text}))
		case 3, 4:
			ev := artifactEvent(id, text, op%7 == 4)
			ev.Artifact.Name = name
			evs = append(evs, ev)
		case 5:
			evs = append(evs, &a2a.TaskArtifactUpdateEvent{TaskID: "t"})
		case 6:
			task := &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: states[int(arg)%len(states)]},
				Artifacts: []*a2a.Artifact{{ID: a2a.ArtifactID(id), Name: name, Parts: a2a.ContentParts{a2a.TextPart{Text: text}}}, nil},
				History:   []*a2a.Message{a2a.NewMessage(a2a.MessageRoleAgent, a2a.TextPart{Text: "h" + text})}}
			if arg&8 != 0 {
				task.Artifacts = nil
			}
			evs = append(evs, task)
		}
	}
	return evs
}

// FuzzReassembler: event by event, the text is what the reassembler of
// before (which read every chunk again) made of the events, and what
// update says it did to the text is what it did: appended what it says,
// or changed it.
//
//	go test -run '^$' -fuzz FuzzReassembler ./internal/subagents/remote/
func FuzzReassembler(f *testing.F) {
	for _, script := range []string{
		"\x03\x00\x02ab\x04\x00\x01c\x04\x00\x00\x00\x01\x02hi",
		"\x00\x01\x00\x00\x00\x01x\x00\x00\x01x\x02\x00\x01y\x03\x05\x01z",
		"\x03\x00\x01a\x03\x01\x01b\x04\x00\x01c\x03\x04\x01d\x03\x04\x02de",
		"\x06\x0a\x01t\x06\x02\x02tu\x06\x06\x01v\x05\x00\x00",
		"\x06\x08\x01t\x00\x02\x00",
	} {
		f.Add([]byte(script))
	}
	f.Fuzz(func(t *testing.T, script []byte) {
		var r reassembler
		var naive naiveReassembler
		for _, ev := range eventsOf(script) {
			before := r.String()
			appended, changed := r.update(ev)
			naive.update(ev)
			after := r.String()
			switch {
			case after != naive.String():
				t.Fatalf("after %#v: text %q, want %q", ev, after, naive.String())
			case changed != (after != before):
				t.Fatalf("after %#v: changed %v, from %q to %q", ev, changed, before, after)
			case appended != "" && after != before+appended:
				t.Fatalf("after %#v: appended %q, from %q to %q", ev, appended, before, after)
			case r.Len() != len(after):
				t.Fatalf("after %#v: Len %d of %q", ev, r.Len(), after)
			case !slices.Equal(r.activity(), naive.activity()) || r.state != naive.state:
				t.Fatalf("after %#v: activity %q %s, want %q %s", ev, r.activity(), r.state, naive.activity(), naive.state)
			}
		}
	})
}
