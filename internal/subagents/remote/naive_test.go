package remote

import (
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"
)

// naiveReassembler is the reassembler as it was before it was made
// incremental, kept as the reference FuzzReassembler checks it against:
// it reads every chunk again to give the text. It gathers a task's events
// into the text the main agent reads, as 0.61's A2AResultReassembler
// does (bundle 349968): the agent's messages one after another, then
// each artifact under a header.
type naiveReassembler struct {
	messages  []string
	artifacts []*naiveArtifact // in order of first appearance
	state     a2a.TaskState
}

type naiveArtifact struct {
	id     a2a.ArtifactID
	name   string
	chunks []string
}

func (r *naiveReassembler) update(ev a2a.Event) {
	switch e := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		r.state = e.Status.State
		r.authRequired(e.Status.State)
		r.push(e.Status.Message)
	case *a2a.TaskArtifactUpdateEvent:
		if e.Artifact == nil {
			return
		}
		a := r.artifact(e.Artifact.ID)
		text := partsText(e.Artifact.Parts)
		if e.Append && a != nil {
			a.chunks = append(a.chunks, text)
			return
		}
		if a == nil {
			a = &naiveArtifact{id: e.Artifact.ID}
			r.artifacts = append(r.artifacts, a)
		}
		a.name = e.Artifact.Name
		a.chunks = []string{text}
	case *a2a.Task:
		r.state = e.Status.State
		r.authRequired(e.Status.State)
		r.push(e.Status.Message)
		for _, art := range e.Artifacts {
			if art == nil {
				continue
			}
			a := r.artifact(art.ID)
			if a == nil {
				a = &naiveArtifact{id: art.ID}
				r.artifacts = append(r.artifacts, a)
			}
			a.name = art.Name
			a.chunks = []string{partsText(art.Parts)}
		}
		// A finished task that said nothing else: its last agent message.
		if e.Status.State.Terminal() && len(r.messages) == 0 && len(r.artifacts) == 0 {
			for _, m := range slices.Backward(e.History) {
				if m != nil && strings.Contains(strings.ToLower(string(m.Role)), "agent") {
					r.push(m)
					break
				}
			}
		}
	case *a2a.Message:
		r.push(e)
	}
}

func (r *naiveReassembler) artifact(id a2a.ArtifactID) *naiveArtifact {
	for _, a := range r.artifacts {
		if a.id == id {
			return a
		}
	}
	return nil
}

func (r *naiveReassembler) authRequired(s a2a.TaskState) {
	if s == a2a.TaskStateAuthRequired && !slices.Contains(r.messages, authRequiredMsg) {
		r.messages = append(r.messages, authRequiredMsg)
	}
}

func (r *naiveReassembler) push(m *a2a.Message) {
	if m == nil || m.Role == a2a.MessageRoleUser {
		return
	}
	if t := partsText(m.Parts); t != "" && (len(r.messages) == 0 || r.messages[len(r.messages)-1] != t) {
		r.messages = append(r.messages, t)
	}
}

// String is the text so far (0.61 toString).
func (r *naiveReassembler) String() string {
	msgs := strings.Join(r.messages, "")
	var arts []string
	for _, a := range r.artifacts {
		header := "Artifact:"
		if a.name != "" {
			header = "Artifact (" + a.name + "):"
		}
		arts = append(arts, header+"\n"+strings.Join(a.chunks, ""))
	}
	artText := strings.Join(arts, "\n\n")
	switch {
	case msgs != "" && artText != "":
		return msgs + "\n\n" + artText
	case msgs != "":
		return msgs
	}
	return artText
}

// activity is the agent's messages so far, trimmed (0.61
// toActivityItems); "Working..." before the first.
func (r *naiveReassembler) activity() []string {
	if len(r.messages) == 0 {
		return []string{workingMsg}
	}
	out := make([]string, len(r.messages))
	for i, m := range r.messages {
		out[i] = strings.TrimSpace(m)
	}
	return out
}
