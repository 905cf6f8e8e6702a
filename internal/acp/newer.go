package acp

// The messages of ACP v1.34 (@agentclientprotocol/sdk 2.4.0's schema,
// testdata/acpschema) that the SDK's v0.13.0 types cannot say, as typed
// Go: each type's JSON members are its schema definition's properties,
// which TestNewerTypesMatchTheSchema holds them to. Stable: the notice,
// the compaction update, the tool call's name, the client's session
// capabilities. Unstable: the rest, each behind the capability
// initialize declares for it (capabilities.go).

import (
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"
)

// Methods the SDK lacks; wire answers them (wire_own.go).
const (
	methodSessionSetTitle  = "session/set_title"
	methodSessionArchive   = "session/archive"
	methodSessionUnarchive = "session/unarchive"
	methodSessionStatus    = "session/status"
	methodAuthStatus       = "auth/status"
)

// meta is the _meta every ACP message may carry.
type meta = map[string]any

// noticeUpdate is the stable session update "notice" (Notice): live
// information for the user that is not the session's history, sent only
// to a client that declared clientCapabilities.session.notices.
type noticeUpdate struct {
	SessionUpdate string  `json:"sessionUpdate"` // "notice"
	Severity      string  `json:"severity"`      // info, warning, error
	Title         string  `json:"title"`         // never empty
	Description   *string `json:"description,omitempty"`
	Meta          meta    `json:"_meta,omitempty"`
}

// compactionUpdate is the stable session update "compaction_update"
// (CompactionUpdate), sent only to a client that declared
// clientCapabilities.session.compaction.
type compactionUpdate struct {
	SessionUpdate string             `json:"sessionUpdate"` // "compaction_update"
	CompactionID  string             `json:"compactionId"`
	Status        string             `json:"status"` // in_progress, completed, failed, cancelled
	Summary       []sdk.ContentBlock `json:"summary,omitempty"`
	Error         *string            `json:"error,omitempty"`
	Meta          meta               `json:"_meta,omitempty"`
}

// clientSessionCapabilities is clientCapabilities.session
// (ClientSessionCapabilities): each member given and not null declares
// it.
type clientSessionCapabilities struct {
	Compaction    json.RawMessage `json:"compaction,omitempty"`
	ConfigOptions json.RawMessage `json:"configOptions,omitempty"`
	Notices       json.RawMessage `json:"notices,omitempty"`
	Meta          meta            `json:"_meta,omitempty"`
}

// declared reports whether a capability member is given and not null.
func declared(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// systemPromptParam is the unstable systemPrompt of session/new, load
// and resume (SystemPrompt).
type systemPromptParam struct {
	Mode    string             `json:"mode"` // append, override
	Content []sdk.ContentBlock `json:"content"`
	Meta    meta               `json:"_meta,omitempty"`
}

// withSystemPrompt is what a session lifecycle request carries that the
// SDK's types do not read.
type withSystemPrompt struct {
	SystemPrompt *systemPromptParam `json:"systemPrompt"`
}

// setSessionTitleRequest is session/set_title's params
// (SetSessionTitleRequest).
type setSessionTitleRequest struct {
	SessionID *sdk.SessionId `json:"sessionId"`
	Title     *string        `json:"title"`
	Meta      meta           `json:"_meta,omitempty"`
}

// setSessionTitleResponse is session/set_title's result: the title as
// stored.
type setSessionTitleResponse struct {
	Title string `json:"title"`
	Meta  meta   `json:"_meta,omitempty"`
}

// sessionRequest is the params of session/archive, session/unarchive
// and session/status (ArchiveSessionRequest, UnarchiveSessionRequest,
// SessionStatusRequest): the session's id.
type sessionRequest struct {
	SessionID *sdk.SessionId `json:"sessionId"`
	Meta      meta           `json:"_meta,omitempty"`
}

// emptyResponse is the result of session/archive and session/unarchive
// (ArchiveSessionResponse, UnarchiveSessionResponse).
type emptyResponse struct {
	Meta meta `json:"_meta,omitempty"`
}

// sessionStatusResponse is session/status's result
// (SessionStatusResponse).
type sessionStatusResponse struct {
	Status string `json:"status"` // open, saved
	Meta   meta   `json:"_meta,omitempty"`
}

// authStatusRequest is auth/status's params (AuthStatusRequest).
type authStatusRequest struct {
	Meta meta `json:"_meta,omitempty"`
}

// authStatusResponse is auth/status's result (AuthStatusResponse).
type authStatusResponse struct {
	State    string        `json:"state"` // authenticated, unauthenticated
	Accounts []authAccount `json:"accounts,omitempty"`
	Meta     meta          `json:"_meta,omitempty"`
}

// authAccount is one login auth/status reports (AuthAccount), for
// display alone.
type authAccount struct {
	Label        string  `json:"label"`
	Active       *bool   `json:"active,omitempty"`
	Name         *string `json:"name,omitempty"`
	Email        *string `json:"email,omitempty"`
	Organization *string `json:"organization,omitempty"`
	Meta         meta    `json:"_meta,omitempty"`
}

// listSessionsRequest is session/list's params with the unstable
// archive filter (ListSessionsRequest).
type listSessionsRequest struct {
	Cwd      *string `json:"cwd,omitempty"`
	Cursor   *string `json:"cursor,omitempty"`
	Archived *string `json:"archived,omitempty"` // exclude (the default), include, only
	Meta     meta    `json:"_meta,omitempty"`
}

// listSessionsResponse is session/list's result (ListSessionsResponse).
type listSessionsResponse struct {
	Sessions   []sessionInfo `json:"sessions"`
	NextCursor *string       `json:"nextCursor,omitempty"`
	Meta       meta          `json:"_meta,omitempty"`
}

// sessionInfo is one session session/list lists (SessionInfo), with
// whether it is archived, which every listed session says once the
// archive capability is declared.
type sessionInfo struct {
	SessionID             sdk.SessionId `json:"sessionId"`
	Cwd                   string        `json:"cwd"`
	AdditionalDirectories []string      `json:"additionalDirectories,omitempty"`
	Title                 *string       `json:"title,omitempty"`
	UpdatedAt             *string       `json:"updatedAt,omitempty"`
	Archived              bool          `json:"archived"`
	Meta                  meta          `json:"_meta,omitempty"`
}

// namedToolCall is a tool_call as sent: the SDK's, with the tool's own
// name (read_file) beside its title, which ToolCall has and the SDK's
// type lacks.
type namedToolCall struct {
	call *sdk.SessionUpdateToolCall
	name string
}

func (n namedToolCall) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(sdk.SessionUpdate{ToolCall: n.call})
	if err != nil || n.name == "" {
		return b, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	if fields["name"], err = json.Marshal(n.name); err != nil {
		return nil, err
	}
	return json.Marshal(fields)
}
