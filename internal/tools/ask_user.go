package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// KindCommunicate: the call talks with the user (Gemini CLI's
// Kind.Communicate); it changes nothing and needs no approval, since
// asking is the user's involvement.
const KindCommunicate dialog.Kind = "communicate"

// The question types of ask_user, in Gemini CLI's words.
const (
	questionChoice = "choice"
	questionText   = "text"
	questionYesNo  = "yesno"
)

// What the model is told when the user dismissed the questions, and when
// nobody can answer them.
const (
	askDismissed   = "User dismissed ask_user dialog without answering."
	askGoOn        = "Carry on with your best judgement and state the assumptions you make, or stop and say in your reply what you need to know."
	askNobodyHere  = "Nobody can answer your questions here: carry on with your best judgement and state the assumptions you make, or stop and say in your reply what you need to know."
	askMaxQuestion = 4
)

// askUserParams are ask_user's parameters, as Gemini CLI declares them
// (its default model family's), word for word.
type askUserParams struct {
	Questions []askQuestion `json:"questions"`
}

// askQuestion is one of ask_user's questions as the model wrote it.
type askQuestion struct {
	Question    string      `json:"question" jsonschema:"The complete question to ask the user. Should be clear, specific, and end with a question mark."`
	Header      string      `json:"header" jsonschema:"Very short label displayed as a chip/tag. Use abbreviations: \"Auth\" not \"Authentication\", \"Config\" not \"Configuration\". Examples: \"Auth method\", \"Library\", \"Approach\", \"Database\"."`
	Type        string      `json:"type" jsonschema:"Question type: 'choice' (default) for multiple-choice with options, 'text' for free-form input, 'yesno' for Yes/No confirmation with optional 'Other' feedback."`
	Options     []askOption `json:"options,omitempty" jsonschema:"The selectable choices for 'choice' type questions. Provide 2-4 options. An 'Other' option is automatically added for 'choice' and 'yesno' types. Not needed for 'text' or 'yesno'."`
	MultiSelect bool        `json:"multiSelect,omitempty" jsonschema:"Only applies when type='choice'. Set to true to allow selecting multiple options."`
	Placeholder string      `json:"placeholder,omitempty" jsonschema:"Hint text shown in the input field. For type='text', shown in the main input. For type='choice' and 'yesno', shown in the 'Other' custom input."`
}

type askOption struct {
	Label       string `json:"label" jsonschema:"The display text for this option (1-5 words). Example: \"OAuth 2.0\""`
	Description string `json:"description" jsonschema:"Brief explanation of this option. Example: \"Industry standard, supports SSO\""`
}

// extendSchema: one to four questions, of the three types, choice by
// default.
func (askUserParams) extendSchema(s *jsonschema.Schema) {
	questions := s.Properties["questions"]
	questions.MinItems, questions.MaxItems = jsonschema.Ptr(1), jsonschema.Ptr(askMaxQuestion)
	typ := questions.Items.Properties["type"]
	typ.Enum = []any{questionChoice, questionText, questionYesNo}
	typ.Default = json.RawMessage(strconv.Quote(questionChoice))
}

// askUser is ask_user, which puts the model's questions to the user
// through the call's AskFunc, whichever front end presents them. Its
// questions, checked against its schema, are checked then as Gemini CLI
// checks them, so the model can fix its call, and unescaped as it does
// (a model may write \n).
func askUser() *Defined[askUserParams] {
	return Define(Spec{
		Name:        AskUserName,
		Description: "Ask the user one or more questions to gather preferences, clarify requirements, or make decisions.",
		Annotations: Annotations{Kind: KindCommunicate, ReadOnly: true, AsksUser: true},
		Aliases:     []string{"AskUserTool"},
	}, func(p askUserParams) (Call, error) {
		for i, q := range p.Questions {
			if err := q.validate(i + 1); err != nil {
				return nil, err
			}
			p.Questions[i] = q.unescaped()
		}
		return askUserCall{p.Questions}, nil
	})
}

// validate makes Gemini CLI's checks of question n (1-based).
func (q askQuestion) validate(n int) error {
	if q.Type == questionChoice {
		if len(q.Options) < 2 {
			return fmt.Errorf("Question %d: type='choice' requires 'options' array with 2-4 items.", n)
		}
		if len(q.Options) > 4 {
			return fmt.Errorf("Question %d: 'options' array must have at most 4 items.", n)
		}
	}
	for j, o := range q.Options {
		if strings.TrimSpace(o.Label) == "" {
			return fmt.Errorf("Question %d, option %d: 'label' is required and must be a non-empty string.", n, j+1)
		}
	}
	return nil
}

