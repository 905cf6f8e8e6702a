package tools

import (
	"context"
	"errors"
	"strings"
)

// Question is what a call asks the user to answer (ask_user's question,
// exit_plan_mode's approval), presented by whichever front end runs the
// session: a plugin's own UI, window/showMessageRequest, ACP's permission
// request. No tool knows which.
type Question struct {
	// Kind says what asks: "ask_user", "plan_approval".
	Kind  string
	Title string
	// Text is the question, Markdown.
	Text    string
	Options []Option
	// Multiple lets the user choose more than one option.
	Multiple bool
	// FreeText lets the user answer in their own words instead.
	FreeText bool
}

// Option is one answer a Question offers.
type Option struct {
	ID          string
	Label       string
	Description string
}

// Answer is the user's answer to a Question.
type Answer struct {
	// Chosen are the IDs of the options chosen.
	Chosen []string
	// Text is the user's own words, where the question allowed them.
	Text string
	// Declined: the user dismissed the question without answering; that
	// is an answer too, for the model to act on.
	Declined bool
	// Note says what the front end could not offer the user (a choice of
	// several options, their own words), for the model; "" when nothing.
	Note string
}

// OneChoiceNote is the Answer.Note of a front end that offers one option
// and no words of the user's own (a message box's buttons, ACP's
// permission options): what of q it could not offer; "" when nothing.
func (q Question) OneChoiceNote() string {
	var notes []string
	if q.Multiple {
		notes = append(notes, "the user's editor could offer a choice of one option only, so at most one was chosen")
	}
	if q.FreeText {
		notes = append(notes, "the user's editor could offer the options only, not an answer in their own words")
	}
	return strings.Join(notes, "; ")
}

// ErrCannotAsk is wrapped by an AskFunc's error when nobody can answer
// (dialog.ErrCannotAsk is the same error).
var ErrCannotAsk = errors.New("cannot ask the user")

// AskFunc puts q to the user and waits for the answer. Its error wraps
// the front end's reason when nobody can be asked.
type AskFunc func(ctx context.Context, q Question) (Answer, error)
