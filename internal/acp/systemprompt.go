package acp

// The client's system prompt (unstable: systemPrompt on session/new,
// load and resume, sessionCapabilities.systemPrompt with
// mode.override): read here, since the SDK's request types drop it,
// and built into the session's agent (conversation.Place.ClientPrompt),
// where the agent's rules about approvals stay whatever the mode.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// maxSystemPrompt bounds a client's system prompt: instructions, not
// data (as GEMINI_SYSTEM_MD's file is bounded).
const maxSystemPrompt = 1 << 20

// clientPrompt is the system prompt a session lifecycle request carries
// (raw, its params): none when absent or null; a mode gemini-ls does
// not serve, content other than text, or none, is invalid params, and
// nothing of the request is done, as the schema asks.
func clientPrompt(raw json.RawMessage) (dialog.ClientPrompt, error) {
	var p withSystemPrompt
	if err := decodeParams(raw, &p); err != nil {
		return dialog.ClientPrompt{}, err
	}
	sp := p.SystemPrompt
	if sp == nil {
		return dialog.ClientPrompt{}, nil
	}
	var out dialog.ClientPrompt
	switch sp.Mode {
	case "append":
	case "override":
		out.Override = true
	default:
		return dialog.ClientPrompt{}, invalidParams(fmt.Sprintf("systemPrompt.mode %q is not one gemini-ls serves: append or override", sp.Mode))
	}
	if len(sp.Content) == 0 {
		return dialog.ClientPrompt{}, invalidParams("systemPrompt.content is empty: give it text blocks, or leave systemPrompt out")
	}
	var text []string
	for i, block := range sp.Content {
		if block.Text == nil {
			return dialog.ClientPrompt{}, invalidParams(fmt.Sprintf("systemPrompt.content[%d] is not a text block: a system prompt is text", i))
		}
		text = append(text, block.Text.Text)
	}
	out.Text = strings.Join(text, "\n\n")
	if len(out.Text) > maxSystemPrompt {
		return dialog.ClientPrompt{}, invalidParams(fmt.Sprintf("systemPrompt is %d bytes, more than the %d a system prompt may be", len(out.Text), maxSystemPrompt))
	}
	if strings.TrimSpace(out.Text) == "" {
		return dialog.ClientPrompt{}, invalidParams("systemPrompt.content holds no text")
	}
	return out, nil
}

// lifecycle reads a session lifecycle request's params as the SDK's type
// T (validated as the SDK's connection does) and its system prompt.
func lifecycle[T any, P interface {
	*T
	Validate() error
}](raw json.RawMessage) (T, dialog.ClientPrompt, error) {
	var p T
	if err := decodeParams(raw, &p); err != nil {
		return p, dialog.ClientPrompt{}, err
	}
	if err := P(&p).Validate(); err != nil {
		return p, dialog.ClientPrompt{}, invalidParams(err.Error())
	}
	prompt, err := clientPrompt(raw)
	return p, prompt, err
}

// newSessionV1 is session/new with the client's system prompt.
func (s *server) newSessionV1(ctx context.Context, raw json.RawMessage) (any, error) {
	p, prompt, err := lifecycle[sdk.NewSessionRequest](raw)
	if err != nil {
		return nil, err
	}
	return s.newSession(ctx, p, prompt)
}

// loadSessionV1 is session/load with the client's system prompt.
func (s *server) loadSessionV1(ctx context.Context, raw json.RawMessage) (any, error) {
	p, prompt, err := lifecycle[sdk.LoadSessionRequest](raw)
	if err != nil {
		return nil, err
	}
	return s.loadSession(ctx, p, prompt)
}

// resumeSessionV1 is session/resume with the client's system prompt.
func (s *server) resumeSessionV1(ctx context.Context, raw json.RawMessage) (any, error) {
	p, prompt, err := lifecycle[sdk.ResumeSessionRequest](raw)
	if err != nil {
		return nil, err
	}
	return s.resumeSession(ctx, p, prompt)
}
