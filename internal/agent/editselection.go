package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/apierror"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// An edit of a selection is the user's instruction for the text they
// selected, carried out by one model call (no tools, no history, no
// session) whose answer replaces the selection. The rewrite is then an
// edit like the model's own: it passes the approval door as a replace
// call would, and the front end lands it, showing it for review where the
// door says to ask.

// selectionContextLines is how many lines before and after the selection
// the model sees of the file.
const selectionContextLines = 50

// Markers of the selection in the excerpt the model reads.
const (
	selectionOpen  = "<selection>"
	selectionClose = "</selection>"
)

const selectionSystem = `You are Gemini, editing code in the user's editor. The user selected part of a file and gave an instruction for it.
Answer with the text that replaces the selection, and nothing else: exactly as it is to appear in the file, with its indentation, without Markdown fences, explanations, the selection markers or the text around the selection.
Change only what the instruction asks for, and keep to the file's style. When the instruction needs no change, answer with the selection as it is.`

// EditSelection has the model rewrite req's selection as its instruction
// says, and lands the rewrite through lander, the caller's (no session's
// turn asks it): asked about where the approval door says to (as a
// replace of the file would be), applied unasked where it allows edits,
// refused where it refuses them. A rewrite that changes nothing is
// SelectionUnchanged and not proposed; a file that changed while the model wrote is
// Stale. Nothing of it is recorded in any session.
func (a *Agent) EditSelection(ctx context.Context, req dialog.SelectionEdit, lander dialog.ChangeLander) (dialog.SelectionEdited, error) {
	ws := a.cfg.Workspace
	if ws == nil {
		return dialog.SelectionEdited{}, errors.New("no workspace to edit in")
	}
	if req.Start < 0 || req.Start > req.End || req.End > len(req.Text) {
		return dialog.SelectionEdited{}, fmt.Errorf("the selection %d-%d is not in the file's %d bytes", req.Start, req.End, len(req.Text))
	}
	model := a.activeModel()
	replacement, err := a.rewriteSelection(ctx, model, req)
	if err != nil {
		return dialog.SelectionEdited{}, err
	}
	out := dialog.SelectionEdited{Model: model}
	selection := req.Text[req.Start:req.End]
	if toLF(replacement) == toLF(selection) {
		out.Outcome = dialog.SelectionUnchanged
		return out, nil
	}
	after := req.Text[:req.Start] + replacement + req.Text[req.End:]
	change, err := ws.PrepareChange(ctx, req.Path, after)
	if err != nil {
		return dialog.SelectionEdited{}, fmt.Errorf("preparing the edit of %s: %w", req.Path, err)
	}
	if change.Before != req.Text {
		out.Decision = dialog.Decision{Outcome: dialog.Stale, Reason: "the file changed while Gemini was writing the edit"}
		return out, nil
	}
	door := a.selectionDoor(req.Path, selection, replacement)
	if door.refusal != "" {
		out.Decision = dialog.Decision{Outcome: dialog.Refused, Reason: door.refusal}
		return out, nil
	}
	if lander == nil {
		return dialog.SelectionEdited{}, errNoLander
	}
	landing, err := lander.Land(ctx, dialog.LandRequest{Change: change, Ask: door.ask})
	if err != nil {
		return dialog.SelectionEdited{}, fmt.Errorf("proposing the edit of %s: %w", req.Path, err)
	}
	out.Decision = landing.Decision
	return out, nil
}

// selectionDoor is the approval door's verdict on the rewrite of a
// selection of path, decided as for a replace call making it: the
// approval mode, the settings' tools.allowed and the policy rules decide
// whether to ask, and plan mode or a rule may refuse. No session's
// "always allow" counts: there is no session.
func (a *Agent) selectionDoor(path, selection, replacement string) verdict {
	door := newApprovals(a.approvalMode, func() string { return "" }, a.annotations, a.cfg.AllowedKeys, a.cfg.TrustedTools)
	door.policy, door.always, door.protected, door.included = a.cfg.Policy, a.cfg.AlwaysAllow, a.cfg.Protected, a.throughIncluded
	call := policy.Call{Name: tools.ReplaceName, Args: map[string]any{"file_path": path, "old_string": selection, "new_string": replacement}}
	return door.decide(call, tools.ReplaceName, tools.EditConfirmation(path))
}

// rewriteSelection asks model, once, for the text replacing req's
// selection, and returns it as the file is to hold it (cleanSelection).
func (a *Agent) rewriteSelection(ctx context.Context, model string, req dialog.SelectionEdit) (string, error) {
	config := a.answerConfig(selectionSystem)
	contents := []*genai.Content{genai.NewContentFromText(selectionPrompt(a.cfg.Workspace.Display(req.Path), req), genai.RoleUser)}
	var resp *genai.GenerateContentResponse
	start := a.cfg.Now()
	err := retrying(ctx, a.cfg.Retry, func() error {
		var err error
		resp, err = a.cfg.Generator.GenerateContent(ctx, model, contents, config)
		return err
	}, nil)
	if err != nil {
		a.log.error(model, "", a.cfg.Now().Sub(start), err)
		return "", apierror.Explain(err, apierror.Context{AuthType: a.cfg.AuthType, EditorKey: a.cfg.EditorKey, Model: model})
	}
	text, err := answerText(resp)
	if err != nil {
		return "", fmt.Errorf("%s wrote no edit: %w", model, err)
	}
	return cleanSelection(text, req.Text[req.Start:req.End]), nil
}

