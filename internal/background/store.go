package background

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/fleet"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// Record is what the user's machine keeps of a background agent, so
// that a server started later lists it and follows its run on.
type Record struct {
	ID         string      `json:"id"`
	Name       string      `json:"name"`
	Title      string      `json:"title"`
	Repository string      `json:"repository"`
	State      fleet.State `json:"state"`
	StartedAt  time.Time   `json:"startedAt"`
	EndedAt    time.Time   `json:"endedAt,omitzero"`
	RunID      int64       `json:"runId,omitempty"`
	RunURL     string      `json:"runUrl,omitempty"`
	PullNumber int         `json:"pullNumber,omitempty"`
	PullURL    string      `json:"pullUrl,omitempty"`
	Err        string      `json:"error,omitempty"`
	// Watch is the run being waited for, while there is one.
	Watch *Watch `json:"watch,omitempty"`
}

// Ended reports whether r's run is over.
func (r Record) Ended() bool { return r.State != fleet.Queued && r.State != fleet.Working }

// Store is the records of one project's background agents: a file in
// gemini-ls's state directory, never in the project.
type Store struct {
	path string
	mu   *sync.Mutex // one writer at a time in this process
}

// maxStore bounds the file read.
const maxStore = 4 << 20

// OpenStore is the store of the project at root under stateDir.
func OpenStore(stateDir, root string) Store {
	sum := sha256.Sum256([]byte(root))
	return Store{path: filepath.Join(stateDir, "background", hex.EncodeToString(sum[:8])+".json"), mu: new(sync.Mutex)}
}

// Load is every record, oldest first; none when there is no file.
func (s Store) Load() ([]Record, error) {
	b, err := safefile.Read(s.path, maxStore)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the background agents' records: %w", err)
	}
	var out []Record
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("reading the background agents' records in %s: %w", s.path, err)
	}
	return out, nil
}

// Put replaces the record of r's ID with r, or adds it.
func (s Store) Put(r Record) error {
	return s.change(func(list []Record) []Record {
		if i := slices.IndexFunc(list, func(x Record) bool { return x.ID == r.ID }); i >= 0 {
			if r.Watch == nil && !r.Ended() {
				r.Watch = list[i].Watch // kept until the run ends
			}
			list[i] = r
			return list
		}
		return append(list, r)
	})
}

// Delete forgets the record of id.
func (s Store) Delete(id string) error {
	return s.change(func(list []Record) []Record {
		return slices.DeleteFunc(list, func(x Record) bool { return x.ID == id })
	})
}

func (s Store) change(f func([]Record) []Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	list, err := s.Load()
	if err != nil {
		list = nil // a broken file is replaced, not kept failing
	}
	list = f(list)
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("keeping the background agents' records: %w", err)
	}
	if err := safefile.Replace(s.path, b, 0o600); err != nil {
		return fmt.Errorf("keeping the background agents' records: %w", err)
	}
	return nil
}
