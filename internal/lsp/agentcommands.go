package lsp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/fleet"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// The agents' commands put them within reach of clients that cannot
// send gemini/* requests (Helix, stock eglot): start one, see them all
// as a document, land or discard one.
const (
	CommandStartAgent   = "gemini.startAgent"
	CommandAgents       = "gemini.agents"
	CommandLandAgent    = "gemini.landAgent"
	CommandDiscardAgent = "gemini.discardAgent"
)

// startAgentArgs is gemini.startAgent's argument.
type startAgentArgs struct {
	Prompt   *string `json:"prompt"`
	Worktree string  `json:"worktree,omitempty"`
}

// startAgentCommand runs gemini.startAgent: a new agent in a worktree
// of its own, the turn going on after the answer, as gemini.prompt's.
func (s *Server) startAgentCommand(ctx context.Context, args []json.RawMessage) (commandStarted, error) {
	var a startAgentArgs
	const need = `invalid params: gemini.startAgent needs an argument: the task, or {"prompt": "...", "worktree": "name"}`
	if len(args) == 0 {
		return commandStarted{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, need)
	}
	var prompt string
	if json.Unmarshal(args[0], &prompt) == nil {
		a.Prompt = &prompt
	} else if err := decodeParams(args[0], &a); err != nil {
		return commandStarted{}, err
	}
	if a.Prompt == nil || strings.TrimSpace(*a.Prompt) == "" {
		return commandStarted{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, need)
	}
	_, f, err := s.state()
	if err != nil {
		return commandStarted{}, err
	}
	live, agent, err := s.startAgent(ctx, a.Worktree, *a.Prompt)
	if err != nil {
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: "Gemini: " + err.Error()})
		return commandStarted{}, err
	}
	claim, err := s.host.Begin(s.life, live.ID())
	if err != nil {
		return commandStarted{}, unclaimed(err)
	}
	turn := &agentTurn{s, agent.Worktree.Path, true}
	reported := s.reports.begin(live.ID())
	s.handlers.start()
	go func() {
		defer s.handlers.finish()
		defer s.reports.end(live.ID(), reported)
		s.commandTurn(claim, dialog.Input{Text: *a.Prompt}, f, turn)
	}()
	return commandStarted{SessionID: live.ID(), Status: "started"}, nil
}

// agentArg decodes the argument naming an agent: {"sessionId": ...},
// {"worktree": ...}, or a bare string, either.
func agentArg(args []json.RawMessage, command string) (landAgentParams, error) {
	var p landAgentParams
	if len(args) == 0 {
		return p, jsonrpc2.Errorf(jsonrpc2.InvalidParams, `invalid params: %s needs an argument: the agent's worktree name or session id`, command)
	}
	var name string
	if json.Unmarshal(args[0], &name) == nil {
		p.SessionID, p.Worktree, p.ID = name, name, name
		return p, nil
	}
	return p, decodeParams(args[0], &p)
}

// landAgentCommand runs gemini.landAgent.
func (s *Server) landAgentCommand(ctx context.Context, args []json.RawMessage) (landAgentResult, error) {
	p, err := agentArg(args, CommandLandAgent)
	if err != nil {
		return landAgentResult{}, err
	}
	res, err := s.landAgent(ctx, p)
	s.tellCommandResult(res.Message, err)
	return res, err
}

// discardAgentCommand runs gemini.discardAgent.
func (s *Server) discardAgentCommand(ctx context.Context, args []json.RawMessage) (discardAgentResult, error) {
	p, err := agentArg(args, CommandDiscardAgent)
	if err != nil {
		return discardAgentResult{}, err
	}
	res, err := s.discardAgent(ctx, discardAgentParams{p.agentRef})
	if err == nil && res.Discarded {
		s.tellCommandResult("Gemini: the agent is discarded.", nil)
	}
	return res, err
}

// tellCommandResult shows a command's outcome where the client shows
// nothing of a command's result (Helix, eglot).
func (s *Server) tellCommandResult(msg string, err error) {
	typ := protocol.MessageTypeInfo
	if err != nil {
		typ, msg = protocol.MessageTypeError, "Gemini: "+err.Error()
	}
	if msg != "" {
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: typ, Message: msg})
	}
}

// agentsDocument is gemini.agents' result: where the list was written.
type agentsDocument struct {
	URI string `json:"uri"`
}

