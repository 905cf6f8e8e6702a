package lsp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// actionDecline is the window/showMessageRequest action that declines a
// question.
const actionDecline = "Decline"

// The presenter puts calls' questions to the user: gemini/ask when the
// client implements it, else window/showMessageRequest, which offers one
// choice and no words of the user's own.

// askParams are gemini/ask's params.
type askParams struct {
	SessionID string        `json:"sessionId"`
	CallID    string        `json:"callId"`
	Kind      string        `json:"kind"`
	Title     string        `json:"title"`
	Text      string        `json:"text"`
	Options   []askedOption `json:"options"`
	Multiple  bool          `json:"multiple"`
	FreeText  bool          `json:"freeText"`
}

// askedOption is an option as dialog's json tags name it. askParams
// itself is wider than dialog.Question: it also asks the trust and
// sign-in questions, whose kinds are no QuestionKind.
type askedOption = dialog.Option

// askResult is gemini/ask's result: an answer as its json tags name it
// (its Note is the front end's, never the client's).
type askResult struct {
	dialog.Answer
}

func (a presenter) Ask(ctx context.Context, req dialog.AskRequest) (dialog.Answer, error) {
	if a.s.features.get().Ask {
		return a.askPlugin(ctx, req)
	}
	return a.askWithMessage(ctx, req.Question)
}

func (a presenter) askPlugin(ctx context.Context, req dialog.AskRequest) (dialog.Answer, error) {
	q := req.Question
	params := askParams{SessionID: req.SessionID, CallID: req.CallID, Kind: string(q.Kind), Title: q.Title, Text: q.Text, Options: []askedOption{}, Multiple: q.Multiple, FreeText: q.FreeText}
	for _, o := range q.Options {
		params.Options = append(params.Options, askedOption(o))
	}
	var res askResult
	if err := a.s.askUser(ctx, "gemini/ask", params, &res); err != nil {
		return dialog.Answer{}, fmt.Errorf("gemini/ask: %w", err)
	}
	if err := res.check(q); err != nil {
		return dialog.Answer{}, fmt.Errorf("gemini/ask: %w", err)
	}
	return res.Answer, nil
}

// check refuses an answer the question did not allow.
func (r askResult) check(q dialog.Question) error {
	if r.Declined {
		return nil
	}
	for _, id := range r.Chosen {
		if !slices.ContainsFunc(q.Options, func(o dialog.Option) bool { return o.ID == id }) {
			return fmt.Errorf("the answer chose option %q, which was not offered", id)
		}
	}
	if len(r.Chosen) > 1 && !q.Multiple {
		return fmt.Errorf("the answer chose %d options of a question that allows one", len(r.Chosen))
	}
	if r.Text != "" && !q.FreeText {
		return errors.New("the answer has text, which the question did not allow")
	}
	return nil
}

// askWithMessage asks with window/showMessageRequest: the options are its
// actions, with Decline. A question that takes nothing but the user's own
// words cannot be asked there.
func (a presenter) askWithMessage(ctx context.Context, q dialog.Question) (dialog.Answer, error) {
	if len(q.Options) == 0 {
		return dialog.Answer{}, fmt.Errorf("%w: this question needs an answer in the user's own words, which this editor cannot take", dialog.ErrCannotAsk)
	}
	actions := make([]string, 0, len(q.Options)+1)
	for _, o := range q.Options {
		actions = append(actions, o.Label)
	}
	action, err := a.s.showMessageRequest(ctx, protocol.MessageTypeInfo, questionMessage(q), append(actions, actionDecline)...)
	switch {
	case errors.Is(err, errNoShowMessageRequest):
		return dialog.Answer{}, fmt.Errorf("%w: this editor cannot show a question", dialog.ErrCannotAsk)
	case err != nil:
		return dialog.Answer{}, fmt.Errorf("asking the user: %w", err)
	}
	i := slices.Index(actions, action)
	switch {
	case i >= 0:
	case action == actionDecline || action == "": // "": dismissed
		return dialog.Answer{Declined: true}, nil
	default:
		return dialog.Answer{}, fmt.Errorf("window/showMessageRequest was answered with %q, which was not offered", action)
	}
	return dialog.Answer{Chosen: []string{q.Options[i].ID}, Note: q.OneChoiceNote()}, nil
}

// questionMessage is the title, the question, and what each option means.
func questionMessage(q dialog.Question) string {
	var b strings.Builder
	if q.Title != "" {
		b.WriteString(q.Title + "\n")
	}
	b.WriteString(q.Text)
	for _, o := range q.Options {
		if o.Description != "" {
			fmt.Fprintf(&b, "\n- %s: %s", o.Label, o.Description)
		}
	}
	return b.String()
}
