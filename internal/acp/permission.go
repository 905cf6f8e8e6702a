package acp

// Edits and confirmations through session/request_permission.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// The options of every session/request_permission, by optionId. The ids
// are stable: they are Gemini CLI's (its ToolConfirmationOutcome values,
// which dialog.ConfirmOutcome spells the same), so a client that learnt
// Gemini CLI's finds them here. Clients choose by kind; the ids only have
// to come back.
const (
	// optionAllowOnce (kind allow_once) runs this call, or lands this edit.
	optionAllowOnce sdk.PermissionOptionId = sdk.PermissionOptionId(dialog.ProceedOnce)
	// optionAllowAlways (kind allow_always) does so and allows its like
	// for the rest of the session: every edit, or the command names of a
	// shell line (what the tool's AllowKeys say). It is offered only where
	// it would hold (dialog.ConfirmRequest.CanAllowAlways): not for a
	// command "always" cannot cover, nor for the model fallback.
	optionAllowAlways sdk.PermissionOptionId = sdk.PermissionOptionId(dialog.ProceedAlways)
	// optionAllowPrefix (kind allow_always) is the narrower "always" of
	// a shell line: the lines that start with its prefixes (go test),
	// each command of them still judged (dialog.ConfirmRequest.AlwaysPrefixes).
	optionAllowPrefix sdk.PermissionOptionId = sdk.PermissionOptionId(dialog.ProceedAlwaysPrefix)
	// optionAllowAlwaysAndSave (kind allow_always) does so for all
	// future sessions too, saved as a policy rule; offered where
	// security.enablePermanentToolApproval is on
	// (dialog.ConfirmRequest.Permanent), under Gemini CLI 0.61's name.
	optionAllowAlwaysAndSave sdk.PermissionOptionId = sdk.PermissionOptionId(dialog.ProceedAlwaysAndSave)
	// optionReject (kind reject_once) refuses this call; the model is
	// told the user refused it.
	optionReject sdk.PermissionOptionId = sdk.PermissionOptionId(dialog.Cancel)
)

// answer is what the user chose.
type answer int

const (
	rejected       answer = iota // the user chose Reject
	allowedOnce                  // the user chose Allow
	allowedAlways                // the user chose Always allow
	allowedPrefix                // the user chose Always allow of the line's prefix
	allowedForGood               // the user chose to allow in all future sessions
)

// allowLabels name the "always" options a request offers: always for
// the session, of a shell line's prefix for the session, permanent for
// all future sessions; "" leaves one out.
type allowLabels struct{ always, prefix, permanent string }

// ask sends session/request_permission about call and returns the user's
// answer, offering the "always" options labels name. A
// ctx that ends while the client holds the request returns ctx's error at
// once (the client is told with $/cancel_request). An answer of
// "cancelled" means, in ACP, that the prompt turn was cancelled: the
// turn is cancelled here too, as session/cancel would, and ask returns
// ctx's error, so that nothing runs and the model is not asked again.
func (sess *session) ask(ctx context.Context, call sdk.ToolCallUpdate, labels allowLabels) (answer, error) {
	options := []sdk.PermissionOption{{OptionId: optionAllowOnce, Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce}}
	if labels.always != "" {
		options = append(options, sdk.PermissionOption{OptionId: optionAllowAlways, Name: labels.always, Kind: sdk.PermissionOptionKindAllowAlways})
	}
	if labels.prefix != "" {
		options = append(options, sdk.PermissionOption{OptionId: optionAllowPrefix, Name: labels.prefix, Kind: sdk.PermissionOptionKindAllowAlways})
	}
	if labels.permanent != "" {
		options = append(options, sdk.PermissionOption{OptionId: optionAllowAlwaysAndSave, Name: labels.permanent, Kind: sdk.PermissionOptionKindAllowAlways})
	}
	options = append(options, sdk.PermissionOption{OptionId: optionReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce})
	if sub, ok := sess.subagentOf(string(call.ToolCallId)); ok {
		// A subagent's call, an edit or any other, is asked about as
		// its tool_call is named.
		call.Meta = subagentMeta(sub)
	}
	res, err := sess.srv.requestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(sess.id), ToolCall: call, Options: options})
	switch {
	case ctx.Err() != nil:
		return rejected, ctx.Err()
	case err != nil:
		return rejected, fmt.Errorf("session/request_permission: %s", clientError(err))
	case res.cancelled:
		sess.log.Info("the client answered a permission request \"cancelled\": the turn is cancelled")
		sess.cancelTurn()
		if ctx.Err() != nil {
			return rejected, ctx.Err()
		}
		return rejected, errors.New("the editor answered session/request_permission \"cancelled\" (the prompt turn was cancelled)")
	}
	switch res.option {
	case optionAllowOnce:
		return allowedOnce, nil
	case optionAllowAlways:
		if labels.always != "" {
			return allowedAlways, nil
		}
	case optionAllowPrefix:
		if labels.prefix != "" {
			return allowedPrefix, nil
		}
	case optionAllowAlwaysAndSave:
		if labels.permanent != "" {
			return allowedForGood, nil
		}
	case optionReject:
		return rejected, nil
	}
	return rejected, fmt.Errorf("session/request_permission was answered with option %q, which was not offered", res.option)
}

