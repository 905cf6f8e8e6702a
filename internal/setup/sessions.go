package setup

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// ErrNoSessionDir is why sessions are not saved: the environment names
// no directory to keep them in.
var ErrNoSessionDir = errors.New("neither XDG_STATE_HOME nor " + settings.HomeVariable + " is set, so sessions live only until gemini-ls exits")

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

// retentionPeriod matches 0.61's retention periods: a number of hours,
// days, weeks or months (30 days).
var retentionPeriod = lazyregexp.New(`^(\d+)([dhwm])$`)

// parseRetentionPeriod is 0.61's parseRetentionPeriod, its words kept.
func parseRetentionPeriod(period string) (time.Duration, error) {
	m := retentionPeriod.FindStringSubmatch(period)
	if m == nil {
		return 0, fmt.Errorf("Invalid retention period format: %s. Expected format: <number><unit> where unit is h, d, w, or m", period)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n > 1e6 {
		return 0, fmt.Errorf("Invalid retention period: %s. The value is too large", period)
	}
	if n == 0 {
		return 0, fmt.Errorf("Invalid retention period: %s. Value must be greater than 0", period)
	}
	unit := map[string]time.Duration{"h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour, "m": 30 * 24 * time.Hour}[m[2]]
	return time.Duration(n) * unit, nil
}

// sessionRetention is general.sessionRetention as 0.61 reads it, its
// defaults filled (on, maxAge 30d, minRetention 1d); nil when cleanup is
// off, with why when the settings are at fault (0.61's
// validateRetentionConfig: cleanup is then off, never guessed).
func sessionRetention(r settings.SessionRetention) (*sessionstore.Retention, error) {
	if r.Enabled != nil && !*r.Enabled {
		return nil, nil
	}
	maxAge := "30d"
	if r.MaxAge != nil {
		maxAge = *r.MaxAge
	}
	var out sessionstore.Retention
	if maxAge != "" {
		age, err := parseRetentionPeriod(maxAge)
		if err != nil {
			return nil, err
		}
		minRetention := cmp.Or(r.MinRetention, "1d")
		least, err := parseRetentionPeriod(minRetention)
		if err != nil {
			least = 24 * time.Hour
		}
		if age < least {
			return nil, fmt.Errorf("maxAge cannot be less than minRetention (%s)", minRetention)
		}
		out.MaxAge = age
	}
	if r.MaxCount != nil {
		if *r.MaxCount < 1 {
			return nil, errors.New("maxCount must be at least 1")
		}
		out.MaxCount = *r.MaxCount
	}
	if out.MaxAge == 0 && out.MaxCount == 0 {
		return nil, errors.New("Either maxAge or maxCount must be specified")
	}
	return &out, nil
}
