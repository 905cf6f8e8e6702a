package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// askKey carries a call's tools.AskFunc in the context of its tools/call,
// where the SDK's multi-round-trip middleware hands it to the
// elicitation handler: an input_required result is asked of the user of
// the call that got it, through the editor's question path (ask_user's).
type askKey struct{}

// withAsker is ctx carrying the call's way to ask its user; nil leaves
// ctx as it is (nobody can be asked).
func withAsker(ctx context.Context, ask tools.AskFunc) context.Context {
	if ask == nil {
		return ctx
	}
	return context.WithValue(ctx, askKey{}, ask)
}

// elicitHandler answers a server's elicitation: one that came as an
// input_required result of a call (2026-07-28) is put to the call's user;
// one a 2025-11-25 server sent of its own (elicitation/create, which
// gemini-ls does not declare to it, as Gemini CLI 0.61 does not) is
// refused, saying why.
func (s *server) elicitHandler(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	return s.elicit(ctx, req.Params)
}

// askError is why a server's question got no answer: the call failed
// for it, not for its connection.
type askError struct{ error }

func (e *askError) Unwrap() error { return e.error }

func (s *server) elicit(ctx context.Context, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	res, err := s.ask(ctx, p)
	if err != nil {
		return nil, &askError{err}
	}
	return res, nil
}

func (s *server) ask(ctx context.Context, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	ask, _ := ctx.Value(askKey{}).(tools.AskFunc)
	if ask == nil {
		return nil, fmt.Errorf("gemini-ls asks the user only what a server asks in answer to a call (input_required); MCP server %q asked outside one", s.alias)
	}
	if p.Mode == "url" {
		// Not declared: gemini-ls opens no page on a server's word.
		return &sdk.ElicitResult{Action: "decline"}, nil
	}
	fields, err := elicitFields(p.RequestedSchema)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q asked a question gemini-ls cannot read: %w", s.alias, err)
	}
	content := map[string]any{}
	for i, f := range fields {
		text := f.label()
		if i == 0 {
			text = strings.TrimSpace(p.Message + "\n\n" + text)
		}
		q := dialog.Question{Kind: dialog.QuestionAskUser, Title: fmt.Sprintf("MCP server %s asks", s.alias), Text: text}
		f.offer(&q)
		a, err := ask(ctx, q)
		if errors.Is(err, dialog.ErrCannotAsk) {
			return nil, fmt.Errorf("MCP server %q asked the user a question, and nobody can answer here: %w", s.alias, err)
		}
		if err != nil {
			return nil, fmt.Errorf("asking the user MCP server %q's question: %w", s.alias, err)
		}
		if a.Declined {
			// Dismissed without a choice: MCP's cancel.
			return &sdk.ElicitResult{Action: "cancel"}, nil
		}
		v, ok, err := f.value(a)
		if err != nil {
			return nil, fmt.Errorf("the answer to MCP server %q's question %q: %w", s.alias, f.name, err)
		}
		if ok {
			content[f.name] = v
		}
	}
	return &sdk.ElicitResult{Action: "accept", Content: content}, nil
}

// elicitField is one property of an elicitation's requested schema,
// which MCP keeps flat: a string, number, integer or boolean, an enum of
// strings, or an array of them to choose several.
type elicitField struct {
	name        string
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Enum        []string `json:"enum"`
	EnumNames   []string `json:"enumNames"`
	OneOf       []choice `json:"oneOf"`
	Items       *struct {
		Enum  []string `json:"enum"`
		AnyOf []choice `json:"anyOf"`
	} `json:"items"`
}

type choice struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// elicitFields are schema's properties in the order the server wrote
// them, which is the order they are asked in.
func elicitFields(schema any) ([]elicitField, error) {
	if schema == nil {
		return nil, nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var top struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	if len(top.Properties) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var fields []elicitField
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		f := elicitField{name: fmt.Sprint(key)}
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("property %q: %w", f.name, err)
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// label is what the user reads of the field.
func (f elicitField) label() string {
	name := f.Title
	if name == "" {
		name = f.name
	}
	if f.Description != "" {
		return "**" + name + "**: " + f.Description
	}
	return "**" + name + "**"
}

// choices are the values the field may take, when it names them.
func (f elicitField) choices() []choice {
	switch {
	case len(f.OneOf) > 0:
		return f.OneOf
	case len(f.Enum) > 0:
		out := make([]choice, len(f.Enum))
		for i, v := range f.Enum {
			out[i] = choice{Const: v}
			if i < len(f.EnumNames) {
				out[i].Title = f.EnumNames[i]
			}
		}
		return out
	case f.Items != nil && len(f.Items.AnyOf) > 0:
		return f.Items.AnyOf
	case f.Items != nil:
		out := make([]choice, len(f.Items.Enum))
		for i, v := range f.Items.Enum {
			out[i] = choice{Const: v}
		}
		return out
	case f.Type == "boolean":
		return []choice{{Const: "true", Title: "Yes"}, {Const: "false", Title: "No"}}
	}
	return nil
}

// offer makes q offer the field's choices, or the user's own words.
func (f elicitField) offer(q *dialog.Question) {
	cs := f.choices()
	if len(cs) == 0 {
		q.FreeText = true
		return
	}
	q.Multiple = f.Type == "array"
	for _, c := range cs {
		label := c.Title
		if label == "" {
			label = c.Const
		}
		q.Options = append(q.Options, dialog.Option{ID: c.Const, Label: label})
	}
}

// value is the answer as the field's type; ok is false for no answer.
func (f elicitField) value(a dialog.Answer) (any, bool, error) {
	switch {
	case f.Type == "array":
		return slices.Clone(a.Chosen), true, nil
	case f.Type == "boolean":
		if len(a.Chosen) == 0 {
			return nil, false, nil
		}
		return a.Chosen[0] == "true", true, nil
	case len(a.Chosen) > 0:
		return a.Chosen[0], true, nil
	}
	text := strings.TrimSpace(a.Text)
	if text == "" {
		return nil, false, nil
	}
	switch f.Type {
	case "integer":
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, false, fmt.Errorf("%q is not a whole number", text)
		}
		return n, true, nil
	case "number":
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, false, fmt.Errorf("%q is not a number", text)
		}
		return n, true, nil
	}
	return text, true, nil
}