// reasonRejected is why a change was declined, as the model reads it
// (the tools package wraps it: "This change was not applied: <reason>.
// The file was not modified.").
const reasonRejected = "the user rejected the edit"

// Land lands a tool's file change, first offering it to the user
// through session/request_permission with its diff when the session did
// not allow it, through the client's fs/write_text_file when the client
// declared it (the editor's buffer is the truth), else on disk.
func (t *turn) Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	sess, change := t.sess, req.Change
	diff := diffContent(change)
	var landing dialog.Landing
	if req.Ask {
		always := "Always allow edits in this session"
		if !req.CanAllowAlways {
			always = ""
		}
		a, err := sess.ask(ctx, sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId(req.CallID),
			Status:     sdk.Ptr(sdk.ToolCallStatusPending),
			Kind:       sdk.Ptr(sdk.ToolKindEdit),
			Title:      sdk.Ptr(sess.editTitle(change)),
			Locations:  []sdk.ToolCallLocation{{Path: change.Path}},
			Content:    []sdk.ToolCallContent{diff},
		}, allowLabels{always: always})
		switch {
		case err != nil:
			return dialog.Landing{}, err
		case a == rejected:
			return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Declined, Reason: reasonRejected}}, nil
		}
		// The user decided here: the agent's approval service records
		// it, and later edits land without asking.
		landing.AllowAlways = a == allowedAlways && req.CanAllowAlways
	}
	if err := ctx.Err(); err != nil {
		return dialog.Landing{}, err
	}
	d, err := sess.land(ctx, change)
	if err == nil && d.Outcome == dialog.Applied {
		sess.attach(req.CallID, diff)
	}
	landing.Decision = d
	return landing, err
}

