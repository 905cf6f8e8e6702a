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
// messages one after another, then each artifact under a header. It keeps
// the text in pieces and says at each event what the event did to it, so
// that an event costs what it carries, not what came before: an agent
// streaming an artifact byte by byte had it all read again at every
// byte (16,000 one-byte events: 35 s).
type reassembler struct {
	messages []string        // each message's text, in order
	msgText  strings.Builder // the messages' texts joined
	trimmed  []string        // each message's text, trimmed
	authTold bool            // authRequiredMsg is among the messages

	artifacts []*artifact // in order of first appearance
	byID      map[a2a.ArtifactID]*artifact
	artLen    int // the length of the artifacts' part of the text

	state a2a.TaskState
	// changes counts the events that changed the text.
	changes int
}

type artifact struct {
	name string
	text strings.Builder
}

// header is the line over an artifact named name.
func header(name string) string {
	if name == "" {
		return "Artifact:"
	}
	return "Artifact (" + name + "):"
}

// edit is what one event did to the text: grew by what it appended, or
// was rewritten.
type edit struct {
	appended  []string
	rewritten bool
}

func (e *edit) appendText(s string) {
	if !e.rewritten && s != "" {
		e.appended = append(e.appended, s)
	}
}

func (e *edit) rewrite() { e.rewritten, e.appended = true, nil }

// update takes in ev and returns what it appended to the text ("" when it
// rewrote it or left it as it was) and whether it changed it.
func (r *reassembler) update(ev a2a.Event) (appended string, changed bool) {
	var e edit
	switch ev := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		r.state = ev.Status.State
		r.authRequired(ev.Status.State, &e)
		r.push(ev.Status.Message, &e)
	case *a2a.TaskArtifactUpdateEvent:
		r.artifactUpdate(ev, &e)
	case *a2a.Task:
		r.task(ev, &e)
	case *a2a.Message:
		r.push(ev, &e)
	}
	if !e.rewritten && len(e.appended) == 0 {
		return "", false
	}
	r.changes++
	return strings.Join(e.appended, ""), true
}

func (r *reassembler) artifactUpdate(ev *a2a.TaskArtifactUpdateEvent, e *edit) {
	if ev.Artifact == nil {
		return
	}
	a := r.byID[ev.Artifact.ID]
	text := partsText(ev.Artifact.Parts)
	switch {
	case ev.Append && a != nil:
		r.appendChunk(a, text, e)
	case a == nil:
		r.addArtifact(ev.Artifact.ID, ev.Artifact.Name, text, e)
	default:
		r.replace(a, ev.Artifact.Name, text, e)
	}
}

func (r *reassembler) task(t *a2a.Task, e *edit) {
	r.state = t.Status.State
	r.authRequired(t.Status.State, e)
	r.push(t.Status.Message, e)
	for _, art := range t.Artifacts {
		if art == nil {
			continue
		}
		text := partsText(art.Parts)
		if a := r.byID[art.ID]; a != nil {
			r.replace(a, art.Name, text, e)
		} else {
			r.addArtifact(art.ID, art.Name, text, e)
		}
	}
	// A finished task that said nothing else: its last agent message.
	if t.Status.State.Terminal() && len(r.messages) == 0 && len(r.artifacts) == 0 {
		for _, m := range slices.Backward(t.History) {
			if m != nil && strings.Contains(strings.ToLower(string(m.Role)), "agent") {
				r.push(m, e)
				break
			}
		}
	}
}

// addArtifact puts a new artifact at the end of the text.
func (r *reassembler) addArtifact(id a2a.ArtifactID, name, text string, e *edit) {
	a := &artifact{name: name}
	a.text.WriteString(text)
	piece := header(name) + "\n" + text
	sep := ""
	if r.Len() > 0 {
		sep = "\n\n"
	}
	if r.artLen > 0 {
		r.artLen += len(sep) // between artifacts; else the messages'
	}
	r.artLen += len(piece)
	if r.byID == nil {
		r.byID = map[a2a.ArtifactID]*artifact{}
	}
	r.byID[id] = a
	r.artifacts = append(r.artifacts, a)
	e.appendText(sep + piece)
}

// appendChunk adds chunk to a's text: at the end of the text when a is
// the last artifact.
func (r *reassembler) appendChunk(a *artifact, chunk string, e *edit) {
	if chunk == "" {
		return
	}
	if a == r.artifacts[len(r.artifacts)-1] {
		e.appendText(chunk)
	} else {
		e.rewrite()
	}
	a.text.WriteString(chunk)
	r.artLen += len(chunk)
}

// replace gives a a new name and text: a change at the end of the text
// when a is the last artifact, keeps its name and its text grew.
func (r *reassembler) replace(a *artifact, name, text string, e *edit) {
	old := a.text.String()
	switch {
	case name == a.name && text == old:
		return
	case name == a.name && strings.HasPrefix(text, old):
		r.appendChunk(a, text[len(old):], e)
		return
	}
	e.rewrite()
	r.artLen += len(header(name)) - len(header(a.name)) + len(text) - len(old)
	a.name = name
	a.text.Reset()
	a.text.WriteString(text)
}

func (r *reassembler) authRequired(s a2a.TaskState, e *edit) {
	if s == a2a.TaskStateAuthRequired && !r.authTold {
		r.addMessage(authRequiredMsg, e)
	}
}

func (r *reassembler) push(m *a2a.Message, e *edit) {
	if m == nil || m.Role == a2a.MessageRoleUser {
		return
	}
	if t := partsText(m.Parts); t != "" && (len(r.messages) == 0 || r.messages[len(r.messages)-1] != t) {
		r.addMessage(t, e)
	}
}

// addMessage puts t after the messages: at the end of the text while
// there is no artifact.
func (r *reassembler) addMessage(t string, e *edit) {
	if r.artLen == 0 {
		e.appendText(t)
	} else {
		e.rewrite()
	}
	r.messages = append(r.messages, t)
	r.msgText.WriteString(t)
	r.trimmed = append(r.trimmed, strings.TrimSpace(t))
	r.authTold = r.authTold || t == authRequiredMsg
}

// Len is the length of the text so far.
func (r *reassembler) Len() int {
	if r.msgText.Len() > 0 && r.artLen > 0 {
		return r.msgText.Len() + 2 + r.artLen
	}
	return r.msgText.Len() + r.artLen
}

// String is the text so far (0.61 toString).
func (r *reassembler) String() string {
	var b strings.Builder
	b.Grow(r.Len())
	b.WriteString(r.msgText.String())
	for i, a := range r.artifacts {
		if i > 0 || b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(header(a.name))
		b.WriteByte('\n')
		b.WriteString(a.text.String())
	}
	return b.String()
}

// activity is the agent's messages so far, trimmed (0.61
// toActivityItems); "Working..." before the first. It is the
// reassembler's own: not to be changed.
func (r *reassembler) activity() []string {
	if len(r.trimmed) == 0 {
		return []string{workingMsg}
	}
	return slices.Clip(r.trimmed)
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
