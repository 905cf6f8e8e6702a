package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// The declaration is Gemini CLI's, word for word (its snapshot for
// gemini-2.5-pro, in testdata).
func TestAskUserDeclarationIsGeminiCLIs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "ask_user_declaration.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	encoded, err := json.Marshal(askUser().Declaration())
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(encoded, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("declaration:\n%s\nwant Gemini CLI's:\n%s", encoded, b)
	}
}

func choiceQuestion(multi bool) map[string]any {
	return map[string]any{
		"header": "Database", "question": "Which database?", "type": "choice", "multiSelect": multi,
		"options": []any{
			map[string]any{"label": "PostgreSQL", "description": "  Relational.  "},
			map[string]any{"label": "SQLite", "description": "Embedded."},
			map[string]any{"label": "Both", "description": ""},
		},
	}
}

// scriptedAsk answers the questions in turn, recording them.
func scriptedAsk(asked *[]dialog.Question, answers ...dialog.Answer) AskFunc {
	return func(_ context.Context, q dialog.Question) (dialog.Answer, error) {
		*asked = append(*asked, q)
		if len(answers) == 0 {
			return dialog.Answer{}, errors.New("asked more questions than scripted")
		}
		a := answers[0]
		answers = answers[1:]
		return a, nil
	}
}

func runAskUser(t *testing.T, args map[string]any, ask AskFunc) Result {
	t.Helper()
	call, err := askUser().Build(args)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	res, err := call.Execute(context.Background(), CallInfo{SessionID: "s", CallID: "c", Ask: ask})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return res
}

// Each question goes to the front end as a Question; each answer comes
// back to the model as Gemini CLI's dialog writes it: chosen labels (in
// the options' order) then the user's words, joined by ", ", keyed by the
// question's position, and an unanswered question left out.
func TestAskUserAnswers(t *testing.T) {
	var asked []dialog.Question
	args := map[string]any{"questions": []any{
		choiceQuestion(true),
		map[string]any{"header": "Name", "question": `Project\nname?`, "type": "text", "placeholder": "my-app"},
		map[string]any{"header": "Deploy", "question": "Deploy now?", "type": "yesno"},
		map[string]any{"header": "Skip", "question": "Anything else?", "type": "text"},
	}}
	res := runAskUser(t, args, scriptedAsk(&asked,
		dialog.Answer{Chosen: []string{"2", "0"}, Text: " and <Redis> "},
		dialog.Answer{Text: "gemini-ls"},
		dialog.Answer{Chosen: []string{"1"}},
		dialog.Answer{},
	))
	if want := `{"answers":{"0":"PostgreSQL, Both, and <Redis>","1":"gemini-ls","2":"No"}}`; res.Output != want || res.Error != "" {
		t.Errorf("output %q (error %q), want %q", res.Output, res.Error, want)
	}
	wantAsked := []dialog.Question{
		{Kind: "ask_user", Title: "Database", Text: "Which database?", Multiple: true, FreeText: true, Options: []dialog.Option{
			{ID: "0", Label: "PostgreSQL", Description: "Relational."}, {ID: "1", Label: "SQLite", Description: "Embedded."}, {ID: "2", Label: "Both"},
		}},
		{Kind: "ask_user", Title: "Name", Text: "Project\nname?", FreeText: true},
		{Kind: "ask_user", Title: "Deploy", Text: "Deploy now?", FreeText: true, Options: []dialog.Option{{ID: "0", Label: "Yes"}, {ID: "1", Label: "No"}}},
		{Kind: "ask_user", Title: "Skip", Text: "Anything else?", FreeText: true},
	}
	if !reflect.DeepEqual(asked, wantAsked) {
		t.Errorf("asked:\n%+v\nwant:\n%+v", asked, wantAsked)
	}
	wantDisplay := "**User answered:**\n  Database → PostgreSQL, Both, and <Redis>\n  Name → gemini-ls\n  Deploy → No"
	if res.Display != wantDisplay {
		t.Errorf("display %q, want %q", res.Display, wantDisplay)
	}
}

// A single choice: multiSelect off, one label.
func TestAskUserSingleChoice(t *testing.T) {
	var asked []dialog.Question
	res := runAskUser(t, map[string]any{"questions": []any{choiceQuestion(false)}}, scriptedAsk(&asked, dialog.Answer{Chosen: []string{"1"}}))
	if want := `{"answers":{"0":"SQLite"}}`; res.Output != want {
		t.Errorf("output %q, want %q", res.Output, want)
	}
	if len(asked) != 1 || asked[0].Multiple {
		t.Errorf("asked %+v, want one single-choice question", asked)
	}
}

// What a front end could not offer the user is told to the model after
// the answers, once.
func TestAskUserNotes(t *testing.T) {
	var asked []dialog.Question
	note := "this editor offers one choice only"
	args := map[string]any{"questions": []any{choiceQuestion(true), choiceQuestion(true)}}
	res := runAskUser(t, args, scriptedAsk(&asked, dialog.Answer{Chosen: []string{"0"}, Note: note}, dialog.Answer{Chosen: []string{"1"}, Note: note}))
	if want := `{"answers":{"0":"PostgreSQL","1":"SQLite"}}` + "\nNote: " + note; res.Output != want {
		t.Errorf("output %q, want %q", res.Output, want)
	}
}

// Declining is an answer: the model is told the user dismissed the
// questions, and nothing more is asked.
func TestAskUserDeclined(t *testing.T) {
	var asked []dialog.Question
	args := map[string]any{"questions": []any{choiceQuestion(false), choiceQuestion(false)}}
	res := runAskUser(t, args, scriptedAsk(&asked, dialog.Answer{Declined: true}))
	if res.Output != "User dismissed ask_user dialog without answering." || res.Error != "" || res.Status != "" {
		t.Errorf("result %+v, want the dismissal", res)
	}
	if len(asked) != 1 {
		t.Errorf("asked %d questions after the first was declined", len(asked))
	}
}

