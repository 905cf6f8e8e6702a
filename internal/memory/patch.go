package memory

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
)

// filePatch is one file's part of a unified diff, as the jsdiff library
// Gemini CLI 0.61 uses parses it (parsePatch).
type filePatch struct {
	oldName, newName string
	hunks            []hunk
}

// hunk is one "@@ -a,b +c,d @@" section: its lines keep their first
// character (' ', '-', '+', or '\' for "\ No newline at end of file").
type hunk struct {
	oldStart, oldLines, newStart, newLines int
	lines                                  []string
}

var hunkHeader = lazyregexp.New(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// parsePatch reads a unified diff: "--- a" and "+++ b" headers (a tab
// and what follows it, a timestamp, dropped), then hunks; what comes
// before a header (diff, index lines) is skipped.
func parsePatch(text string) ([]filePatch, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var patches []filePatch
	for i := 0; i < len(lines); {
		if !strings.HasPrefix(lines[i], "--- ") && !strings.HasPrefix(lines[i], "@@ ") {
			i++
			continue
		}
		var p filePatch
		if strings.HasPrefix(lines[i], "--- ") {
			p.oldName = headerName(lines[i])
			i++
			if i < len(lines) && strings.HasPrefix(lines[i], "+++ ") {
				p.newName = headerName(lines[i])
				i++
			}
		}
		for i < len(lines) && strings.HasPrefix(lines[i], "@@ ") {
			h, next, err := parseHunk(lines, i)
			if err != nil {
				return nil, err
			}
			p.hunks = append(p.hunks, h)
			i = next
		}
		patches = append(patches, p)
	}
	return patches, nil
}

// headerName is a "--- " or "+++ " line's file name.
func headerName(line string) string {
	name, _, _ := strings.Cut(line[4:], "\t")
	name = strings.TrimSpace(name)
	if len(name) >= 2 && name[0] == '"' && name[len(name)-1] == '"' {
		if unq, err := strconv.Unquote(name); err == nil {
			name = unq
		}
	}
	return name
}

// parseHunk reads the hunk whose header is lines[at], returning it and
// the index of the line after it.
func parseHunk(lines []string, at int) (hunk, int, error) {
	m := hunkHeader.FindStringSubmatch(lines[at])
	if m == nil {
		return hunk{}, 0, fmt.Errorf("unknown line %d %q", at+1, lines[at])
	}
	var h hunk
	for i, field := range []*int{&h.oldStart, &h.oldLines, &h.newStart, &h.newLines} {
		n, err := headerNumber(m[i+1], i%2)
		if err != nil {
			return hunk{}, 0, fmt.Errorf("the hunk header at line %d: %w", at+1, err)
		}
		*field = n
	}
	if h.oldLines == 0 && h.oldStart < math.MaxInt {
		h.oldStart++ // as jsdiff: a pure addition's start is the line after
	}
	oldSeen, newSeen := 0, 0
	i := at + 1
	for ; i < len(lines) && (oldSeen < h.oldLines || newSeen < h.newLines || strings.HasPrefix(lines[i], `\`)); i++ {
		line := lines[i]
		if line == "" && i < len(lines)-1 {
			line = " " // a blank context line whose space was trimmed
		}
		switch {
		case line == "" || strings.HasPrefix(line, "@@ ") || strings.HasPrefix(line, "--- "):
			return hunk{}, 0, fmt.Errorf("the hunk at line %d ends early", at+1)
		case line[0] == '+':
			newSeen++
		case line[0] == '-':
			oldSeen++
		case line[0] == ' ':
			oldSeen++
			newSeen++
		case line[0] == '\\':
		default:
			return hunk{}, 0, fmt.Errorf("unknown line %d %q", i+1, line)
		}
		h.lines = append(h.lines, line)
	}
	if oldSeen != h.oldLines || newSeen != h.newLines {
		return hunk{}, 0, fmt.Errorf("the line counts of the hunk at line %d do not match its header", at+1)
	}
	return h, i, nil
}

// headerNumber is a hunk header's line number or count, empty when it
// is left out; one too large for an int is an error, not read as 0 or
// wrapped, as strconv would have it.
func headerNumber(s string, empty int) (int, error) {
	if s == "" {
		return empty, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s is too large for a line number", s)
	}
	return n, nil
}

// errDoesNotApply: a hunk's context or removed lines are not in the file.
var errDoesNotApply = errors.New("the patch does not apply")

// errTooFar: placing the hunks would cost more than their file and the
// patch are worth; only hunks out of order, or naming lines far past the
// end of the file, can (see placeBudget).
var errTooFar = errors.New("the patch's hunks are out of order or name lines far past the end of the file")

// apply is jsdiff's applyPatch without fuzz, as 0.61 calls it: each hunk
// goes where its context and removed lines match exactly, the nearest
// place to its line (moved by the hunks before), a line after before one
// before at the same distance; "\ No newline at end of file" adds or
// removes the last newline. Unlike jsdiff, which walks line by line from
// where the header says, past the end of the file too (a header's huge
// line number spun for ever), the search starts within the file, as git
// apply clamps it, and finds the same place in work linear in the file
// and the patch (placer), or refuses the patch with errTooFar.
func apply(source string, p filePatch) (string, error) {
	if len(p.hunks) == 0 {
		return source, nil
	}
	lines, err := withEOFNewline(strings.Split(source, "\n"), p.hunks[len(p.hunks)-1])
	if err != nil {
		return "", err
	}
	pl := newPlacer(lines, p.hunks)
	var out []string
	minLine, offset := 0, 0
	for _, h := range p.hunks {
		at, err := pl.place(h, lineHint(h.oldStart, offset), minLine)
		if err != nil {
			return "", err
		}
		out = append(out, lines[minLine:at]...)
		oldEnd := at
		for _, l := range h.lines {
			switch l[0] {
			case ' ':
				out = append(out, lines[oldEnd])
				oldEnd++
			case '-':
				oldEnd++
			case '+':
				out = append(out, l[1:])
			}
		}
		minLine = oldEnd
		offset = at + 1 - h.oldStart
	}
	out = append(out, lines[minLine:]...)
	return strings.Join(out, "\n"), nil
}

// withEOFNewline is the file's lines with the last newline added or
// removed as the last hunk's markers say, or errDoesNotApply when the
// file does not end as the patch expects.
func withEOFNewline(lines []string, last hunk) ([]string, error) {
	removeEOFNL, addEOFNL := eofNewline(last)
	endsInNewline := lines[len(lines)-1] == ""
	switch {
	case removeEOFNL && addEOFNL:
		if endsInNewline {
			return nil, errDoesNotApply
		}
	case removeEOFNL:
		if !endsInNewline {
			return nil, errDoesNotApply
		}
		lines = lines[:len(lines)-1]
	case addEOFNL:
		if endsInNewline {
			return nil, errDoesNotApply
		}
		lines = append(lines, "")
	}
	return lines, nil
}

// lineHint is the 0-based line a hunk is looked for from: its old start
// moved by offset, as the hunks before it moved, saturating where a
// header's huge number would wrap.
func lineHint(oldStart, offset int) int {
	if offset > 1 && oldStart > math.MaxInt-(offset-1) {
		return math.MaxInt
	}
	return oldStart + offset - 1
}

// eofNewline reads the last hunk's "\ No newline at end of file" marks:
// after an added line the new file lacks the newline, after a removed one
// the old file did.
func eofNewline(h hunk) (remove, add bool) {
	prev := ""
	for _, l := range h.lines {
		if l[0] == '\\' {
			switch {
			case strings.HasPrefix(prev, "+"):
				remove = true
			case strings.HasPrefix(prev, "-"):
				add = true
			}
		}
		prev = l
	}
	return remove, add
}
