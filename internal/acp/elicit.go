package acp

// Questions as forms: a call's question (ask_user's, the plan's approval)
// goes to a client that declares form elicitation as elicitation/create,
// which can take what a permission request cannot: several options, and
// an answer in the user's own words. Other clients get the permission
// request (ask.go).

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// methodElicitationCreate is ACP's elicitation/create.
const methodElicitationCreate = "elicitation/create"

// The form's fields: the option chosen (one, or several), and the user's
// own words.
const (
	fieldChoice  = "choice"
	fieldChoices = "choices"
	fieldAnswer  = "answer"
)

// elicitsForms reports whether the client declared form elicitation.
func (s *server) elicitsForms() bool {
	c := s.capabilities()
	return c.Elicitation != nil && c.Elicitation.Form != nil
}

// elicitRequest is elicitation/create's params in form mode, tied to the
// session and the call that asks, as the pinned schema spells them.
type elicitRequest struct {
	SessionID       string     `json:"sessionId"`
	ToolCallID      string     `json:"toolCallId,omitempty"`
	Mode            string     `json:"mode"`
	Message         string     `json:"message"`
	RequestedSchema formSchema `json:"requestedSchema"`
}

// formSchema is the form: an object of primitive fields.
type formSchema struct {
	Type       string         `json:"type"`
	Title      string         `json:"title,omitempty"`
	Properties map[string]any `json:"properties"`
	Required   []string       `json:"required,omitempty"`
}

// enumOption is one option of a choice field.
type enumOption struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// elicitResult is the client's answer: accept (with the form's
// content), decline or cancel.
type elicitResult struct {
	Action  string                     `json:"action"`
	Content map[string]json.RawMessage `json:"content"`
}

// questionForm is q as a form: its options as one choice (or a choice of
// several), and a field for the user's own words where q takes them.
// With options and words both, neither is required: either answers.
func questionForm(q dialog.Question) formSchema {
	f := formSchema{Type: "object", Title: q.Title, Properties: map[string]any{}}
	options := make([]enumOption, len(q.Options))
	for i, o := range q.Options {
		options[i] = enumOption{Const: o.ID, Title: o.Label}
	}
	switch {
	case len(options) > 0 && q.Multiple:
		f.Properties[fieldChoices] = map[string]any{"type": "array", "title": "Choose any", "items": map[string]any{"anyOf": options}}
	case len(options) > 0:
		f.Properties[fieldChoice] = map[string]any{"type": "string", "title": "Choose one", "oneOf": options}
	}
	if q.FreeText || len(options) == 0 {
		title := "Your answer"
		if len(options) > 0 {
			title = "Or answer in your own words"
		}
		f.Properties[fieldAnswer] = map[string]any{"type": "string", "title": title}
	}
	if len(f.Properties) == 1 {
		for name := range f.Properties {
			f.Required = []string{name}
		}
	}
	return f
}

// elicit puts req's question to the user as a form. Declined and
// cancelled are both the user's dismissal, an answer for the model; the
// turn's cancel ends the wait.
func (sess *session) elicit(ctx context.Context, req dialog.AskRequest) (dialog.Answer, error) {
	q := req.Question
	p := elicitRequest{SessionID: sess.id, ToolCallID: req.CallID, Mode: "form", Message: questionText(q), RequestedSchema: questionForm(q)}
	res, err := callClient[elicitResult](ctx, sess.srv.wire, methodElicitationCreate, p)
	switch {
	case ctx.Err() != nil:
		return dialog.Answer{}, ctx.Err()
	case err != nil:
		return dialog.Answer{}, fmt.Errorf("%s: %s", methodElicitationCreate, clientError(err))
	}
	switch res.Action {
	case "accept":
		return formAnswer(q, res.Content)
	case "decline", "cancel":
		return dialog.Answer{Declined: true}, nil
	}
	return dialog.Answer{}, fmt.Errorf("%s was answered with action %q, which ACP does not define", methodElicitationCreate, res.Action)
}

// formAnswer is the answer a form's content gives q: the options chosen,
// each one q offers, and the user's words. A form accepted empty is
// declined.
func formAnswer(q dialog.Question, content map[string]json.RawMessage) (dialog.Answer, error) {
	var a dialog.Answer
	var one string
	if err := readField(content, fieldChoice, &one); err != nil {
		return a, err
	}
	if err := readField(content, fieldChoices, &a.Chosen); err != nil {
		return a, err
	}
	if one != "" {
		a.Chosen = append(a.Chosen, one)
	}
	for _, id := range a.Chosen {
		if !slices.ContainsFunc(q.Options, func(o dialog.Option) bool { return o.ID == id }) {
			return dialog.Answer{}, fmt.Errorf("%s was answered with option %q, which was not offered", methodElicitationCreate, id)
		}
	}
	if err := readField(content, fieldAnswer, &a.Text); err != nil {
		return a, err
	}
	a.Text = strings.TrimSpace(a.Text)
	if len(a.Chosen) == 0 && a.Text == "" {
		return dialog.Answer{Declined: true}, nil
	}
	return a, nil
}

// readField reads content's field name into v, when it is there.
func readField[T any](content map[string]json.RawMessage, name string, v *T) error {
	raw, ok := content[name]
	if !ok || isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var want T
		return fmt.Errorf("%s was answered with %s %.100s, not a %T", methodElicitationCreate, name, raw, want)
	}
	return nil
}
