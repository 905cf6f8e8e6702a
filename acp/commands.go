package acp

// SKELETON (helper "sessions" replaces this file): slash commands and
// available_commands_update.

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/agent"
)

// announce tells the client the session's commands.
func (sess *session) announce() {}

// runCommand runs a slash command; done is false for a prompt that is not one.
func (sess *session) runCommand(context.Context, agent.Input) (done bool, res sdk.PromptResponse, err error) {
	return false, sdk.PromptResponse{}, nil
}
