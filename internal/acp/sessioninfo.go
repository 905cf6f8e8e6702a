package acp

// session_info_update: what a client lists a session by (Zed's thread
// title and time) kept current while the session runs, as session/list
// gives it for those saved.

import (
	"cmp"
	"context"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// showTitle tells the client the session's title when the model names a
// new topic (update_topic): its title is what the session is about now.
// A topic carried on (not New) changes nothing a client lists.
func (sess *session) showTitle(ctx context.Context, topic dialog.Topic) {
	title := strings.TrimSpace(topic.Title)
	if !topic.New || title == "" || sess.srv.label(sess.id).Title != "" {
		return // the client's own title stays (session/set_title)
	}
	sess.update(ctx, sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{Title: &title, UpdatedAt: now()}})
}

// showActivity tells the client the session was active just now, as a
// prompt's turn ends (its history saved): the time session/list will
// give it.
func (sess *session) showActivity(ctx context.Context) {
	sess.update(ctx, sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{UpdatedAt: now()}})
}

// showSaved tells the client, as a session is loaded or resumed, what
// it lists the session by as saved: its title (the last topic the model
// named, else its first prompt) and when it was last active, as
// session/list gives them, for a client that shows the session anew; and
// how full the model's window was at its last answer (usage_update).
func (sess *session) showSaved(ctx context.Context) {
	info := sess.current().Info()
	info.Title = cmp.Or(sess.srv.label(sess.id).Title, info.Title)
	u := &sdk.SessionSessionInfoUpdate{}
	if info.Title != "" {
		u.Title = &info.Title
	}
	if !info.UpdatedAt.IsZero() {
		u.UpdatedAt = isoTime(info.UpdatedAt)
	}
	sess.update(ctx, sdk.SessionUpdate{SessionInfoUpdate: u})
	// How full the window was at its last answer, saved with it: the
	// client's context meter shows it before the next answer does.
	sess.showFill(ctx, info.Context)
}

// now is the time as ACP's session info spells it.
func now() *string { return isoTime(time.Now()) }

// isoTime is t as ACP's session info spells a time (ISO 8601, UTC).
func isoTime(t time.Time) *string {
	return sdk.Ptr(t.UTC().Format(time.RFC3339))
}
