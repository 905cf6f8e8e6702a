package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"runtime"

	"go.lsp.dev/protocol"
)

// The protocol's methods are declared once, in protocolMethods: every
// method gemini-ls serves or sends, with who sends it, its params and
// result types, when in the connection's life the server handles it, and
// whether its handler releases the read loop. Dispatch (server.go) derives
// from the table, and a test checks docs/protocol.md against it.

// direction says who sends a method.
type direction uint8

const (
	clientToServer direction = iota + 1
	serverToClient
	bothWays
)

// kind says whether a method is answered.
type kind uint8

const (
	requestKind kind = iota + 1
	notificationKind
)

// phase is a stage of the connection's LSP lifecycle; a set of them says
// when a method is handled.
type phase uint8

const (
	uninitialized phase = 1 << iota // until initialize succeeds
	serving                         // from then until shutdown
	shutDown                        // after shutdown, until exit
	anyPhase      = uninitialized | serving | shutDown
)

// paramsRule says how a handled method's params are read.
type paramsRule uint8

const (
	// paramsRequired: absent or null params are InvalidParams.
	paramsRequired paramsRule = iota
	// paramsOptional: absent or null params read as the zero value.
	paramsOptional
	// paramsIgnored: the params are never read, whatever they are.
	paramsIgnored
)

// method is one message of the protocol.
type method struct {
	name string
	dir  direction
	sig  signature
	// params says how the server reads the params of what it handles.
	params paramsRule
	// runs are the phases in which the server handles it; serving when
	// zero. Outside them a request is refused and a notification dropped.
	runs phase
	// async: the handler releases the read loop (jsonrpc2.Async) before it
	// starts, because it calls back into the client and waits for the
	// answer. Every other handler runs on the read loop, so notifications
	// are handled in wire order.
	async bool
	// pin: the handler answers for the document its params'
	// textDocument.uri names as it was when the request arrived, after
	// the didChanges before it and none after (arrivedAt): the version is
	// read on the read loop, before an async handler releases it.
	pin bool
	// maxParams bounds a request's params as they arrive, encoded: larger
	// ones are refused before they are copied or decoded (a prompt's
	// copies cost many times its size). 0: only maxFrame bounds them.
	maxParams int
}

func (m *method) handledIn(p phase) bool {
	runs := m.runs
	if runs == 0 {
		runs = serving
	}
	return runs&p != 0
}

// signature is a method's shape: request or notification, the Go types of
// its params and result, and for what the server handles, the handler.
type signature struct {
	kind   kind
	params reflect.Type
	result reflect.Type // nil for a notification
	// serve decodes the params by rule, runs the handler and returns its
	// result; nil for a method the server only sends.
	serve func(s *Server, ctx context.Context, raw json.RawMessage, rule paramsRule) (any, error)
}

// noParams are the params of a method that takes none.
type noParams struct{}

// nothing is the result of a request answered with null.
type nothing *struct{}

// request adapts a typed request handler: params decoded strictly (the
// errors are InvalidParams naming the field), the result left for the
// connection's codec to encode.
func request[P, R any](fn func(*Server, context.Context, P) (R, error)) signature {
	return signature{
		kind:   requestKind,
		params: reflect.TypeFor[P](),
		result: reflect.TypeFor[R](),
		serve: func(s *Server, ctx context.Context, raw json.RawMessage, rule paramsRule) (any, error) {
			p, err := readParams[P](raw, rule)
			if err != nil {
				return nil, err
			}
			collectAfterLargeParams(len(raw))
			r, err := fn(s, ctx, p)
			if err != nil {
				return nil, err
			}
			return r, nil
		},
	}
}

// notification adapts a typed notification handler. Notifications run on
// the read loop, under the connection's lifetime context.
func notification[P any](fn func(*Server, P) error) signature {
	return signature{
		kind:   notificationKind,
		params: reflect.TypeFor[P](),
		serve: func(s *Server, _ context.Context, raw json.RawMessage, rule paramsRule) (any, error) {
			p, err := readParams[P](raw, rule)
			if err != nil {
				return nil, err
			}
			return nil, fn(s, p)
		},
	}
}

// sentRequest and sentNotification declare what the server only sends.
func sentRequest[P, R any]() signature {
	return signature{kind: requestKind, params: reflect.TypeFor[P](), result: reflect.TypeFor[R]()}
}

func sentNotification[P any]() signature {
	return signature{kind: notificationKind, params: reflect.TypeFor[P]()}
}