// land writes an allowed change: through fs/write_text_file when the
// client declared it and the change is text an editor holds (valid
// UTF-8, no NUL: what JSON carries faithfully, and what reads took from
// the editor), after checking that the file still holds what the change
// was made from; else on disk, as headless does, where WriteFile makes
// the same check against disk (so a change made from an unsaved buffer
// of a client that reads buffers but cannot write them is stale, rather
// than writing the unsaved text to disk).
//
// The text sent is change.After exactly: the file's own line endings
// (\r\n kept), without a BOM. A BOM is the file's encoding, which the
// editor keeps when it saves; in its text it would be a stray U+FEFF
// character. A new file the model began with a BOM is created without it.
func (sess *session) land(ctx context.Context, change workspace.FileChange) (dialog.Decision, error) {
	fs := sess.srv.capabilities().Fs
	if !fs.WriteTextFile || !workspace.IsText(change.Before) || !workspace.IsText(change.After) {
		d, err := conversation.LandOnDisk(ctx, change)
		if err == nil && d.Outcome == dialog.Stale && !fs.WriteTextFile && fs.ReadTextFile && change.Exists && workspace.IsText(change.Before) {
			// The change was made from the editor's buffer, which may
			// hold unsaved changes disk does not: writing disk would put
			// them there behind the editor's back.
			d.Reason = "the change was made from the editor's buffer, and the file on disk does not hold that text " +
				"(unsaved changes in the editor, or the file changed on disk); this editor cannot take changes " +
				"through fs/write_text_file, so gemini-ls writes disk only when it holds what the editor showed"
		}
		return d, err
	}
	// The file's write lock, which WriteFile takes too, is held from the
	// check to the write: two changes made from the same text (parallel
	// subagents, two sessions in one cwd) would otherwise both pass the
	// check, and the second write undo the first.
	release, err := sess.ws.HoldPath(ctx, change.Path)
	if err != nil {
		return dialog.Decision{}, fmt.Errorf("waiting for another write of %s: %w", change.Path, err)
	}
	defer release()
	reason, now, err := sess.staleReason(ctx, change)
	if err != nil {
		return dialog.Decision{}, err
	}
	if reason != "" {
		return dialog.Decision{Outcome: dialog.Stale, Reason: reason, Content: now}, nil
	}
	if landChecked != nil {
		landChecked()
	}
	err = sess.srv.writeTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(sess.id), Path: change.Path, Content: change.After})
	switch {
	case ctx.Err() != nil:
		return dialog.Decision{}, ctx.Err()
	case errors.As(err, new(*malformedAnswerError)):
		return dialog.Decision{}, fmt.Errorf("fs/write_text_file: %s, so whether the editor changed the file is unknown: read it before changing it again", err)
	case err != nil:
		return dialog.Decision{}, fmt.Errorf("the editor did not write the file: fs/write_text_file: %s", clientError(err))
	}
	return dialog.Decision{Outcome: dialog.Applied, Content: change.After}, nil
}

// landChecked, when set (by a test), is called once land's check of the
// editor's text has passed, before fs/write_text_file.
var landChecked func()

// staleReason reports why the file no longer holds what change was made
// from, and what it holds now, or "". The file is read as the change's
// Before was: through fs/read_text_file when the client declared it (the
// buffer may have moved on while the user looked at the diff), else from
// disk, with the workspace's checks either way.
func (sess *session) staleReason(ctx context.Context, change workspace.FileChange) (reason, now string, err error) {
	where := "on disk"
	if sess.srv.capabilities().Fs.ReadTextFile {
		where = "in the editor"
	}
	f, err := sess.ws.ReadFile(ctx, change.Path, workspace.MaxFileSize)
	switch {
	case ctx.Err() != nil:
		return "", "", ctx.Err()
	case errors.Is(err, workspace.ErrNotExist) && change.Exists:
		return "the file was deleted after the change was proposed", "", nil
	case errors.Is(err, workspace.ErrNotExist):
		return "", "", nil
	case err != nil:
		return "", "", fmt.Errorf("checking the file before writing it: %w", err)
	case !change.Exists:
		return "a file was created at that path " + where + " after the change was proposed", string(f.Content), nil
	case string(f.Content) != change.Before:
		return "it changed " + where + " after the change was proposed", string(f.Content), nil
	}
	return "", "", nil
}

// diffContent is change as ACP's diff content: the absolute path, the old
// text (none for a new file) and the new, in the file's line endings.
func diffContent(change workspace.FileChange) sdk.ToolCallContent {
	if !change.Exists {
		return sdk.ToolDiffContent(change.Path, change.After)
	}
	return sdk.ToolDiffContent(change.Path, change.After, change.Before)
}

// editTitle is the permission request's title for change: what it does
// to which file, and how many lines it adds and removes.
func (sess *session) editTitle(change workspace.FileChange) string {
	name := workspace.DisplayFrom(sess.cwd, change.Path)
	base, verb := change.Before, "Edit"
	if !change.Exists {
		base, verb = "", "Create"
	}
	added, removed := workspace.DiffLines(base, change.After).Stat()
	return fmt.Sprintf("%s %s (+%d −%d)", verb, name, added, removed)
}

