package tools

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

func TestWriteFileCreates(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	tool := tw.proposing(p, WriteFileName, Options{})

	call := build(t, tool, map[string]any{"file_path": "notes/CHANGES.md", "content": "# Changes\n\n- greet now says Hi.\n"})
	if call.Title() != "WriteFile notes/CHANGES.md" || kindOf(tool) != dialog.KindEdit || !reflect.DeepEqual(call.Confirmation(), EditConfirmation(tw.abs("notes/CHANGES.md"))) {
		t.Errorf("Title %q Kind %q Confirmation %v", call.Title(), kindOf(tool), call.Confirmation())
	}
	res, err := call.Execute(context.Background(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	wantOutput(t, res, "Successfully created and wrote to new file: "+tw.abs("notes/CHANGES.md"))
	change := p.only(t)
	if change.Path != tw.abs("notes/CHANGES.md") || change.Exists || change.Before != "" || change.After != "# Changes\n\n- greet now says Hi.\n" {
		t.Errorf("change = %+v", change)
	}
	wantContains(t, res.Display, "```diff\n")
	wantContains(t, res.Display, "+++ b/notes/CHANGES.md\n")
	wantContains(t, res.Display, "+- greet now says Hi.\n")
	// The tool itself never writes: applying is the proposer's job.
	if _, err := os.Stat(tw.abs("notes")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("write_file touched disk: %v", err)
	}
}

func TestWriteFileOverwritesKeepingLineEndings(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "old\r\ntext\r\n"})
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	res := run(t, tw.proposing(p, WriteFileName, Options{}), map[string]any{"file_path": tw.abs("a.txt"), "content": "new\ntext\n"})
	wantOutput(t, res, "Successfully overwrote file: "+tw.abs("a.txt"))
	if c := p.only(t); !c.Exists || c.Before != "old\r\ntext\r\n" || c.After != "new\r\ntext\r\n" {
		t.Errorf("change = %+v", c)
	}
}

func TestWriteFileProposesAgainstOverlay(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "disk\n"})
	tw.open("a.txt", "buffer\n")
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	run(t, tw.proposing(p, WriteFileName, Options{}), map[string]any{"file_path": "a.txt", "content": "model\n"})
	if c := p.only(t); !c.Open || c.Before != "buffer\n" || c.After != "model\n" || c.Version != 1 {
		t.Errorf("change = %+v", c)
	}
}

func TestWriteFileUnchangedContentProposesNothing(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "same\n"})
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	res := run(t, tw.proposing(p, WriteFileName, Options{}), map[string]any{"file_path": "a.txt", "content": "same\n"})
	wantOutput(t, res, "The file "+tw.abs("a.txt")+" already has exactly this content; nothing was changed.")
	if len(p.changes) != 0 {
		t.Errorf("proposed %d changes", len(p.changes))
	}
}

// The decision mapping is shared by write_file and replace.
func TestEditDecisions(t *testing.T) {
	for _, tc := range []struct {
		name     string
		decision dialog.Decision
		output   string
		err      string
		status   dialog.Status
	}{
		{
			name:     "declined with reason",
			decision: dialog.Decision{Outcome: dialog.Declined, Reason: "not now."},
			err:      "This change was not applied: not now. The file was not modified.",
			status:   dialog.StatusRejected,
		},
		{
			name:     "declined without reason",
			decision: dialog.Decision{Outcome: dialog.Declined},
			err:      "This change was not applied: the user declined it. The file was not modified.",
			status:   dialog.StatusRejected,
		},
		{
			name:     "modified",
			decision: dialog.Decision{Outcome: dialog.Modified, Content: "user\r\nversion\r\n"},
			output:   "The user modified your proposed change before accepting it. The file {path} now contains:\nuser\nversion\n",
			status:   "",
		},
		{
			name:     "stale",
			decision: dialog.Decision{Outcome: dialog.Stale, Reason: "document changed"},
			err:      "The file {path} changed before this change could be applied, so it did not land as proposed (document changed). Read the file again and retry.",
			status:   dialog.StatusError,
		},
		{
			name:     "stale with what the file holds",
			decision: dialog.Decision{Outcome: dialog.Stale, Reason: "document changed", Content: "// typed\r\nhello\r\n"},
			err:      "The file {path} changed before this change could be applied, so it did not land as proposed (document changed). The file now contains:\n// typed\nhello\n",
			status:   dialog.StatusError,
		},
	} {
		for _, toolName := range []string{WriteFileName, ReplaceName} {
			t.Run(tc.name+"/"+toolName, func(t *testing.T) {
				tw := newTestWorkspace(t, map[string]string{"a.txt": "hello\nworld\n"})
				p := &fakeProposer{decision: tc.decision}
				tool := tw.proposing(p, toolName, Options{})
				args := map[string]any{"file_path": "a.txt", "content": "hello\nthere\n"}
				if toolName == ReplaceName {
					args = map[string]any{"file_path": "a.txt", "old_string": "world", "new_string": "there"}
				}
				res := run(t, tool, args)
				path := tw.abs("a.txt")
				output := strings.ReplaceAll(tc.output, "{path}", path)
				if toolName == WriteFileName && tc.decision.Outcome == dialog.Applied {
					output = "Successfully overwrote file: " + path
				}
				if res.Output != output || res.Error != strings.ReplaceAll(tc.err, "{path}", path) || res.Status != tc.status {
					t.Errorf("got Output %q Error %q Status %q", res.Output, res.Error, res.Status)
				}
				if c := p.only(t); c.After != "hello\nthere\n" {
					t.Errorf("proposed %q", c.After)
				}
				if got := tw.read("a.txt"); got != "hello\nworld\n" {
					t.Errorf("disk changed to %q", got)
				}
			})
		}
	}
}

