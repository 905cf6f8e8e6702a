package setup

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
)

// The one opener keeps a project's sessions where Gemini CLI keeps them,
// under the user's ~/.gemini, with gemini-ls's own directory under the
// XDG state directory; without HOME there is no store, and it says why.
func TestOpenSessions(t *testing.T) {
	home, state, root := t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "USERPROFILE": home, "XDG_STATE_HOME": state}
	store, err := OpenSessions(func(k string) string { return env[k] }, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(state, "gemini-ls", "sessions"); store.Dir() != want {
		t.Errorf("gemini-ls's own directory = %s, want %s", store.Dir(), want)
	}
	now := time.Now()
	turn := sessionstore.Turn{Meta: sessionstore.Meta{ID: "s1", Root: root, Created: now, Updated: now, Prompts: 1}}
	if err := store.Append(context.Background(), turn); err != nil {
		t.Fatal(err)
	}
	file, err := store.File("s1")
	if err != nil {
		t.Fatal(err)
	}
	if chats := filepath.Join(home, ".gemini", "tmp") + string(filepath.Separator); !strings.HasPrefix(file, chats) {
		t.Errorf("the session was saved in %s, want it under Gemini CLI's %s", file, chats)
	}

	if _, err := OpenSessions(func(string) string { return "" }, root, nil); !errors.Is(err, ErrNoSessionDir) {
		t.Errorf("without HOME: err = %v, want ErrNoSessionDir", err)
	}
}
