package acp

// What initialize's answer declares beyond the SDK's types: the stable
// session/delete, and the unstable methods and fields gemini-ls serves,
// each as the unstable schema names its capability.

import (
	"encoding/json"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
)

// ownSessionCapabilities are the members of agentCapabilities'
// sessionCapabilities the SDK's type lacks.
type ownSessionCapabilities struct {
	Delete struct{} `json:"delete"` // session/delete (stable)
	// Unstable: session/set_title, session/archive and unarchive (with
	// session/list's filter and SessionInfo.archived), session/status,
	// and systemPrompt on session/new, load and resume, override too.
	Title        struct{}                        `json:"title"`
	Archive      struct{}                        `json:"archive"`
	Status       struct{}                        `json:"status"`
	SystemPrompt sessionSystemPromptCapabilities `json:"systemPrompt"`
}

// sessionSystemPromptCapabilities is SessionSystemPromptCapabilities:
// append, and the modes named in Mode.
type sessionSystemPromptCapabilities struct {
	Mode *systemPromptModeCapabilities `json:"mode,omitempty"`
	Meta meta                          `json:"_meta,omitempty"`
}

// systemPromptModeCapabilities is SessionSystemPromptModeCapabilities.
type systemPromptModeCapabilities struct {
	Override *struct{} `json:"override,omitempty"`
	Meta     meta      `json:"_meta,omitempty"`
}

// ownAuthCapabilities are the members of agentCapabilities' auth the
// SDK's type lacks: auth/status (unstable).
type ownAuthCapabilities struct {
	Status struct{} `json:"status"`
}

// withOwnCapabilities is initialize's answer res with what gemini-ls
// serves beyond the SDK's types declared.
func withOwnCapabilities(res sdk.InitializeResponse) (map[string]json.RawMessage, error) {
	fields, err := members(res)
	if err != nil {
		return nil, fmt.Errorf("encoding initialize's answer: %w", err)
	}
	caps, err := members(fields["agentCapabilities"])
	if err != nil {
		return nil, fmt.Errorf("reading the agent capabilities: %w", err)
	}
	session := ownSessionCapabilities{SystemPrompt: sessionSystemPromptCapabilities{Mode: &systemPromptModeCapabilities{Override: &struct{}{}}}}
	for key, own := range map[string]any{"sessionCapabilities": session, "auth": ownAuthCapabilities{}} {
		if caps[key], err = overlay(caps[key], own); err != nil {
			return nil, fmt.Errorf("declaring the agent's %s: %w", key, err)
		}
	}
	if fields["agentCapabilities"], err = json.Marshal(caps); err != nil {
		return nil, err
	}
	return fields, nil
}

// members are v's JSON object members; none for null or nothing.
func members(v any) (map[string]json.RawMessage, error) {
	b, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	m := map[string]json.RawMessage{}
	if len(b) == 0 || string(b) == "null" {
		return m, nil
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// overlay is the object base with own's members set over its own.
func overlay(base json.RawMessage, own any) (json.RawMessage, error) {
	m, err := members(base)
	if err != nil {
		return nil, err
	}
	add, err := members(own)
	if err != nil {
		return nil, err
	}
	for k, v := range add {
		m[k] = v
	}
	return json.Marshal(m)
}