// agentsCommand runs gemini.agents: the agents as a Markdown document
// in the state directory, opened in the editor (window/showDocument)
// where it can, its path told where it cannot.
func (s *Server) agentsCommand(ctx context.Context, _ []json.RawMessage) (agentsDocument, error) {
	if err := s.discoverAgents(ctx); err != nil {
		return agentsDocument{}, requestFailed(err)
	}
	dir := conversation.StateDir(s.getenv)
	if dir == "" {
		return agentsDocument{}, requestFailed(fmt.Errorf("no state directory to write the agents' list in (neither XDG_STATE_HOME nor HOME is set)"))
	}
	path := filepath.Join(dir, "agents.md")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return agentsDocument{}, requestFailed(fmt.Errorf("writing the agents' list: %w", err))
	}
	if err := safefile.Replace(path, []byte(agentsMarkdown(s.fleet.List(), time.Now())), 0o600); err != nil {
		return agentsDocument{}, requestFailed(fmt.Errorf("writing the agents' list: %w", err))
	}
	doc := uri.File(path)
	if s.features.get().ShowDocument {
		focus := true
		var res protocol.ShowDocumentResult
		if err := s.call(ctx, "window/showDocument", &protocol.ShowDocumentParams{URI: doc, TakeFocus: &focus}, &res); err != nil {
			s.log.Info("window/showDocument of the agents' list", zap.Error(err))
		}
	} else {
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: "Gemini: the agents are listed in " + path})
	}
	return agentsDocument{URI: string(doc)}, nil
}

// agentsMarkdown is the agents' list as a stock client shows it: one
// section each, with the commands that act on it.
func agentsMarkdown(list []fleet.Agent, now time.Time) string {
	var b strings.Builder
	b.WriteString("# Gemini agents\n\n")
	if len(list) == 0 {
		b.WriteString("No agents. Start one with the command `gemini.startAgent` and the task as its argument, or one on GitHub Actions with `gemini.delegate`.\n")
		return b.String()
	}
	for _, a := range list {
		fmt.Fprintf(&b, "## %s — %s\n\n", a.Worktree.Name, stateWords(a.State))
		if a.Title != "" {
			fmt.Fprintf(&b, "%s\n\n", a.Title)
		}
		fmt.Fprintf(&b, "- Elapsed: %s; tokens: %d\n", elapsed(a, now), a.Tokens)
		if bg := a.Background; bg != nil {
			fmt.Fprintf(&b, "- On GitHub Actions in %s: %s\n", bg.Repository, cmp.Or(bg.RunURL, "its run not started yet"))
			if bg.PullURL != "" {
				fmt.Fprintf(&b, "- Pull request #%d: %s; follow up: `gemini.followUpAgent {\"id\": %q, \"prompt\": \"…\"}`\n", bg.PullNumber, bg.PullURL, bg.ID)
			}
			if !bg.Fetched {
				if a.Err != "" {
					fmt.Fprintf(&b, "- Error: %s\n", a.Err)
				}
				fmt.Fprintf(&b, "- Its work comes to %s when the run ends; forget it: `gemini.discardAgent %s`\n\n", a.Worktree.Path, bg.ID)
				continue
			}
		}
		fmt.Fprintf(&b, "- Worktree: %s (branch `%s`)\n", a.Worktree.Path, a.Worktree.Branch)
		if a.Question != "" && a.State == fleet.Waiting {
			fmt.Fprintf(&b, "- Waiting for you: %s\n", a.Question)
		}
		if a.Err != "" {
			fmt.Fprintf(&b, "- Error: %s\n", a.Err)
		}
		if len(a.Files) == 0 {
			b.WriteString("- Files changed: none\n")
		} else {
			b.WriteString("- Files changed:\n")
			for _, f := range a.Files {
				fmt.Fprintf(&b, "  - %s (%s, +%d −%d)\n", f.Path, f.Status, f.Added, f.Removed)
			}
		}
		fmt.Fprintf(&b, "- Land: `gemini.landAgent %s`; discard: `gemini.discardAgent %s`\n\n", a.Worktree.Name, a.Worktree.Name)
	}
	return b.String()
}

// stateWords is how the list says a state.
func stateWords(s fleet.State) string {
	if s == fleet.Waiting {
		return "waiting for you"
	}
	return string(s)
}

// elapsed is how long the agent has worked: until its last turn's end,
// or until now while one runs.
func elapsed(a fleet.Agent, now time.Time) string {
	if a.StartedAt.IsZero() {
		return "unknown"
	}
	end := a.EndedAt
	if end.IsZero() {
		end = now
	}
	return end.Sub(a.StartedAt).Round(time.Second).String()
}
