package lsp

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// A gemini/ask answer the question did not allow is refused, so the model
// is told asking failed rather than given an answer the user could not
// have given; a declined answer is taken whatever else it holds.
func TestAskResultCheck(t *testing.T) {
	q := dialog.Question{Options: []dialog.Option{{ID: "0", Label: "A"}, {ID: "1", Label: "B"}}}
	multi := q
	multi.Multiple, multi.FreeText = true, true
	for _, c := range []struct {
		name string
		q    dialog.Question
		res  askResult
		want string
	}{
		{"one option", q, askResult{dialog.Answer{Chosen: []string{"1"}}}, ""},
		{"several where allowed", multi, askResult{dialog.Answer{Chosen: []string{"0", "1"}, Text: "and C"}}, ""},
		{"declined", q, askResult{dialog.Answer{Chosen: []string{"9"}, Declined: true}}, ""},
		{"not offered", q, askResult{dialog.Answer{Chosen: []string{"9"}}}, `the answer chose option "9", which was not offered`},
		{"several where one", q, askResult{dialog.Answer{Chosen: []string{"0", "1"}}}, "the answer chose 2 options of a question that allows one"},
		{"text not allowed", q, askResult{dialog.Answer{Text: "C"}}, "the answer has text, which the question did not allow"},
	} {
		err := c.res.check(c.q)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: check = %q, want %q", c.name, got, c.want)
		}
	}
}