func TestEditProposerFailures(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()

	call := build(t, tw.proposing(&fakeProposer{err: errors.New("client gone")}, WriteFileName, Options{}), map[string]any{"file_path": "a.txt", "content": "b\n"})
	if _, err := call.Execute(ctx, CallInfo{}); err == nil || err.Error() != "proposing change to "+tw.abs("a.txt")+": client gone" {
		t.Errorf("proposer error: %v", err)
	}
	// Without anyone to land it, the call only proposes: the tool never
	// writes, and its proposal decides nothing.
	call = build(t, tw.tool(WriteFileName, Options{}), map[string]any{"file_path": "a.txt", "content": "b\n"})
	res, err := call.Execute(ctx, CallInfo{})
	if err != nil || res.Proposal == nil || res.Proposal.Change.After != "b\n" || res.Output != "" || res.Error != "" {
		t.Errorf("unlanded edit = %+v, %v; want only its proposal", res, err)
	}
	if got := tw.read("a.txt"); got != "a\n" {
		t.Errorf("the tool wrote %q itself", got)
	}
	call = build(t, tw.proposing(&fakeProposer{decision: dialog.Decision{Outcome: "shrug"}}, WriteFileName, Options{}), map[string]any{"file_path": "a.txt", "content": "b\n"})
	if _, err := call.Execute(ctx, CallInfo{}); err == nil || !strings.Contains(err.Error(), `unknown outcome "shrug"`) {
		t.Errorf("unknown outcome: %v", err)
	}
}

func TestWriteFileErrors(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"dir/": ""})
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	tool := tw.proposing(p, WriteFileName, Options{})

	wantError(t, run(t, tool, map[string]any{"file_path": "dir", "content": "x"}), "Path is a directory, not a file: "+tw.abs("dir"))
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"content": "x"}, "params must have required property 'file_path'"},
		{map[string]any{"file_path": "a.txt"}, "params must have required property 'content'"},
		{map[string]any{"file_path": "a.txt", "content": 1.0}, "params/content must be string"},
		{map[string]any{"file_path": "", "content": "x"}, "The 'file_path' parameter must be non-empty."},
	} {
		if got := buildError(t, tool, tc.args); got != tc.want {
			t.Errorf("Build(%v) error = %q, want %q", tc.args, got, tc.want)
		}
	}
	if len(p.changes) != 0 {
		t.Errorf("proposed %d changes", len(p.changes))
	}
}

// A review that took one of an edit's two changes and dropped the other
// is told as that: to the model with the count and what the file holds,
// to the user in the call's outcome and the first line of its display.
func TestEditAcceptedInPart(t *testing.T) {
	before := "a\nb\nc\nd\ne\nf\n"
	proposal := "A\nb\nc\nd\ne\nF\n" // two changes four lines apart
	for _, c := range []struct {
		name, final, outcome, said string
	}{
		{"one change of two", "A\nb\nc\nd\ne\nf\n", "accepted in part: 1 of 2 changes", "The user accepted 1 of the 2 separate changes you proposed and rejected the others."},
		{"a line of the user's own", "A\nb\nc\nd\ne\nF\ng\n", "accepted with your changes", "The user modified your proposed change before accepting it."},
	} {
		t.Run(c.name, func(t *testing.T) {
			tw := newTestWorkspace(t, map[string]string{"a.txt": before})
			p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Modified, Content: c.final}}
			res := run(t, tw.proposing(p, WriteFileName, Options{}), map[string]any{"file_path": "a.txt", "content": proposal})
			if want := c.said + " The file " + tw.abs("a.txt") + " now contains:\n" + c.final; res.Output != want {
				t.Errorf("Output = %q, want %q", res.Output, want)
			}
			if res.Outcome != c.outcome {
				t.Errorf("Outcome = %q, want %q", res.Outcome, c.outcome)
			}
			if first, _, _ := strings.Cut(res.Display, "\n"); first != strings.ToUpper(c.outcome[:1])+c.outcome[1:]+"." {
				t.Errorf("Display starts %q", first)
			}
			if res.Status != "" || res.Error != "" {
				t.Errorf("Status %q Error %q", res.Status, res.Error)
			}
		})
	}
}
