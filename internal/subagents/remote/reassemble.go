package remote

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"
)

// authRequiredMsg is what the main agent reads when the remote agent asks
// for authorization (0.61 a2aUtils.js AUTH_REQUIRED_MSG, bundle 349967).
const authRequiredMsg = "[Authorization Required] The agent has indicated it requires authorization to proceed. Please follow the agent's instructions."

// workingMsg is the activity shown before the agent says anything (0.61
// RemoteAgentInvocation.execute, bundle 350265).
const workingMsg = "Working..."

// reassembler gathers a task's events into the text the main agent reads,
// as 0.61's A2AResultReassembler does (bundle 349968): the agent's
// messages one after another, then each artifact under a header.
type reassembler struct {
	messages  []string
	artifacts []*artifact // in order of first appearance
	state     a2a.TaskState
}

type artifact struct {
	id     a2a.ArtifactID
	name   string
	chunks []string
}

func (r *reassembler) update(ev a2a.Event) {
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
			a = &artifact{id: e.Artifact.ID}
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
				a = &artifact{id: art.ID}
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

func (r *reassembler) artifact(id a2a.ArtifactID) *artifact {
	for _, a := range r.artifacts {
		if a.id == id {
			return a
		}
	}
	return nil
}

func (r *reassembler) authRequired(s a2a.TaskState) {
	if s == a2a.TaskStateAuthRequired && !slices.Contains(r.messages, authRequiredMsg) {
		r.messages = append(r.messages, authRequiredMsg)
	}
}

func (r *reassembler) push(m *a2a.Message) {
	if m == nil || m.Role == a2a.MessageRoleUser {
		return
	}
	if t := partsText(m.Parts); t != "" && (len(r.messages) == 0 || r.messages[len(r.messages)-1] != t) {
		r.messages = append(r.messages, t)
	}
}

// String is the text so far (0.61 toString).
func (r *reassembler) String() string {
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
func (r *reassembler) activity() []string {
	if len(r.messages) == 0 {
		return []string{workingMsg}
	}
	out := make([]string, len(r.messages))
	for i, m := range r.messages {
		out[i] = strings.TrimSpace(m)
	}
	return out
}

// partsText is 0.61's extractPartsText with no separator.
func partsText(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(partText(p))
	}
	return b.String()
}

// partText is 0.61's extractPartText (bundle 350106).
func partText(p a2a.Part) string {
	switch p := p.(type) {
	case a2a.TextPart:
		return p.Text
	case *a2a.TextPart:
		return p.Text
	case a2a.DataPart:
		return "Data: " + jsonText(p.Data)
	case *a2a.DataPart:
		return "Data: " + jsonText(p.Data)
	case a2a.FilePart:
		return fileText(p.File)
	case *a2a.FilePart:
		return fileText(p.File)
	}
	return ""
}

func fileText(f a2a.FilePartContent) string {
	var name, uri string
	switch f := f.(type) {
	case a2a.FileBytes:
		name = f.Name
	case a2a.FileURI:
		name, uri = f.Name, f.URI
	}
	switch {
	case name != "":
		return "File: " + name
	case uri != "":
		return "File: " + uri
	}
	return "File: [binary/unnamed]"
}

// jsonText is JSON.stringify's compact form, HTML left unescaped.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}