// Confirm asks the user about a call that needs approval (a shell
// command, a web fetch, an MCP tool) or the model fallback through
// session/request_permission. A call the client already shows (it was sent as
// a tool_call) is asked about with a title that names what it does (see
// permissionTitle), its kind and its arguments; the question and the
// details go in the content. A request of no call (the model fallback, a
// custom command's !{…}) is shown as a tool call of its own, asked about,
// and ended.
func (t *turn) Confirm(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	sess := t.sess
	call := sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId(req.CallID),
		Status:     sdk.Ptr(sdk.ToolCallStatusPending),
		Kind:       sdk.Ptr(toolKind(req.Kind.Shows())),
		Title:      sdk.Ptr(req.Title),
		Content:    []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(confirmText(req)))},
	}
	if shown, ok := sess.shownCall(req.CallID); ok {
		call.Title = sdk.Ptr(sess.permissionTitle(req, shown))
		call.Kind = sdk.Ptr(toolKind(shown.Kind))
		call.RawInput = shown.Args
		if *call.Title == req.Details {
			// The title is the command: the content asks, and does not
			// show it a second time.
			call.Content = []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(req.Title))}
		}
	}
	var labels allowLabels
	if req.CanAllowAlways {
		labels = allowLabels{always: "Always allow in this session", permanent: req.Permanent}
		if len(req.AlwaysPrefixes) > 0 {
			labels.prefix = "Always allow " + strings.Join(req.AlwaysPrefixes, " …, ") + " … in this session"
		}
	}
	own := req.CallID == ""
	if own {
		call.ToolCallId = sdk.ToolCallId(fmt.Sprintf("%s-%d", req.Kind, sess.asked.Add(1)))
		if req.Kind == dialog.ConfirmExecute {
			// A command run for the user (a custom command's !{…}) is
			// shown as a shell call of it: the command is its title.
			call.Title, call.RawInput = sdk.Ptr(req.Details), map[string]any{"command": req.Details}
		}
		sess.update(ctx, sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
			ToolCallId: call.ToolCallId, Title: *call.Title, Kind: *call.Kind, Status: sdk.ToolCallStatusPending, RawInput: call.RawInput,
		}})
	}
	a, err := sess.ask(ctx, call, labels)
	if own {
		status := sdk.ToolCallStatusCompleted
		if err != nil || a == rejected {
			status = sdk.ToolCallStatusFailed
		}
		sess.update(ctx, sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: call.ToolCallId, Status: sdk.Ptr(status)}})
	}
	switch {
	case err != nil:
		return dialog.Cancel, err
	case a == allowedOnce:
		return dialog.ProceedOnce, nil
	case a == allowedAlways:
		return dialog.ProceedAlways, nil
	case a == allowedPrefix:
		return dialog.ProceedAlwaysPrefix, nil
	case a == allowedForGood:
		return dialog.ProceedAlwaysAndSave, nil
	}
	return dialog.Cancel, nil
}

// permissionTitle is what a permission request about a shown call says it
// is about, for clients that show the request's title alone: what the
// tool says (a shell call's command, a web fetch's URLs), an MCP call's
// "server: tool", else the call's title.
func (sess *session) permissionTitle(req dialog.ConfirmRequest, shown dialog.ToolCall) string {
	if req.Subject != "" {
		return req.Subject
	}
	if server, tool, ok := sess.setup().MCPOrigin(shown.Name); ok {
		return server + ": " + tool
	}
	if shown.Title != "" {
		return shown.Title
	}
	return req.Title
}

// confirmText is the question and what it is about, as Markdown: the
// details (a command, a tool's arguments, URLs) verbatim in a fence.
func confirmText(req dialog.ConfirmRequest) string {
	text := req.Title
	if req.Details == "" {
		return text
	}
	if req.Kind == dialog.ConfirmModelFallback {
		return text + "\n\n" + req.Details
	}
	return text + "\n\n" + dialog.Fence(req.Kind.DetailsLanguage(), req.Details)
}

// clientError is an error the client answered, in words for the model
// and the log: the JSON-RPC message and the data's error text.
func clientError(err error) string {
	var re *sdk.RequestError
	if !errors.As(err, &re) {
		return err.Error()
	}
	msg := re.Message
	if data, ok := re.Data.(map[string]any); ok {
		for _, key := range []string{"error", "details", "message"} {
			if s, ok := data[key].(string); ok && s != "" {
				return msg + ": " + s
			}
		}
	}
	if s, ok := re.Data.(string); ok && s != "" {
		return msg + ": " + s
	}
	return re.Error()
}
