package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// ignoredReferenceReason is why an @path is not read when the ignore
// rules (or .git) keep its file from the model, in the words a prompt's
// whole-file @path is refused with.
const ignoredReferenceReason = "ignored by .gitignore or .geminiignore"

// Lines are the lines of a text file an @path#L range reads.
type Lines struct {
	// Text is the lines, each ending in a line break except the file's
	// last when it has none; a line longer than read_file shows is cut.
	Text string
	// First and Last are the lines read, 1-based and inclusive; Total is
	// how many the file has.
	First, Last, Total int
}

// ReadLines reads lines first to last (1-based, inclusive) of the file abs,
// as read_file reads a range of it: the editor's unsaved text when it is
// open, at most 2,000 lines, each cut at 2,000 characters. A range that
// runs past the end stops there, as one longer than 2,000 lines stops
// after them; Lines says what was read. why says, for the user and the
// model, why nothing could be (a file the ignore rules or .git keep from
// the model, by its path or the file read, as a whole file's @path is
// kept; a directory, a file that is not text, a range that starts after
// the end); err is a failure to read.
func ReadLines(ctx context.Context, ws *workspace.Workspace, abs string, first, last int) (lines Lines, why string, err error) {
	switch {
	case first < 1:
		return Lines{}, "lines are numbered from 1", nil
	case last < first:
		return Lines{}, fmt.Sprintf("the line range %d-%d ends before it starts", first, last), nil
	case hidden(ctx, ws, abs, false):
		return Lines{}, ignoredReferenceReason, nil
	}
	if isDir, err := ws.Stat(abs); err != nil {
		return Lines{}, "", fmt.Errorf("checking %s: %w", abs, err)
	} else if isDir {
		return Lines{}, "a line range needs a file, and this is a directory", nil
	}
	if mime, _, ok := mediaType(abs); ok {
		return Lines{}, fmt.Sprintf("a line range needs a text file, and this is %s", mime), nil
	}
	f, err := ws.ReadFile(ctx, abs, maxReadSize)
	var tooLarge *workspace.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return Lines{}, fmt.Sprintf("the file is larger than %d MB", maxReadSize>>20), nil
	case err != nil:
		return Lines{}, "", fmt.Errorf("reading %s: %w", abs, err)
	case readHidden(ctx, ws, abs, f, false):
		return Lines{}, ignoredReferenceReason, nil
	case isBinary(f.Content):
		return Lines{}, "a line range needs a text file, and this one is binary", nil
	}
	all := strings.SplitAfter(toLF(string(f.Content)), "\n")
	if all[len(all)-1] == "" {
		all = all[:len(all)-1] // the break ending the last line starts none
	}
	total := len(all)
	if first > total {
		return Lines{}, fmt.Sprintf("line %d is past the end of the file, which has %d %s", first, total, plural(total, "line", "lines")), nil
	}
	last = min(last, total, first+defaultReadLimit-1)
	var b strings.Builder
	for _, line := range all[first-1 : last] {
		text, brk := strings.CutSuffix(line, "\n")
		text, _ = cutLine(text)
		b.WriteString(text)
		if brk {
			b.WriteByte('\n')
		}
	}
	return Lines{Text: b.String(), First: first, Last: last, Total: total}, "", nil
}
