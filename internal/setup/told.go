package setup

import (
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// UnreadSettings is what Options.Warn is called with for the settings
// keys nothing reads, one error per file: a front end that shows only
// some warnings picks it out by this.
const UnreadSettings = "settings gemini-ls does not read are ignored"

// ProjectHooksAnnounced is what Options.Warn is called with when a
// trusted workspace's own hooks, new to the user, are about to run:
// Gemini CLI 0.61's word for it. A front end that shows only some
// warnings picks it out by this.
const ProjectHooksAnnounced = "WARNING"

// Told remembers what the user has been told of that is worth saying
// once per process however often the settings are read (a reload, each
// ACP session): the settings keys nothing reads. Safe for concurrent
// use; the zero Told has told nothing.
type Told struct {
	mu   sync.Mutex
	keys map[settings.Unread]bool
	// expiries are the old sessions' removals, one per project root:
	// once per process, however many agents (ACP sessions, rebuilds).
	expiries map[string]*sync.Once
	// said are the notices given once per process, by key (first).
	said map[string]bool
}

// toldMark is what a Told had told at a time (Told.mark).
type toldMark struct {
	keys map[settings.Unread]bool
	said map[string]bool
}

// mark is what t has told so far, for undo.
func (t *Told) mark() toldMark {
	t.mu.Lock()
	defer t.mu.Unlock()
	return toldMark{keys: maps.Clone(t.keys), said: maps.Clone(t.said)}
}

// undo forgets what t was told after m was taken: a build attempt given
// up, whose warnings were never said (Build). What another build told
// meanwhile (an ACP session's, at once) is forgotten too, and may be said
// once more: a repeat rather than a loss.
func (t *Told) undo(m toldMark) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.keys, t.said = m.keys, m.said
}

// first reports whether the notice of key is given for the first time,
// and marks it given.
func (t *Told) first(key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.said[key] {
		return false
	}
	if t.said == nil {
		t.said = map[string]bool{}
	}
	t.said[key] = true
	return true
}

// expiry is the once of root's removal of old sessions.
func (t *Told) expiry(root string) *sync.Once {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.expiries == nil {
		t.expiries = map[string]*sync.Once{}
	}
	if t.expiries[root] == nil {
		t.expiries[root] = &sync.Once{}
	}
	return t.expiries[root]
}

// withMeant is an unknown key as told: with the key it is likely a typo
// of, when there is one.
func withMeant(k settings.Unread) string {
	if k.Meant == "" {
		return k.Key
	}
	return k.Key + " (did you mean " + k.Meant + "?)"
}

// unread words the keys of keys not told of before, one error per file
// naming each key (an unknown one with the key it likely meant), and
// marks them told.
func (t *Told) unread(keys []settings.Unread) []error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.keys == nil {
		t.keys = map[settings.Unread]bool{}
	}
	var files []string
	notImplemented, unknown := map[string][]string{}, map[string][]string{}
	for _, k := range keys {
		if t.keys[k] {
			continue
		}
		t.keys[k] = true
		if len(notImplemented[k.File]) == 0 && len(unknown[k.File]) == 0 {
			files = append(files, k.File)
		}
		if k.Unknown {
			unknown[k.File] = append(unknown[k.File], withMeant(k))
		} else {
			notImplemented[k.File] = append(notImplemented[k.File], k.Key)
		}
	}
	var out []error
	for _, file := range files {
		var parts []string
		if keys := notImplemented[file]; len(keys) > 0 {
			parts = append(parts, "gemini-ls does not implement Gemini CLI's "+strings.Join(keys, ", "))
		}
		if keys := unknown[file]; len(keys) > 0 {
			parts = append(parts, "neither gemini-ls nor Gemini CLI has a setting "+strings.Join(keys, ", "))
		}
		out = append(out, fmt.Errorf("settings file %s: %s; ignored", file, strings.Join(parts, "; ")))
	}
	return out
}
