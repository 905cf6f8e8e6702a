package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// A transcript is named for the user, as a list of files shows it:
// <date>-<title>-<id>.md, the session's day, its title (the first line of
// its first prompt) in lower-case words joined by hyphens, and the start
// of its id, which keeps two sessions of one title apart and finds the
// session's transcript again after a restart. Transcripts written before
// were named <session id>.md; a session that has one goes on in it.

// slugBytes bounds the title's part of a name, so that the whole path
// fits a status line or a message's line: a few words are enough to know
// a conversation by.
const slugBytes = 32

// transcriptName is the file name of a new transcript for session info,
// whose first prompt is prompt.
func transcriptName(info dialog.SessionInfo, prompt string) string {
	created := info.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	title := info.Title
	if title == "" {
		title, _, _ = strings.Cut(strings.TrimSpace(prompt), "\n")
	}
	parts := []string{created.Local().Format(time.DateOnly)}
	if slug := slugOf(title); slug != "" {
		parts = append(parts, slug)
	}
	parts = append(parts, shortID(info.ID))
	return strings.Join(parts, "-") + ".md"
}

// existingTranscript is the transcript session id has in dir already, ""
// when it has none.
func existingTranscript(dir, id string) string {
	legacy := filepath.Join(dir, id+".md")
	if _, err := os.Stat(legacy); err == nil {
		return legacy
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	suffix := "-" + shortID(id) + ".md"
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), suffix) {
			return filepath.Join(dir, e.Name())
		}
	}
	return ""
}

// shortID is the first eight letters and digits of a session id (a
// UUID's first group): one in four billion sessions shares it.
func shortID(id string) string {
	var b strings.Builder
	for _, r := range id {
		if b.Len() == 8 {
			break
		}
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// slugOf is title's words, lower case, joined by hyphens, cut at a word
// to slugBytes: letters and digits of any script, nothing a file name or
// a shell could read otherwise.
func slugOf(title string) string {
	words := strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	var b strings.Builder
	for _, w := range words {
		sep := 0
		if b.Len() > 0 {
			sep = 1
		}
		if b.Len()+sep+len(w) > slugBytes {
			if b.Len() == 0 {
				b.WriteString(cutRunes(w, slugBytes))
			}
			break
		}
		if sep == 1 {
			b.WriteByte('-')
		}
		b.WriteString(w)
	}
	return b.String()
}

// cutRunes is s cut to at most n bytes, at a rune's start.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
