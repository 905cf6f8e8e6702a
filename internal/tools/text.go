package tools

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// sniffLen is how much of a file binary detection looks at.
const sniffLen = 4096

// isBinary reports whether content looks like something other than text:
// a NUL byte in the first 4 KiB, or more than 30% of that sample being
// control characters or invalid UTF-8.
func isBinary(content []byte) bool {
	sample := content[:min(len(content), sniffLen)]
	if bytes.IndexByte(sample, 0) >= 0 {
		return true
	}
	if len(sample) == 0 {
		return false
	}
	odd := 0
	for i := 0; i < len(sample); {
		// ASCII, nearly all of a source file, without decoding runes.
		if c := sample[i]; c < utf8.RuneSelf {
			if c < 0x20 && !isTextControl(c) {
				odd++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(sample[i:])
		if r == utf8.RuneError && size == 1 {
			// A sequence cut by the end of the sample is not evidence.
			if len(sample)-i < utf8.UTFMax && len(content) > len(sample) && !utf8.FullRune(sample[i:]) {
				break
			}
			odd++
		}
		i += size
	}
	return odd*10 > len(sample)*3
}

// isTextControl reports whether c is a control character text holds.
func isTextControl(c byte) bool {
	switch c {
	case '\t', '\n', '\r', '\f', '\v', '\b', 0x1b:
		return true
	}
	return false
}

// mediaType is the MIME type of files read_file hands to the model as
// inline data, by extension.
func mediaType(path string) (mime, kind string, ok bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return "image/png", "image", true
	case ".jpg", ".jpeg":
		return "image/jpeg", "image", true
	case ".gif":
		return "image/gif", "image", true
	case ".webp":
		return "image/webp", "image", true
	case ".svg":
		return "image/svg+xml", "image", true
	case ".bmp":
		return "image/bmp", "image", true
	case ".mp3":
		return "audio/mpeg", "audio", true
	case ".wav":
		return "audio/wav", "audio", true
	case ".aiff", ".aif":
		return "audio/aiff", "audio", true
	case ".aac":
		return "audio/aac", "audio", true
	case ".ogg":
		return "audio/ogg", "audio", true
	case ".flac":
		return "audio/flac", "audio", true
	case ".pdf":
		return "application/pdf", "pdf", true
	}
	return "", "", false
}

// toLF turns CRLF line endings into LF: the model reads and writes LF.
func toLF(s string) string {
	if !strings.Contains(s, "\r\n") {
		return s
	}
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// maxLineLen is the longest line, in characters, tools show the model.
const maxLineLen = 2000

// cutLine shortens a line longer than maxLineLen characters.
func cutLine(line string) (string, bool) {
	if len(line) <= maxLineLen || utf8.RuneCountInString(line) <= maxLineLen {
		return line, false
	}
	n := 0
	for i := range line {
		if n == maxLineLen {
			return line[:i] + "... [truncated]", true
		}
		n++
	}
	return line, false
}

// quoteName is a file name or path as tools print it: as is when it is
// printable text, else Go-quoted ("a\nb.txt"), so that one name is always
// one line and a name cannot forge lines of a tool's output. Names with
// control or other non-printing characters, invalid UTF-8, or a leading
// quote (which would read as a quoted name) are quoted.
func quoteName(name string) string {
	if utf8.ValidString(name) && !strings.HasPrefix(name, `"`) && !strings.ContainsFunc(name, nonPrinting) {
		return name
	}
	return strconv.Quote(name)
}

func nonPrinting(r rune) bool { return !strconv.IsPrint(r) }

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