// unescaped turns the literal \n a model may write into line breaks, as
// Gemini CLI does, and trims the options' descriptions.
func (q askQuestion) unescaped() askQuestion {
	unescape := strings.NewReplacer(`\r\n`, "\n", `\n`, "\n").Replace
	q.Question, q.Header, q.Placeholder = unescape(q.Question), unescape(q.Header), unescape(q.Placeholder)
	opts := make([]askOption, len(q.Options))
	for i, o := range q.Options {
		opts[i] = askOption{Label: unescape(o.Label), Description: unescape(strings.TrimSpace(o.Description))}
	}
	q.Options = opts
	return q
}

// yesNo are the options of a yesno question, as Gemini CLI shows them.
var yesNo = []askOption{{Label: "Yes"}, {Label: "No"}}

// options are what the user chooses from: a choice's options, Yes and No,
// or none for a text question. The options' ids are their positions.
func (q askQuestion) options() []askOption {
	switch q.Type {
	case questionChoice:
		return q.Options
	case questionYesNo:
		return yesNo
	}
	return nil
}

// asked is q as a front end presents it. Every type takes the user's own
// words too: text is nothing else, and Gemini CLI adds "Other" to the
// others.
func (q askQuestion) asked() dialog.Question {
	opts := q.options()
	out := dialog.Question{Kind: dialog.QuestionAskUser, Title: q.Header, Text: q.Question, Multiple: q.Type == questionChoice && q.MultiSelect, FreeText: true}
	for i, o := range opts {
		out.Options = append(out.Options, dialog.Option{ID: strconv.Itoa(i), Label: o.Label, Description: o.Description})
	}
	return out
}

// answerText is the user's answer as Gemini CLI's dialog writes it: the
// chosen options' labels in their order, then the user's own words,
// joined by ", "; "" when the user gave none.
func (q askQuestion) answerText(a dialog.Answer) string {
	var parts []string
	for i, o := range q.options() {
		if slices.Contains(a.Chosen, strconv.Itoa(i)) {
			parts = append(parts, o.Label)
		}
	}
	if text := strings.TrimSpace(a.Text); text != "" {
		parts = append(parts, text)
	}
	return strings.Join(parts, ", ")
}

type askUserCall struct{ questions []askQuestion }

// Title is Gemini CLI's description of the call.
func (c askUserCall) Title() string {
	texts := make([]string, len(c.questions))
	for i, q := range c.questions {
		texts[i] = q.Question
	}
	return "Asking user: " + strings.Join(texts, ", ")
}

// Confirmation is nil: asking is the user's involvement.
func (askUserCall) Confirmation() *Confirmation { return nil }

// Execute asks the questions one after another. The first one the user
// dismisses dismisses them all, as closing Gemini CLI's dialog does; a
// question answered with nothing is left out of the answers.
func (c askUserCall) Execute(ctx context.Context, info CallInfo) (Result, error) {
	if info.Ask == nil {
		return Result{Error: "No front end can put questions to the user. " + askNobodyHere}, nil
	}
	answers := map[string]string{}
	var notes []string
	for i, q := range c.questions {
		a, err := info.Ask(ctx, q.asked())
		switch {
		case ctx.Err() != nil:
			return Result{}, ctx.Err()
		case errors.Is(err, dialog.ErrCannotAsk):
			return Result{Error: fmt.Sprintf("The user could not be asked: %v. %s", err, askNobodyHere)}, nil
		case err != nil:
			return Result{Error: fmt.Sprintf("Asking the user failed: %v. %s", err, askGoOn)}, nil
		case a.Declined:
			return Result{Output: askDismissed, Display: "User dismissed dialog"}, nil
		}
		if text := c.questions[i].answerText(a); text != "" {
			answers[strconv.Itoa(i)] = text
		}
		if a.Note != "" && !slices.Contains(notes, a.Note) {
			notes = append(notes, a.Note)
		}
	}
	output := answersJSON(answers)
	// Gemini CLI's dialog offers everything, so its text has no notes.
	for _, n := range notes {
		output += "\nNote: " + n
	}
	return Result{Output: output, Display: c.display(answers)}, nil
}

// answersJSON is {"answers": {...}} as JSON.stringify writes it: no HTML
// escaping. The keys, question positions below 5, sort as numbers.
func answersJSON(answers map[string]string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]any{"answers": answers}) // strings always encode
	return strings.TrimSuffix(b.String(), "\n")
}

// display is Gemini CLI's: each answer after its question's header.
func (c askUserCall) display(answers map[string]string) string {
	if len(answers) == 0 {
		return "User submitted without answering questions."
	}
	var b strings.Builder
	b.WriteString("**User answered:**")
	for i, q := range c.questions {
		answer, ok := answers[strconv.Itoa(i)]
		if !ok {
			continue
		}
		prefix := "  " + q.Header + " → "
		indent := strings.Repeat(" ", len([]rune(prefix)))
		b.WriteString("\n" + prefix + strings.ReplaceAll(answer, "\n", "\n"+indent))
	}
	return b.String()
}
