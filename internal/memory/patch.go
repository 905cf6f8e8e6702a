package memory

import (
	"errors"
	"fmt"
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
	h := hunk{oldStart: atoi(m[1], 0), oldLines: atoi(m[2], 1), newStart: atoi(m[3], 0), newLines: atoi(m[4], 1)}
	if h.oldLines == 0 {
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

func atoi(s string, empty int) int {
	if s == "" {
		return empty
	}
	n, _ := strconv.Atoi(s)
	return n
}

// errDoesNotApply: a hunk's context or removed lines are not in the file.
var errDoesNotApply = errors.New("the patch does not apply")

// apply is jsdiff's applyPatch without fuzz, as 0.61 calls it: each hunk
// goes where its context and removed lines match exactly, looked for
// from its line (moved by the hunks before) outward; "\ No newline at
// end of file" adds or removes the last newline.
func apply(source string, p filePatch) (string, error) {
	if len(p.hunks) == 0 {
		return source, nil
	}
	lines := strings.Split(source, "\n")
	removeEOFNL, addEOFNL := eofNewline(p.hunks[len(p.hunks)-1])
	switch {
	case removeEOFNL && addEOFNL:
		if lines[len(lines)-1] == "" {
			return "", errDoesNotApply
		}
	case removeEOFNL:
		if lines[len(lines)-1] != "" {
			return "", errDoesNotApply
		}
		lines = lines[:len(lines)-1]
	case addEOFNL:
		if lines[len(lines)-1] == "" {
			return "", errDoesNotApply
		}
		lines = append(lines, "")
	}
	var out []string
	minLine, offset := 0, 0
	for _, h := range p.hunks {
		start := h.oldStart + offset - 1
		at := -1
		for _, pos := range outward(start, minLine, len(lines)-h.oldLines) {
			if matches(lines, pos, h) {
				at = pos
				break
			}
		}
		if at < 0 {
			return "", errDoesNotApply
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

// matches reports whether h's context and removed lines are lines[pos:].
func matches(lines []string, pos int, h hunk) bool {
	i := pos
	for _, l := range h.lines {
		if l[0] != ' ' && l[0] != '-' {
			continue
		}
		if i >= len(lines) || lines[i] != l[1:] {
			return false
		}
		i++
	}
	return true
}

// outward lists the positions from start within [lo, hi], nearest first,
// after first, as jsdiff's distanceIterator walks them.
func outward(start, lo, hi int) []int {
	var out []int
	if start >= lo && start <= hi {
		out = append(out, start)
	}
	for d := 1; start+d <= hi || start-d >= lo; d++ {
		if start+d <= hi && start+d >= lo {
			out = append(out, start+d)
		}
		if start-d >= lo && start-d <= hi {
			out = append(out, start-d)
		}
	}
	return out
}
