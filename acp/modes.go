package acp

// SKELETON (helper "sessions" replaces this file): approval modes and
// the model, as modes and config options.

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"
)

func (sess *session) modes() *sdk.SessionModeState             { return nil }
func (sess *session) configOptions() []sdk.SessionConfigOption { return nil }

func (s *server) SetSessionMode(context.Context, sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	return sdk.SetSessionModeResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetMode)
}

func (s *server) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}