// Answering nothing at all is Gemini CLI's empty submission.
func TestAskUserEmptySubmission(t *testing.T) {
	var asked []dialog.Question
	res := runAskUser(t, map[string]any{"questions": []any{choiceQuestion(false)}}, scriptedAsk(&asked, dialog.Answer{Text: "  "}))
	if res.Output != `{"answers":{}}` || res.Display != "User submitted without answering questions." {
		t.Errorf("result %+v", res)
	}
}

// Where nobody can answer (no front end that asks, or one that cannot),
// the model is told so, and to go on with its best judgement or stop.
func TestAskUserNobodyCanAnswer(t *testing.T) {
	args := map[string]any{"questions": []any{choiceQuestion(false)}}
	res := runAskUser(t, args, nil)
	if !strings.HasPrefix(res.Error, "No front end can put questions to the user. ") || !strings.HasSuffix(res.Error, askNobodyHere) {
		t.Errorf("without an AskFunc: %+v", res)
	}
	headless := func(context.Context, dialog.Question) (dialog.Answer, error) {
		return dialog.Answer{}, fmt.Errorf("%w: gemini-ls is running headless", dialog.ErrCannotAsk)
	}
	res = runAskUser(t, args, headless)
	if want := "The user could not be asked: cannot ask the user: gemini-ls is running headless. " + askNobodyHere; res.Error != want {
		t.Errorf("with a front end that cannot ask:\n%q\nwant\n%q", res.Error, want)
	}
}

// A front end that failed to ask (a malformed answer, a broken
// connection) is not said to have nobody to ask.
func TestAskUserAskingFailed(t *testing.T) {
	failing := func(context.Context, dialog.Question) (dialog.Answer, error) {
		return dialog.Answer{}, errors.New("gemini/ask: the answer chose option \"9\", which was not offered")
	}
	res := runAskUser(t, map[string]any{"questions": []any{choiceQuestion(false)}}, failing)
	want := `Asking the user failed: gemini/ask: the answer chose option "9", which was not offered. ` + askGoOn
	if res.Error != want {
		t.Errorf("error %q, want %q", res.Error, want)
	}
}

// A call cancelled while the user is asked ends with the context's error.
func TestAskUserCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	call, err := askUser().Build(map[string]any{"questions": []any{choiceQuestion(false)}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = call.Execute(ctx, CallInfo{Ask: func(ctx context.Context, _ dialog.Question) (dialog.Answer, error) {
		cancel()
		return dialog.Answer{}, ctx.Err()
	}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Execute = %v, want context.Canceled", err)
	}
}

// Bad arguments get the messages of Gemini CLI's validator and checks.
func TestAskUserValidation(t *testing.T) {
	q := func(edit func(map[string]any)) map[string]any {
		m := choiceQuestion(false)
		edit(m)
		return m
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "params must have required property 'questions'"},
		{map[string]any{"questions": "x"}, "params/questions must be array"},
		{map[string]any{"questions": []any{}}, "params/questions must NOT have fewer than 1 items"},
		{map[string]any{"questions": []any{q(keep), q(keep), q(keep), q(keep), q(keep)}}, "params/questions must NOT have more than 4 items"},
		{map[string]any{"questions": []any{q(func(m map[string]any) { delete(m, "header") })}}, "params/questions/0 must have required property 'header'"},
		{map[string]any{"questions": []any{q(func(m map[string]any) { m["type"] = "pick" })}}, "params/questions/0/type must be equal to one of the allowed values"},
		{map[string]any{"questions": []any{q(func(m map[string]any) { m["multiSelect"] = "yes" })}}, "params/questions/0/multiSelect must be boolean"},
		{map[string]any{"questions": []any{q(func(m map[string]any) { m["options"] = []any{map[string]any{"label": "a"}} })}}, "params/questions/0/options/0 must have required property 'description'"},
		{map[string]any{"questions": []any{q(func(m map[string]any) { m["options"] = []any{map[string]any{"label": "a", "description": ""}} })}}, "Question 1: type='choice' requires 'options' array with 2-4 items."},
		{map[string]any{"questions": []any{q(func(m map[string]any) {
			m["options"] = slices.Repeat([]any{map[string]any{"label": "a", "description": ""}}, 5)
		})}}, "Question 1: 'options' array must have at most 4 items."},
		{map[string]any{"questions": []any{q(func(m map[string]any) {
			m["options"] = []any{map[string]any{"label": "a", "description": ""}, map[string]any{"label": " ", "description": ""}}
		})}}, "Question 1, option 2: 'label' is required and must be a non-empty string."},
	} {
		_, err := askUser().Build(c.args)
		if err == nil || err.Error() != c.want {
			t.Errorf("Build(%v) = %v, want %q", c.args, err, c.want)
		}
	}
	call, err := askUser().Build(map[string]any{"questions": []any{choiceQuestion(false), map[string]any{"header": "N", "question": "Name?", "type": "text"}}})
	if err != nil {
		t.Fatal(err)
	}
	if call.Title() != "Asking user: Which database?, Name?" || kindOf(askUser()) != KindCommunicate || call.Confirmation() != nil {
		t.Errorf("title %q, kind %q, confirmation %v", call.Title(), kindOf(askUser()), call.Confirmation())
	}
}

// keep leaves a question as it is.
func keep(map[string]any) {}
