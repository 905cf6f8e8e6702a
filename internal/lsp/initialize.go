package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/completion"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// ProtocolVersion is the version of the gemini/* protocol in docs/protocol.md.
const ProtocolVersion = 1

// initializedNotification runs Options.StartedUp, once: the client has
// read the initialize result, so start-up is over.
func (s *Server) initializedNotification(noParams) error {
	if s.opts.StartedUp != nil {
		s.startedUp.Do(func() { go s.opts.StartedUp() })
	}
	return nil
}

func (s *Server) initialize(ctx context.Context, p initializeParams) (initializeResult, error) {
	// The options are settings too: refuse now what the agent could not
	// use (a type, an approval mode), before anything is set up.
	if _, err := (settings.Settings{}).With(p.InitializationOptions); err != nil {
		return initializeResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: initializationOptions: %v", err)
	}
	// The flat keys are the editor's explicit choices, like Gemini CLI's
	// flags; nested ones ({"model": {"name": …}}) are settings.
	var opts ClientOptions
	opts.Model, _ = p.InitializationOptions["model"].(string)
	mode, _ := p.InitializationOptions["approvalMode"].(string)
	opts.ApprovalMode = dialog.ApprovalMode(mode)
	trust, err := editorTrust(p.InitializationOptions)
	if err != nil {
		return initializeResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: initializationOptions: %v", err)
	}
	roots, err := p.roots()
	if err != nil {
		return initializeResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	ws, err := workspace.New(roots, s.docs)
	if err != nil {
		return initializeResult{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: workspace roots: %v", err)
	}
	features := p.features()

	s.features.set(features)
	s.agentState.setWorkspace(ws)
	s.completion = completion.New(completion.Config{Workspace: ws, Documents: s.docs, Logger: s.log})
	s.lifecycle.markInitialized()

	place := conversation.Place{
		Workspace:    ws,
		Warn:         s.warnUser,
		ShowAuthURL:  s.showAuthURL,
		Overlay:      withoutEditorTrust(p.InitializationOptions),
		Model:        opts.Model,
		ApprovalMode: opts.ApprovalMode,
		// The built-ins that need no model answer before sign-in.
		WithoutCredentials: true,
	}
	if trust != "" {
		place.Getenv, place.LookupEnv = withEditorTrust(s.opts.Getenv, s.opts.LookupEnv, trust)
	}
	if features.Diagnostics {
		place.Diagnostics = diagnosticsReader{s}
	}
	if features.LanguageFeatures {
		place.CodeIntel = languageFeatures{s}
	}
	s.agentState.setPlace(place)
	built, err := s.host.Build(ctx, place)
	s.agentState.set(built, err)
	s.configureCompletion(built)
	offer := completionOffer{}
	if built != nil {
		ic := built.InlineCompletion()
		offer.inline = ic.Enabled == nil || *ic.Enabled
		offer.items = offer.inline && ic.CompletionItems
	}
	if err == nil {
		err = built.AuthErr()
	}
	if err != nil {
		// The server still serves everything else; prompts answer this error.
		s.log.Warn("the agent is unavailable", zap.Error(err))
	}
	s.log.Info("initialized",
		zap.String("client", features.Name),
		zap.Strings("roots", ws.Roots()),
		zap.String("positionEncoding", encodingName(features.Encoding)),
		zap.Bool("editPreview", features.EditPreview),
		zap.Bool("changeAnnotations", features.ChangeAnnotations),
		zap.Bool("diagnostics", features.Diagnostics),
		zap.Bool("languageFeatures", features.LanguageFeatures),
		zap.String("approvalMode", string(opts.ApprovalMode)))
	return newInitializeResult(features.Encoding, s.opts.Version, offer), nil
}

// initializeResult is initialize's result.
type initializeResult struct {
	Capabilities serverCapabilities `json:"capabilities"`
	ServerInfo   serverInfo         `json:"serverInfo"`
}

type serverCapabilities struct {
	PositionEncoding   string            `json:"positionEncoding"`
	TextDocumentSync   textDocumentSync  `json:"textDocumentSync"`
	CodeActionProvider codeActionOptions `json:"codeActionProvider"`
	// InlineCompletionProvider and CompletionProvider are offered as the
	// inlineCompletion settings say.
	InlineCompletionProvider bool                   `json:"inlineCompletionProvider,omitzero"`
	CompletionProvider       *completionOptions     `json:"completionProvider,omitempty"`
	ExecuteCommandProvider   executeCommandOptions  `json:"executeCommandProvider"`
	Workspace                workspaceCapability    `json:"workspace"`
	Experimental             experimentalCapability `json:"experimental"`
}

// workspaceCapability says the server takes several workspace folders,
// and wants workspace/didChangeWorkspaceFolders when they change.
type workspaceCapability struct {
	WorkspaceFolders struct {
		Supported           bool `json:"supported"`
		ChangeNotifications bool `json:"changeNotifications"`
	} `json:"workspaceFolders"`
}

type completionOptions struct {
	ResolveProvider bool `json:"resolveProvider"`
}

// completionOffer says which completion providers initialize offers.
type completionOffer struct {
	inline bool // textDocument/inlineCompletion
	items  bool // textDocument/completion, for editors without inline completion
}

type textDocumentSync struct {
	OpenClose bool        `json:"openClose"`
	Change    int         `json:"change"`
	Save      saveOptions `json:"save"`
}

type saveOptions struct {
	IncludeText bool `json:"includeText"`
}

type codeActionOptions struct {
	CodeActionKinds []string `json:"codeActionKinds"`
}

type executeCommandOptions struct {
	Commands []string `json:"commands"`
}

type experimentalCapability struct {
	Gemini struct {
		ProtocolVersion int `json:"protocolVersion"`
	} `json:"gemini"`
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// textDocumentSyncIncremental is LSP's TextDocumentSyncKind.Incremental.
const textDocumentSyncIncremental = 2

func newInitializeResult(enc workspace.Encoding, version string, offer completionOffer) initializeResult {
	caps := serverCapabilities{
		PositionEncoding:       encodingName(enc),
		TextDocumentSync:       textDocumentSync{OpenClose: true, Change: textDocumentSyncIncremental},
		CodeActionProvider:     codeActionOptions{CodeActionKinds: []string{"quickfix", "refactor.rewrite", ""}},
		ExecuteCommandProvider: executeCommandOptions{Commands: commandNames()},
	}
	if offer.inline {
		caps.InlineCompletionProvider = true
	}
	if offer.items {
		caps.CompletionProvider = &completionOptions{}
	}
	caps.Workspace.WorkspaceFolders.Supported = true
	caps.Workspace.WorkspaceFolders.ChangeNotifications = true
	caps.Experimental.Gemini.ProtocolVersion = ProtocolVersion
	return initializeResult{Capabilities: caps, ServerInfo: serverInfo{Name: "gemini-ls", Version: version}}
}
