package agent

import (
	"fmt"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Bounds of the journal of the agent's file changes (see journal): a
// file whose bytes before or after are larger, a prompt's file past the
// first maxJournaledFiles, and any change once the session journaled
// maxJournalBytes, are journaled by path alone, and a rewind says it
// cannot revert them rather than pretend.
const (
	maxJournaledFileSize = 1 << 20
	maxJournaledFiles    = 64
	maxJournalBytes      = 32 << 20
)

const bom = "\ufeff"

// journal records, for one prompt, each file the agent changed: its
// bytes before the prompt's first change and after its last. It lives
// in the turn and is saved with the prompt's exchange.
type journal struct {
	files []sessionstore.FileEdit
	// budget is how many bytes the session may still journal.
	budget int
}

// newJournal is a prompt's journal in a session that journaled used
// bytes so far.
func newJournal(used int) journal {
	return journal{budget: maxJournalBytes - used}
}

// journalSize is how many bytes exchanges journal.
func journalSize(exchanges []sessionstore.Exchange) int {
	n := 0
	for _, ex := range exchanges {
		for _, f := range ex.Files {
			n += len(f.Before) + len(f.After)
		}
	}
	return n
}

// landed records change, landed with outcome d: applied or modified by
// the user on the way, the file now holds d.Content.
func (j *journal) landed(change workspace.FileChange, d dialog.Decision) {
	if d.Outcome != dialog.Applied && d.Outcome != dialog.Modified {
		return
	}
	after := fileBytes(change.BOM, d.Content)
	for i := range j.files {
		f := &j.files[i]
		if f.Path != change.Path {
			continue
		}
		if f.Unjournaled != "" {
			return
		}
		if grown := len(after) - len(f.After); len(after) > maxJournaledFileSize || grown > j.budget {
			j.budget += len(f.Before) + len(f.After)
			*f = sessionstore.FileEdit{Path: f.Path, Unjournaled: tooLargeToJournal(len(after))}
			return
		}
		j.budget -= len(after) - len(f.After)
		f.After = after
		return
	}
	edit := sessionstore.FileEdit{Path: change.Path, Existed: change.Exists}
	if change.Exists {
		edit.Before = fileBytes(change.HadBOM, change.Before)
	}
	size := len(edit.Before) + len(after)
	switch {
	case len(j.files) >= maxJournaledFiles:
		edit = sessionstore.FileEdit{Path: change.Path, Unjournaled: fmt.Sprintf("the prompt changed more than %d files, and only the first %d were journaled", maxJournaledFiles, maxJournaledFiles)}
	case len(edit.Before) > maxJournaledFileSize || len(after) > maxJournaledFileSize:
		edit = sessionstore.FileEdit{Path: change.Path, Unjournaled: tooLargeToJournal(max(len(edit.Before), len(after)))}
	case size > j.budget:
		edit = sessionstore.FileEdit{Path: change.Path, Unjournaled: fmt.Sprintf("the session's journal of file changes reached its limit of %d MiB", maxJournalBytes>>20)}
	default:
		edit.After = after
		j.budget -= size
	}
	j.files = append(j.files, edit)
}

func tooLargeToJournal(size int) string {
	return fmt.Sprintf("the file (%d bytes) is over the %d MiB a file change is journaled up to", size, maxJournaledFileSize>>20)
}

// fileBytes is text as the file holds it: with its BOM when it has one.
func fileBytes(hasBOM bool, text string) []byte {
	if hasBOM {
		return []byte(bom + text)
	}
	return []byte(text)
}

// journalSize is how many bytes the session's journal holds.
func (s *Session) journalSize() int {
	s.exchangesMu.Lock()
	defer s.exchangesMu.Unlock()
	return journalSize(s.exchanges)
}
