package lsp

import (
	"errors"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// A turn that simply ended ends its part of the transcript with the rule
// alone; one that stopped early says why in words, never in the
// protocol's stop reason.
func TestTranscriptEndsInWords(t *testing.T) {
	for _, tc := range []struct {
		o    conversation.Outcome
		want string
	}{
		{conversation.Outcome{Ending: conversation.Done, Text: "Done."}, "Done.\n\n---\n\n"},
		{conversation.Outcome{Ending: conversation.Cancelled}, "Done.\n\n_Cancelled._\n\n---\n\n"},
		{conversation.Outcome{Ending: conversation.LoopDetected}, "Done.\n\n_Stopped because the model was repeating itself (a loop was detected). Rephrase or narrow the request to go on._\n\n---\n\n"},
		{conversation.Outcome{Ending: conversation.Failed, Err: errors.New("quota exhausted")}, "Done.\n\n_Failed: quota exhausted._\n\n---\n\n"},
	} {
		tr := &transcript{}
		tr.text(dialog.Subagent{}, "Done.")
		tr.end(tc.o)
		got := tr.render()
		if got != tc.want {
			t.Errorf("%s: transcript ends %q, want %q", tc.o.Ending.Reason(), got, tc.want)
		}
		if strings.Contains(got, tc.o.Ending.Reason()) {
			t.Errorf("%s: the stop reason's protocol name is in the transcript: %q", tc.o.Ending.Reason(), got)
		}
	}
}

// The user's answer to a call's question is recorded once, under the
// call's line, whenever the call ends; a subagent's call's under its
// line; a question no call asked is quoted with its answer, in place.
func TestTranscriptRecordsAnswersOnce(t *testing.T) {
	main := dialog.Subagent{}
	sub := dialog.Subagent{CallID: "call_2", Name: "generalist"}
	tr := &transcript{}
	tr.answered("", "Do you trust the files in this folder?", "Don't trust")
	tr.toolCall(main, dialog.ToolCall{CallID: "call_1", Name: "run_shell_command", Title: "Shell touch marker"})
	tr.toolCall(main, dialog.ToolCall{CallID: "call_2", Name: "invoke_agent", Title: "Delegating to agent 'generalist'"})
	tr.answered("call_1", "Allow shell command?", "declined")
	tr.toolCall(sub, dialog.ToolCall{CallID: "call_2.call_1", Name: "replace", Title: "Edit a.go"})
	tr.answered("call_2.call_1", "Apply the edit?", "Always Apply")
	tr.toolResult(sub, dialog.ToolResult{CallID: "call_2.call_1", Name: "replace", Status: dialog.StatusOK})
	tr.toolResult(main, dialog.ToolResult{CallID: "call_1", Name: "run_shell_command", Status: dialog.StatusCancelled})
	tr.answered("call_9", "Switch to gemini-2.5-flash?", "Allow Once")
	tr.toolResult(main, dialog.ToolResult{CallID: "call_2", Name: "invoke_agent", Status: dialog.StatusOK})
	want := "> Do you trust the files in this folder? → Don't trust\n\n" +
		"- **Shell touch marker** — cancelled\n  → declined\n\n" +
		"- **Delegating to agent 'generalist'** — ok\n  - **Edit a.go** — ok\n    → Always Apply\n\n" +
		"> Switch to gemini-2.5-flash? → Allow Once\n\n"
	if got := tr.render(); got != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", got, want)
	}
}

