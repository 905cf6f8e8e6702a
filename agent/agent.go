package agent

import (
	"crypto/rand"
	"sync"
	"time"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/tools"
	"github.com/gemini-ls/gemini-ls/workspace"
)

// DefaultModel is used when Config.Model is empty.
const DefaultModel = "gemini-2.5-pro"

// DefaultMaxTurns is used when Config.MaxTurns is zero.
const DefaultMaxTurns = 100

// ToolSet is what the agent needs of a tool registry; *tools.Registry
// satisfies it.
type ToolSet interface {
	Get(name string) (tools.Tool, bool)
	Declarations() []*genai.FunctionDeclaration
	// UnknownToolError is the message sent to the model for a call to a
	// tool that does not exist.
	UnknownToolError(name string) string
}

// Config configures an Agent.
type Config struct {
	Generator ContentGenerator
	// Model defaults to DefaultModel.
	Model string
	Tools ToolSet
	// Workspace is where the prompt's @paths are read; none when nil.
	Workspace *workspace.Workspace
	// Confirmer asks the user before calls that need approval. Without one,
	// such calls are declined unless ApprovalMode is yolo.
	Confirmer    Confirmer
	ApprovalMode tools.ApprovalMode
	// AllowedTools are permission keys that run without asking (settings'
	// tools.allowed).
	AllowedTools []string
	// MaxTurns bounds the model requests of a session; DefaultMaxTurns when 0.
	MaxTurns int
	// SystemPrompt defaults to DefaultSystemPrompt.
	SystemPrompt string
	// Logger receives the api_request/api_response/api_error events; none
	// when nil.
	Logger *zap.Logger
	// AuthType is logged with each response and error (Auth.Type).
	AuthType string
	Retry    RetryPolicy
	// Thinking asks the model to include its thoughts.
	Thinking bool
	// Now is the clock for durations and log timestamps; time.Now when nil.
	Now func() time.Time
	// ThinkingBudget caps the tokens a thinking model may think with
	// (settings' model.thinkingBudget; 0 turns thinking off where the model
	// allows, -1 lets it decide); the model's default when nil.
	ThinkingBudget *int32
}

// Agent runs sessions against one model with one set of tools. Sessions
// run concurrently; each runs one prompt at a time.
type Agent struct {
	cfg Config
	log apiLog

	mu       sync.Mutex
	sessions map[string]*Session
}

// New returns an Agent; cfg.Generator is required.
func New(cfg Config) *Agent {
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	if cfg.SystemPrompt == "" {
		cfg.SystemPrompt = DefaultSystemPrompt
	}
	if cfg.ApprovalMode == "" {
		cfg.ApprovalMode = tools.ApprovalDefault
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Agent{
		cfg:      cfg,
		log:      apiLog{log: cfg.Logger, authType: cfg.AuthType, now: cfg.Now},
		sessions: make(map[string]*Session),
	}
}

// approvalMode is what the sessions' approval services read.
func (a *Agent) approvalMode() tools.ApprovalMode {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.ApprovalMode
}

// SetApprovalMode changes what runs without asking, for every session,
// from the next call on.
func (a *Agent) SetApprovalMode(mode tools.ApprovalMode) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.ApprovalMode = mode
}

// NewSession starts a conversation with an empty history and a random id.
func (a *Agent) NewSession() *Session {
	s := &Session{
		id:      rand.Text(),
		agent:   a,
		running: make(chan struct{}, 1),
	}
	s.approvals = newApprovals(a.approvalMode, a.cfg.AllowedTools)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sessions[s.id] = s
	return s
}

// Session returns the session with id.
func (a *Agent) Session(id string) (*Session, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	return s, ok
}

// EndSession forgets the session with id; a prompt it is running finishes.
func (a *Agent) EndSession(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.sessions, id)
}

// generateConfig is what every model request of the agent carries.
func (a *Agent) generateConfig() *genai.GenerateContentConfig {
	cfg := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText(a.cfg.SystemPrompt, genai.RoleUser),
	}
	if a.cfg.Tools != nil {
		if decls := a.cfg.Tools.Declarations(); len(decls) > 0 {
			cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
		}
	}
	// Only models that think take a thinking config; gemini-2.0 and
	// earlier refuse the request that carries one.
	if thinks(a.cfg.Model) && (a.cfg.Thinking || a.cfg.ThinkingBudget != nil) {
		cfg.ThinkingConfig = &genai.ThinkingConfig{
			IncludeThoughts: a.cfg.Thinking,
			ThinkingBudget:  a.cfg.ThinkingBudget,
		}
	}
	return cfg
}
