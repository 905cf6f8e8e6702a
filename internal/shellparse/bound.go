package shellparse

import (
	"fmt"
	"strings"
)

// The bounds of what Parse reads. mvdan.cc/sh's parser recurses once for
// each level a line nests (brackets, keywords, [[ ]]'s operators,
// arithmetic's unary, assignment, ** and ?: operators), each level a few
// hundred bytes to 5 KB of stack, and a Go stack overflow ends the
// process: it cannot be recovered from. A line of 150,000 nested
// parentheses took the server down (issue 95).
const (
	// MaxLineBytes is the longest line Parse reads.
	MaxLineBytes = 1 << 20
	// MaxNesting bounds nestingBound: 8192 levels are some 40 MB of
	// stack at worst, far from the 1 GB that overflows.
	MaxNesting = 8192
)

// BoundError is why a line is not parsed: it is longer, or may nest
// deeper, than the parser is let read. Its text is a sentence's end, for
// "… not judged: " + Error().
type BoundError struct{ Why string }

func (e *BoundError) Error() string { return e.Why }

// CheckBounds returns a *BoundError when command is longer than
// MaxLineBytes or may nest deeper than MaxNesting; nil when Parse may read
// it. It reads command once, in linear time.
func CheckBounds(command string) error {
	if len(command) > MaxLineBytes {
		return &BoundError{Why: fmt.Sprintf("it is %d bytes long, more than the %d bytes of a shell line gemini-ls reads", len(command), MaxLineBytes)}
	}
	if n := nestingBound(command); n > MaxNesting {
		return &BoundError{Why: fmt.Sprintf("it may nest %d levels deep, more than the %d levels of a shell line gemini-ls reads", n, MaxNesting)}
	}
	return nil
}

// nestingBound is an upper bound of how deep the parser recurses on
// command: it counts, quotes or not, every byte and word that can begin
// a level, and never a closing one, so that no quoting or escape can make
// it count less than the parser nests. The openers: ( [ { ` and the
// arithmetic operators that recurse (! - + ~ ? = *); the keywords that
// open a compound or prefix a pipeline (if, then, else, elif, while,
// until, for, select, do, case, function, time, coproc); and, in a line
// holding [[, its && and || too. Line continuations are removed first,
// as the parser removes them (ti\<newline>me is time).
func nestingBound(command string) int {
	if strings.Contains(command, "\\\n") {
		command = strings.ReplaceAll(command, "\\\n", "")
	}
	n := 0
	test := strings.Contains(command, "[[")
	for i := 0; i < len(command); i++ {
		c := command[i]
		switch {
		case strings.IndexByte("([{`!-+~?=*", c) >= 0:
			n++
		case test && (c == '&' || c == '|'):
			n++
		case isNameByte(c) && (i == 0 || !isNameByte(command[i-1])):
			end := i + 1
			for end < len(command) && isNameByte(command[end]) {
				end++
			}
			if isNestingKeyword(command[i:end]) {
				n++
			}
			i = end - 1
		}
	}
	return n
}

// isNameByte reports whether c may be part of a keyword's word.
func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// isNestingKeyword reports whether word is a keyword the parser may
// recurse on.
func isNestingKeyword(word string) bool {
	switch word {
	case "if", "then", "else", "elif", "while", "until", "for", "select", "do", "case", "function", "time", "coproc":
		return true
	}
	return false
}