// An answer is in the words of the choice the user made, as the
// question offered it.
func TestAnswerWords(t *testing.T) {
	q := dialog.Question{Options: []dialog.Option{{ID: "pg", Label: "PostgreSQL"}, {ID: "lite", Label: "SQLite"}}, FreeText: true}
	always := dialog.ConfirmRequest{CanAllowAlways: true}
	prefixed := dialog.ConfirmRequest{CanAllowAlways: true, AlwaysPrefixes: []string{"go test"}}
	for _, tc := range []struct{ got, want string }{
		{askAnswer(q, dialog.Answer{Chosen: []string{"lite"}}), "SQLite"},
		{askAnswer(q, dialog.Answer{Chosen: []string{"pg", "lite"}, Text: "both, really"}), "PostgreSQL, SQLite, “both, really”"},
		{askAnswer(q, dialog.Answer{Declined: true}), "declined"},
		{confirmAnswer(dialog.ProceedOnce, always), "Allow Once"},
		{confirmAnswer(dialog.ProceedAlways, always), "Always Allow"},
		{confirmAnswer(dialog.ProceedAlways, dialog.ConfirmRequest{}), "Allow Once"},
		{confirmAnswer(dialog.ProceedAlwaysPrefix, prefixed), "Always Allow go test …"},
		{confirmAnswer(dialog.Cancel, always), "declined"},
		{landAnswer(dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Applied}}), "Apply"},
		{landAnswer(dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Applied}, AllowAlways: true}), "Always Apply"},
		{landAnswer(dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Declined}}), "declined"},
		{landAnswer(dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Stale}}), ""},
		{trustAnswer("TRUST_FOLDER"), "Trust folder"},
		{trustAnswer(""), "closed without an answer"},
	} {
		if tc.got != tc.want {
			t.Errorf("answer %q, want %q", tc.got, tc.want)
		}
	}
}

// A structured report reads as its summary, then its other fields as a
// short list in words, in the report's order; any other report as it is.
func TestReportAsProse(t *testing.T) {
	display := "```json\n" + `{
  "SummaryOfFindings": "The project is one file, numbers.txt.",
  "ExplorationTrace": ["Listed the project root.", "Read numbers.txt."],
  "RelevantLocations": [{"FilePath": "numbers.txt", "Reasoning": "The only file.\nNothing else.", "KeySymbols": []}],
  "open_questions": null
}` + "\n```"
	want := "The project is one file, numbers.txt.\n\n" +
		"Details:\n" +
		"- Exploration trace:\n" +
		"  - Listed the project root.\n" +
		"  - Read numbers.txt.\n" +
		"- Relevant locations:\n" +
		"  - File path: numbers.txt\n" +
		"    Reasoning: The only file.\n" +
		"    Nothing else.\n" +
		"    Key symbols: none\n" +
		"- Open questions: none"
	if got := reportMarkdown(display); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
	for _, text := range []string{"The parser is in foo.go.", "```json\n[1, 2]\n```", "```json\n{broken\n```", "```go\nfunc main() {}\n```"} {
		if got := reportMarkdown(text); got != text {
			t.Errorf("report %q shown as %q", text, got)
		}
	}
	// A report of no summary is its fields.
	if got, want := reportMarkdown("```json\n{\"Files\": [\"a.go\"]}\n```"), "Details:\n- Files:\n  - a.go"; got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
}

// A switch of approval mode is in the transcript, named as Gemini CLI
// 0.61's footer names modes, never by the setting's value.
func TestTranscriptNamesApprovalModes(t *testing.T) {
	tr := &transcript{}
	v := commandView{tr: tr}
	for _, m := range []dialog.ApprovalMode{dialog.ApprovalPlan, dialog.ApprovalDefault, dialog.ApprovalAutoEdit, dialog.ApprovalYolo} {
		v.Show(t.Context(), dialog.Subagent{}, dialog.ModeEvent{Mode: m})
	}
	v.Show(t.Context(), dialog.Subagent{CallID: "call_1"}, dialog.ModeEvent{Mode: dialog.ApprovalYolo}) // a subagent's is not the session's
	want := "> Approval mode: plan\n\n> Approval mode: manual\n\n> Approval mode: auto-accept edits\n\n> Approval mode: YOLO\n\n"
	if got := tr.render(); got != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", got, want)
	}
}

// Notices and errors of several lines are quoted line by line: an editor
// that shows Markdown as it is shows each line quoted.
func TestTranscriptQuotesEveryLine(t *testing.T) {
	tr := &transcript{}
	tr.text(dialog.Subagent{}, "Working.")
	tr.notice(dialog.Subagent{}, "Switched to gemini-2.5-flash.\n\nThe quota of gemini-2.5-pro is used up.")
	tr.failed(dialog.Subagent{}, errors.New("quota exhausted"))
	want := "Working.\n\n> Switched to gemini-2.5-flash.\n>\n> The quota of gemini-2.5-pro is used up.\n\n> **Error:** quota exhausted\n\n"
	if got := tr.render(); got != want {
		t.Errorf("transcript:\n%q\nwant:\n%q", got, want)
	}
}
