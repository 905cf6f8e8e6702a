package lsp

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Folder trust (internal/conversation/trust.go): the first prompt in a folder no
// rule decides asks whether to trust it, and a prompt after the folders'
// trust changed runs in the agent built anew, which every session of the
// connection shares from then on.

// AskTrust puts the trust question: as gemini/ask of kind "trust" to our
// plugins, which ask it as they ask the model's questions; else as
// window/showMessageRequest whose actions are exactly the three answers,
// closing it answering nothing.
func (p presenter) AskTrust(ctx context.Context, req dialog.TrustRequest) (string, error) {
	s := p.s
	if s.features.get().Ask {
		return p.askTrustPlugin(ctx, req)
	}
	if !s.asking.canAsk() {
		return "", fmt.Errorf("%w: this editor cannot show a question", dialog.ErrCannotAsk)
	}
	var actions []string
	for _, o := range dialog.TrustOptions() {
		actions = append(actions, o.Label)
	}
	action, err := s.showMessageRequest(ctx, protocol.MessageTypeWarning, "Gemini: "+req.Title()+" "+req.Text(), actions...)
	switch {
	case errors.Is(err, errNoShowMessageRequest):
		return "", fmt.Errorf("%w: this editor cannot show a question", dialog.ErrCannotAsk)
	case err != nil:
		return "", fmt.Errorf("asking whether to trust the folder: %w", err)
	case action == "":
		return "", nil
	}
	if level := dialog.TrustLevelOf(action); level != "" {
		return level, nil
	}
	return "", fmt.Errorf("window/showMessageRequest was answered with %q, which was not offered", action)
}

// askTrustPlugin puts the trust question as gemini/ask: one of the three
// answers, by the level it records, each with what it does; declining
// answers nothing.
func (p presenter) askTrustPlugin(ctx context.Context, req dialog.TrustRequest) (string, error) {
	q := askParams{SessionID: req.SessionID, Kind: "trust", Title: req.Title(), Text: req.Text(), Options: []askedOption{}}
	for _, o := range dialog.TrustOptions() {
		q.Options = append(q.Options, askedOption{ID: o.Level, Label: o.Label, Description: o.Description})
	}
	var res askResult
	if err := p.s.askUser(ctx, "gemini/ask", q, &res); err != nil {
		return "", fmt.Errorf("gemini/ask: %w", err)
	}
	if res.Declined || len(res.Chosen) == 0 {
		return "", nil
	}
	for _, o := range dialog.TrustOptions() {
		if len(res.Chosen) == 1 && res.Chosen[0] == o.Level {
			return o.Level, nil
		}
	}
	return "", fmt.Errorf("gemini/ask: the answer chose %q, which is not one of the options offered", res.Chosen)
}

// settleTrust readies claim's prompt in for the folders' trust: the first
// prompt puts the trust question (Claim.AskTrust) through the prompt's
// view v; when the trust differs from the agent's, the agent is built
// anew (Host.Rebuild), as after a sign-in, for every session; the claim's
// session continues in the agent of now. One prompt settles at a time, so
// that the question is put once and the agent built anew once.
func (s *Server) settleTrust(claim *conversation.Claim[struct{}], in dialog.Input, v conversation.View) {
	ctx := claim.Context()
	select {
	case s.trustTurn <- struct{}{}:
		defer func() { <-s.trustTurn }()
	case <-ctx.Done():
		return
	}
	b := s.agentState.setup()
	if b == nil {
		return
	}
	// Workspace folders added since (didChangeWorkspaceFolders) are the
	// agent's roots first, so that the question is put about a new one.
	if b.RootsChanged() && !s.rebuildFor(ctx, b, claim, "the workspace folders changed") {
		return
	}
	claim.AskTrust(in, v)
	if b.Stale() && !s.rebuildFor(ctx, b, claim, "the folders' trust or the extensions changed") {
		return
	}
	s.moveClaim(claim)
}

// rebuildFor makes b's agent anew, because of why, and moves claim's
// session into it; false when it could not be made.
func (s *Server) rebuildFor(ctx context.Context, b *conversation.Build, claim *conversation.Claim[struct{}], why string) bool {
	if err := s.host.Rebuild(ctx, b); err != nil {
		s.log.Warn("the agent was not set up again", zap.String("why", why), zap.Error(err))
		return false
	}
	s.configureCompletion(b)
	s.log.Info(why+": the agent was set up again", zap.Strings("untrusted", b.Untrusted()))
	s.moveClaim(claim)
	return true
}

// moveClaim continues claim's session in the agent of now.
func (s *Server) moveClaim(claim *conversation.Claim[struct{}]) {
	if err := claim.Move(); err != nil {
		s.log.Warn("the session did not move to the agent set up again", zap.String("sessionId", claim.Live().ID()), zap.Error(err))
	}
}