// largeParams is the size of a request's params (a prompt's) after whose
// decoding the garbage is collected, before the handler runs: the frame
// and what reading it left behind (its buffer grown by doubling) are
// garbage by then, and the pace of the GC would let the turn's own copies
// of the prompt (the session line, the model request) pile up on top of
// them, several times the prompt.
const largeParams = 1 << 20

func collectAfterLargeParams(size int) {
	if size >= largeParams {
		runtime.GC()
	}
}

func readParams[P any](raw json.RawMessage, rule paramsRule) (P, error) {
	var p P
	switch rule {
	case paramsIgnored:
		return p, nil
	case paramsOptional:
		if trimmed := bytes.TrimSpace(raw); len(trimmed) == 0 || string(trimmed) == "null" {
			return p, nil
		}
	case paramsRequired:
		// decodeParams refuses absent or null params.
	}
	err := decodeParams(raw, &p)
	return p, err
}

// ignore handles a notification the server accepts and does nothing with.
func ignore(*Server, noParams) error { return nil }

// protocolMethods is every method gemini-ls serves or sends; the order is
// docs/protocol.md's.
func protocolMethods() []method {
	return []method{
		// Lifecycle (protocol.md 3).
		{name: "initialize", dir: clientToServer, sig: request((*Server).initialize), runs: uninitialized},
		{name: "initialized", dir: clientToServer, sig: notification((*Server).initializedNotification), params: paramsIgnored},
		{name: "shutdown", dir: clientToServer, sig: request((*Server).shutdown), params: paramsIgnored, runs: serving | shutDown},
		{name: "exit", dir: clientToServer, sig: notification((*Server).exitNotification), params: paramsIgnored, runs: anyPhase},
		{name: "$/setTrace", dir: clientToServer, sig: notification(ignore), params: paramsIgnored},
		{name: "workspace/didChangeWatchedFiles", dir: clientToServer, sig: notification(ignore), params: paramsIgnored},
		{name: "workspace/didChangeConfiguration", dir: clientToServer, sig: notification((*Server).didChangeConfiguration)},
		{name: "workspace/didChangeWorkspaceFolders", dir: clientToServer, sig: notification((*Server).didChangeWorkspaceFolders)},

		// Text document synchronisation (4).
		{name: "textDocument/didOpen", dir: clientToServer, sig: notification((*Server).didOpen)},
		{name: "textDocument/didChange", dir: clientToServer, sig: notification((*Server).didChange)},
		{name: "textDocument/didSave", dir: clientToServer, sig: notification((*Server).didSave)},
		{name: "textDocument/didClose", dir: clientToServer, sig: notification((*Server).didClose)},

		// Prompts and sessions (5, 5a, 5b, 5c, 5f, 5d, 5e, 5g, 5i, 6).
		{name: "gemini/prompt", dir: clientToServer, sig: request((*Server).prompt), async: true, maxParams: MaxPromptParams},
		{name: "gemini/listSessions", dir: clientToServer, sig: request((*Server).listSessions), params: paramsOptional},
		{name: "gemini/sessions", dir: clientToServer, sig: request((*Server).listSessions), params: paramsOptional}, // gemini/listSessions' older name
		{name: "gemini/resumeSession", dir: clientToServer, sig: request((*Server).resumeSession)},
		{name: "gemini/deleteSession", dir: clientToServer, sig: request((*Server).deleteSession)},
		{name: "gemini/authStatus", dir: clientToServer, sig: request((*Server).authStatus), params: paramsIgnored},
		{name: "gemini/login", dir: clientToServer, sig: request((*Server).login), params: paramsOptional, async: true},
		{name: "gemini/commands", dir: clientToServer, sig: request((*Server).listCommands), params: paramsOptional},
		{name: "gemini/models", dir: clientToServer, sig: request((*Server).listModels), params: paramsOptional},
		{name: "gemini/rewind", dir: clientToServer, sig: request((*Server).rewind), async: true},
		{name: "gemini/editSelection", dir: clientToServer, sig: request((*Server).editSelection), async: true, pin: true},
		{name: "gemini/answer", dir: clientToServer, sig: request((*Server).answer), async: true, maxParams: MaxPromptParams},
		{name: "gemini/update", dir: serverToClient, sig: sentNotification[update]()},

		// Agents, a worktree each (5h).
		{name: "gemini/agents", dir: clientToServer, sig: request((*Server).listAgents), params: paramsOptional},
		{name: "gemini/landAgent", dir: clientToServer, sig: request((*Server).landAgent), async: true},
		{name: "gemini/discardAgent", dir: clientToServer, sig: request((*Server).discardAgent), async: true},
		{name: "gemini/agent", dir: serverToClient, sig: sentNotification[agentInfo]()},
		{name: "gemini/delegate", dir: clientToServer, sig: request((*Server).delegate), async: true},
		{name: "gemini/followUpAgent", dir: clientToServer, sig: request((*Server).followUpAgent), async: true},

		// Cancelling (7).
		{name: "gemini/cancel", dir: clientToServer, sig: notification((*Server).cancelSession)},
		{name: "$/cancelRequest", dir: bothWays, sig: notification((*Server).cancelRequest)},

		// Edits, questions, the editor's diagnostics and language servers (8, 9, 9a, 9b, 9c, 9d, 10).
		{name: "workspace/applyEdit", dir: serverToClient, sig: sentRequest[*protocol.ApplyWorkspaceEditParams, protocol.ApplyWorkspaceEditResult]()},
		{name: "gemini/confirm", dir: serverToClient, sig: sentRequest[confirmParams, confirmResult]()},
		{name: "gemini/request", dir: serverToClient, sig: sentNotification[tunneledRequest]()},
		{name: "gemini/cancelRequest", dir: serverToClient, sig: sentNotification[tunneledCancel]()},
		{name: "gemini/response", dir: clientToServer, sig: notification((*Server).tunneledAnswer)},
		{name: "gemini/ask", dir: serverToClient, sig: sentRequest[askParams, askResult]()},
		{name: "gemini/diagnostics", dir: serverToClient, sig: sentRequest[diagnosticsParams, diagnosticsResult]()},
		{name: "gemini/languageFeature", dir: serverToClient, sig: sentRequest[languageFeatureParams, json.RawMessage]()},
		{name: "window/showMessageRequest", dir: serverToClient, sig: sentRequest[*protocol.ShowMessageRequestParams, *protocol.MessageActionItem]()},

		// Completion and next edits (10a).
		{name: "textDocument/inlineCompletion", dir: clientToServer, sig: request((*Server).inlineCompletion), async: true, pin: true},
		{name: "textDocument/didShowCompletion", dir: clientToServer, sig: notification((*Server).didShowCompletion)},
		{name: "textDocument/didPartiallyAcceptCompletion", dir: clientToServer, sig: notification((*Server).didPartiallyAcceptCompletion)},
		{name: "textDocument/copilotInlineEdit", dir: clientToServer, sig: request((*Server).nextEdit), async: true},
		{name: "gemini/nextEdit", dir: clientToServer, sig: request((*Server).nextEdit), async: true}, // textDocument/copilotInlineEdit's older name
		{name: "textDocument/didShowInlineEdit", dir: clientToServer, sig: notification((*Server).didShowCompletion)},
		{name: "textDocument/didFocus", dir: clientToServer, sig: notification((*Server).didFocus), params: paramsOptional},
		{name: "textDocument/completion", dir: clientToServer, sig: request((*Server).completionItems), async: true, pin: true},

		// Commands and code actions (11).
		{name: "workspace/executeCommand", dir: clientToServer, sig: request((*Server).executeCommand), async: true, maxParams: MaxPromptParams}, // gemini.prompt carries a prompt
		{name: "textDocument/codeAction", dir: clientToServer, sig: request((*Server).codeActions)},

		// Progress, messages, documents, the log (12, 13).
		{name: "window/workDoneProgress/create", dir: serverToClient, sig: sentRequest[progressCreateParams, nothing]()},
		{name: "$/progress", dir: serverToClient, sig: sentNotification[progressParams]()},
		{name: "window/workDoneProgress/cancel", dir: clientToServer, sig: notification((*Server).cancelProgress)},
		{name: "window/showMessage", dir: serverToClient, sig: sentNotification[*protocol.ShowMessageParams]()},
		{name: "window/showDocument", dir: serverToClient, sig: sentRequest[*protocol.ShowDocumentParams, protocol.ShowDocumentResult]()},
		{name: "window/logMessage", dir: serverToClient, sig: sentNotification[*protocol.LogMessageParams]()},
	}
}

// handledMethods are the methods the server handles, by kind and name.
type handledMethods map[kind]map[string]*method

func newHandledMethods() handledMethods {
	h := handledMethods{requestKind: {}, notificationKind: {}}
	for _, m := range protocolMethods() {
		if m.sig.serve != nil && m.dir != serverToClient {
			h[m.sig.kind][m.name] = &m
		}
	}
	return h
}

// lookup returns the method a message names, nil when the server does not
// handle it (a request's name sent as a notification counts as unknown).
func (h handledMethods) lookup(k kind, name string) *method { return h[k][name] }