// selectionPrompt is what the model is asked: the file's path and
// language, the selection between markers with the lines around it, and
// the instruction.
func selectionPrompt(name string, req dialog.SelectionEdit) string {
	lang := req.Language
	if lang == "" {
		lang = strings.TrimPrefix(filepath.Ext(req.Path), ".")
	}
	before, after := req.Text[:req.Start], req.Text[req.End:]
	// The lines before start at a line's start, and those after end at
	// a line's end, however far into a line the selection starts or ends.
	from := lineStartBefore(before, selectionContextLines)
	n := selectionContextLines
	if req.End > 0 && req.Text[req.End-1] != '\n' {
		n++ // the rest of the selection's last line comes first
	}
	to := len(after)
	if i := nthIndex(after, '\n', n); i >= 0 {
		to = i
	}
	first := strings.Count(req.Text[:req.Start], "\n") + 1
	last := first + strings.Count(strings.TrimSuffix(req.Text[req.Start:req.End], "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "File: %s\nLanguage: %s\n", name, lang)
	if first == last {
		fmt.Fprintf(&b, "The selection is on line %d.\n", first)
	} else {
		fmt.Fprintf(&b, "The selection is lines %d-%d.\n", first, last)
	}
	fmt.Fprintf(&b, "\nThe file around the selection, which is between %s and %s:\n\n", selectionOpen, selectionClose)
	b.WriteString(before[from:] + selectionOpen + req.Text[req.Start:req.End] + selectionClose + after[:to])
	fmt.Fprintf(&b, "\n\nInstruction: %s\n\nAnswer with the text that replaces the selection.", strings.TrimSpace(req.Instruction))
	return b.String()
}

// lineStartBefore is where the n lines before the end of text start: the
// start of the line n line breaks back, or 0.
func lineStartBefore(text string, n int) int {
	end := len(text)
	for range n + 1 {
		i := strings.LastIndexByte(text[:end], '\n')
		if i < 0 {
			return 0
		}
		end = i
	}
	return end + 1
}

// nthIndex is the index of the nth c in s (n from 1), or -1.
func nthIndex(s string, c byte, n int) int {
	at := -1
	for range n {
		i := strings.IndexByte(s[at+1:], c)
		if i < 0 {
			return -1
		}
		at += i + 1
	}
	return at
}

// answerText is the text of resp's first candidate, its thoughts left
// out; an answer cut short or blocked is an error, an empty one not (the
// rewrite deletes the selection).
func answerText(resp *genai.GenerateContentResponse) (string, error) {
	if resp == nil || len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		if resp != nil && resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
			return "", fmt.Errorf("the request was blocked (%s)", resp.PromptFeedback.BlockReason)
		}
		return "", errors.New("the answer had no candidate")
	}
	c := resp.Candidates[0]
	switch c.FinishReason {
	case "", genai.FinishReasonStop:
	default:
		return "", fmt.Errorf("the answer stopped early (%s)", c.FinishReason)
	}
	var b strings.Builder
	if c.Content != nil {
		for _, p := range c.Content.Parts {
			if p != nil && !p.Thought {
				b.WriteString(p.Text)
			}
		}
	}
	return b.String(), nil
}

// cleanSelection is the model's answer as the text to put in place of
// selection: a Markdown fence around all of it, or the selection
// markers, taken off; and ending in a line break exactly when the
// selection does, as models add or drop the last one at will.
func cleanSelection(answer, selection string) string {
	text := answer
	if !strings.HasPrefix(strings.TrimSpace(selection), "```") {
		text = unfence(text)
	}
	text = strings.TrimPrefix(text, selectionOpen)
	if t, ok := strings.CutSuffix(strings.TrimRight(text, "\n"), selectionClose); ok {
		text = t
	}
	if text == "" {
		return ""
	}
	text = strings.TrimRight(text, "\r\n")
	if strings.HasSuffix(selection, "\n") {
		text += "\n" // the file's line ending, once the change is prepared
	}
	return text
}

// unfence takes off a Markdown code fence around the whole of text.
func unfence(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return text
	}
	open, body, ok := strings.Cut(t, "\n")
	if !ok || strings.Contains(open[3:], "`") {
		return text
	}
	body = strings.TrimSuffix(body, "```")
	return strings.TrimSuffix(body, "\n")
}

// toLF is text with CRLF line endings made LF.
func toLF(text string) string { return strings.ReplaceAll(text, "\r\n", "\n") }
