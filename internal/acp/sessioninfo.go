package acp

// session_info_update: what a client lists a session by (Zed's thread
// title and time) kept current while the session runs, as session/list
// gives it for those saved.

import (
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
	if !topic.New || title == "" {
		return
	}
	sess.update(ctx, sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{Title: &title, UpdatedAt: now()}})
}

// showActivity tells the client the session was active just now, as a
// prompt's turn ends (its history saved): the time session/list will
// give it.
func (sess *session) showActivity(ctx context.Context) {
	sess.update(ctx, sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{UpdatedAt: now()}})
}

// now is the time as ACP's session info spells it (ISO 8601, UTC).
func now() *string {
	return sdk.Ptr(time.Now().UTC().Format(time.RFC3339))
}
