package setup

import (
	"context"
	"fmt"
	"sync"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/subagents"
	"github.com/gemini-ls/gemini-ls/internal/subagents/remote"
)

// remoteAgents runs the catalogue's remote agents (agent.RemoteInvoker)
// with one client per agent for the build's life: as 0.61 does, a client
// keeps the agent's A2A context, and a task waiting for input, from one
// call to the next.
type remoteAgents struct {
	opts remote.Options

	// mu guards clients.
	mu      sync.Mutex
	clients map[string]remoteClient // by agent name
}

// remoteClient is an agent's client and what it was made from.
type remoteClient struct {
	*remote.Client
	made string // remoteKey of the definition
}

// remoteKey is what of a remote definition its client is made from.
func remoteKey(def subagents.Definition) string {
	auth := ""
	if def.Auth != nil {
		auth = fmt.Sprintf("%+v", *def.Auth)
	}
	return def.CardURL + "\x00" + def.CardJSON + "\x00" + auth
}

func newRemoteAgents(opts remote.Options) *remoteAgents {
	return &remoteAgents{opts: opts, clients: map[string]remoteClient{}}
}

// Invoke sends query to def's agent and returns what the main agent
// reads: the answer, or the partial answer and 0.61's words for what
// failed (the text, never err's, is the model's). Its progress is
// emitted as the subagent's text.
func (r *remoteAgents) Invoke(ctx context.Context, def subagents.Definition, query string, emit func(dialog.Event)) (string, error) {
	c, err := r.client(def)
	if err != nil {
		return "", err
	}
	return c.Run(ctx, query, func(p remote.Progress) {
		if p.Delta != "" {
			emit(dialog.TextEvent{Text: p.Delta})
		}
	})
}

// credentialWithheld says why def's credential goes with none of its
// service's requests, once its card has been read for def as it is now;
// "" otherwise.
func (r *remoteAgents) credentialWithheld(def subagents.Definition) string {
	r.mu.Lock()
	c, ok := r.clients[def.Name]
	r.mu.Unlock()
	if !ok || c.made != remoteKey(def) {
		return ""
	}
	return c.CredentialWithheld()
}

// client is def's agent's client, made on its first call; a definition
// changed since (a reload) gets a new one.
func (r *remoteAgents) client(def subagents.Definition) (*remote.Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := remoteKey(def)
	if c, ok := r.clients[def.Name]; ok && c.made == key {
		return c.Client, nil
	}
	c, err := remote.New(&def, r.opts)
	if err != nil {
		return nil, err
	}
	r.clients[def.Name] = remoteClient{Client: c, made: key}
	return c, nil
}
