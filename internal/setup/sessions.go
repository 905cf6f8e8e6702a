package setup

import (
	"errors"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// ErrNoSessionDir is why sessions are not saved: the environment names
// no directory to keep them in.
var ErrNoSessionDir = errors.New("neither XDG_STATE_HOME nor HOME is set, so sessions live only until gemini-ls exits")

// OpenSessions opens the session store of the user getenv describes, as
// every front end and command reads and writes it: the project at root's
// sessions in Gemini CLI's place (~/.gemini/tmp/<project>/chats), and
// gemini-ls's own directory (sessionstore.DefaultDir) read beside them.
// root "" is no one project. It fails with ErrNoSessionDir when there is
// no directory for sessions; log (which may be nil) hears about files a
// listing skips.
func OpenSessions(getenv settings.Getenv, root string, log *zap.Logger) (*sessionstore.Store, error) {
	dir := sessionstore.DefaultDir(getenv)
	if dir == "" {
		return nil, ErrNoSessionDir
	}
	return sessionstore.Open(sessionstore.Options{Dir: dir, GeminiDir: settings.UserDir(getenv), Root: root, Log: log})
}
