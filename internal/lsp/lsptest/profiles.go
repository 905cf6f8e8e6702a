package lsptest

import (
	"encoding/json"
	"strings"
)

// Profile is what one editor says about itself in initialize, and how it
// answers the server's requests.
type Profile struct {
	Name         string
	ClientInfo   map[string]string
	Capabilities json.RawMessage
	// Custom: the client implements gemini/confirm and gemini/ask (our
	// plugins).
	Custom bool
	// ShowMessageRequest: the client answers window/showMessageRequest;
	// otherwise it answers MethodNotFound (Helix 25.07).
	ShowMessageRequest bool
	// RequestNotifications: the client takes the requests that wait for
	// the user as gemini/request notifications. Like Neovim, it answers a
	// real request at once, so one sent as a request fails the test.
	RequestNotifications bool
	// VimLSP: the client is Neovim's vim.lsp (0.7 to 0.11). didOpen
	// carries version 0. Of an edit's documentChanges only the first is
	// checked, and only for a version above 0: one older than the buffer is
	// skipped ("Buffer … newer than edits.") and the answer is still
	// applied: true; an edit not checked lands at its positions in the
	// buffer as it is then, clamped to its lines. A buffer is lines plus a
	// final line break ('eol', 'fixeol'), so an empty file loads as "\n",
	// and text edits apply as vim.lsp.util.apply_text_edits applies them
	// (see applyAsNeovim). Other clients refuse an edit for any version but
	// the buffer's.
	VimLSP bool
	// SyncWhenIdle: like eglot, buffer changes reach the server only once
	// the editor is idle, which it is not while it waits for its own
	// workspace/executeCommand (eglot's requests are synchronous): they
	// are held until the command is answered.
	SyncWhenIdle bool
	// Diagnostics: the client answers gemini/diagnostics from
	// Client.Lint (Profile.WithDiagnostics); otherwise with
	// MethodNotFound.
	Diagnostics bool
	// LanguageFeatures: the client answers gemini/languageFeature with
	// Client.OnLanguageFeature (Profile.WithLanguageFeatures); otherwise
	// with MethodNotFound.
	LanguageFeatures bool
}

// VSCode is VS Code's language client without our extension: UTF-16 only,
// change annotations previewed natively.
func VSCode() Profile {
	return Profile{
		Name:       "vscode",
		ClientInfo: map[string]string{"name": "Visual Studio Code", "version": "1.106.0"},
		Capabilities: json.RawMessage(`{
			"workspace": {
				"applyEdit": true,
				"workspaceEdit": {
					"documentChanges": true,
					"resourceOperations": ["create", "rename", "delete"],
					"failureHandling": "textOnlyTransactional",
					"normalizesLineEndings": true,
					"changeAnnotationSupport": {"groupsOnLabel": true}
				},
				"workspaceFolders": true,
				"configuration": true,
				"executeCommand": {"dynamicRegistration": true}
			},
			"textDocument": {"synchronization": {"dynamicRegistration": true, "willSave": true, "willSaveWaitUntil": true, "didSave": true}},
			"window": {
				"showMessage": {"messageActionItem": {"additionalPropertiesSupport": true}},
				"showDocument": {"support": true},
				"workDoneProgress": true
			},
			"general": {"positionEncodings": ["utf-16"]}
		}`),
		ShowMessageRequest: true,
	}
}

// Plugin is our editor plugins: they preview edits and answer gemini/confirm
// and gemini/ask.
func Plugin() Profile {
	p := VSCode()
	p.Name = "plugin"
	p.ClientInfo = map[string]string{"name": "gemini-ls test plugin"}
	var caps map[string]any
	_ = json.Unmarshal(p.Capabilities, &caps)
	caps["experimental"] = map[string]any{"gemini": map[string]any{"editPreview": true, "confirm": true, "ask": true}}
	caps["general"] = map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}}
	p.Capabilities, _ = json.Marshal(caps)
	p.Custom = true
	return p
}

// NeovimPlugin is Neovim with our plugin: Neovim answers a request as
// soon as its handler returns, so reviews and questions come as
// gemini/request notifications.
func NeovimPlugin() Profile {
	p := Neovim()
	p.Name = "neovim plugin"
	var caps map[string]any
	_ = json.Unmarshal(p.Capabilities, &caps)
	caps["experimental"] = map[string]any{"gemini": map[string]any{"editPreview": true, "confirm": true, "ask": true, "requestNotifications": true}}
	p.Capabilities, _ = json.Marshal(caps)
	p.Custom = true
	p.RequestNotifications = true
	return p
}

// Neovim07 is Neovim 0.7.2's built-in client (Debian 12): no position
// encodings offered (so UTF-16), no window/showDocument, edits applied at
// once, stale ones skipped or misplaced (see VimLSP).
func Neovim07() Profile {
	return Profile{
		Name:       "neovim 0.7",
		ClientInfo: map[string]string{"name": "Neovim", "version": "0.7.2"},
		Capabilities: json.RawMessage(`{
			"workspace": {
				"applyEdit": true,
				"workspaceEdit": {"resourceOperations": ["rename", "create", "delete"]},
				"symbol": {"dynamicRegistration": false, "hierarchicalWorkspaceSymbolSupport": true},
				"workspaceFolders": true
			},
			"textDocument": {"synchronization": {"willSave": false, "willSaveWaitUntil": false, "didSave": true, "dynamicRegistration": false}},
			"window": {
				"workDoneProgress": true,
				"showMessage": {"messageActionItem": {"additionalPropertiesSupport": false}},
				"showDocument": {"support": false}
			}
		}`),
		ShowMessageRequest: true,
		VimLSP:             true,
	}
}

// Neovim is Neovim 0.11's built-in client: no change annotations, edits
// applied at once (see VimLSP), UTF-8 preferred.
func Neovim() Profile {
	return Profile{
		Name:       "neovim",
		ClientInfo: map[string]string{"name": "Neovim", "version": "0.11.4"},
		Capabilities: json.RawMessage(`{
			"workspace": {
				"applyEdit": true,
				"workspaceEdit": {"resourceOperations": ["rename", "create", "delete"]},
				"workspaceFolders": true,
				"configuration": true
			},
			"textDocument": {"synchronization": {"didSave": true, "dynamicRegistration": false, "willSave": true, "willSaveWaitUntil": true}},
			"window": {
				"workDoneProgress": true,
				"showMessage": {"messageActionItem": {"additionalPropertiesSupport": true}},
				"showDocument": {"support": true}
			},
			"general": {"positionEncodings": ["utf-8", "utf-16", "utf-32"]}
		}`),
		ShowMessageRequest: true,
		VimLSP:             true,
	}
}

// Eglot is Emacs eglot: no showMessage capability declared (it answers
// showMessageRequest all the same), UTF-32 preferred, buffer changes sent
// only once Emacs is idle.
func Eglot() Profile {
	return Profile{
		Name:       "eglot",
		ClientInfo: map[string]string{"name": "Eglot", "version": "1.17"},
		Capabilities: json.RawMessage(`{
			"workspace": {
				"applyEdit": true,
				"executeCommand": {"dynamicRegistration": false},
				"workspaceEdit": {"documentChanges": true},
				"didChangeWatchedFiles": {"dynamicRegistration": true},
				"symbol": {"dynamicRegistration": false},
				"configuration": true,
				"workspaceFolders": true
			},
			"textDocument": {"synchronization": {"dynamicRegistration": false, "willSave": true, "willSaveWaitUntil": true, "didSave": true}},
			"window": {"showDocument": {"support": true}, "workDoneProgress": true},
			"general": {"positionEncodings": ["utf-32", "utf-8", "utf-16"]},
			"experimental": {}
		}`),
		ShowMessageRequest: true,
		SyncWhenIdle:       true,
	}
}

// Helix is Helix 25.07's initialize capabilities, as its client sends
// them. It has no custom methods (MethodNotFound), and answers
// window/showMessageRequest with a popup of the actions.
func Helix() Profile {
	return Profile{
		Name:       "helix",
		ClientInfo: map[string]string{"name": "helix", "version": "25.07.1 (a05c151b)"},
		Capabilities: json.RawMessage(`{
			"workspace": {
				"configuration": true,
				"didChangeConfiguration": {"dynamicRegistration": false},
				"workspaceFolders": true,
				"applyEdit": true,
				"symbol": {"dynamicRegistration": false},
				"executeCommand": {"dynamicRegistration": false},
				"inlayHint": {"refreshSupport": false},
				"workspaceEdit": {
					"documentChanges": true,
					"resourceOperations": ["create", "rename", "delete"],
					"failureHandling": "abort",
					"normalizesLineEndings": false
				},
				"didChangeWatchedFiles": {"dynamicRegistration": true, "relativePatternSupport": false},
				"fileOperations": {"willRename": true, "didRename": true},
				"diagnostic": {"refreshSupport": true}
			},
			"textDocument": {
				"completion": {
					"completionItem": {
						"snippetSupport": true,
						"resolveSupport": {"properties": ["documentation", "detail", "additionalTextEdits"]},
						"insertReplaceSupport": true,
						"deprecatedSupport": true,
						"tagSupport": {"valueSet": [1]}
					},
					"completionItemKind": {}
				},
				"hover": {"contentFormat": ["markdown"]},
				"signatureHelp": {
					"signatureInformation": {
						"documentationFormat": ["markdown"],
						"parameterInformation": {"labelOffsetSupport": true},
						"activeParameterSupport": true
					}
				},
				"rename": {"dynamicRegistration": false, "prepareSupport": true, "prepareSupportDefaultBehavior": 1, "honorsChangeAnnotations": false},
				"formatting": {"dynamicRegistration": false},
				"codeAction": {
					"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports"]}},
					"isPreferredSupport": true,
					"disabledSupport": true,
					"dataSupport": true,
					"resolveSupport": {"properties": ["edit", "command"]}
				},
				"publishDiagnostics": {"versionSupport": true, "tagSupport": {"valueSet": [1, 2]}},
				"inlayHint": {"dynamicRegistration": false},
				"diagnostic": {"dynamicRegistration": false, "relatedDocumentSupport": true}
			},
			"window": {"workDoneProgress": true, "showDocument": {"support": true}},
			"general": {"positionEncodings": ["utf-8", "utf-32", "utf-16"]}
		}`),
		ShowMessageRequest: true,
	}
}

// NoQuestions is a client that can neither preview an edit nor ask the
// user: Helix's capabilities, answering window/showMessageRequest with
// MethodNotFound as Helix did before it had a popup for it.
func NoQuestions() Profile {
	p := Helix()
	p.Name = "no-questions"
	p.ShowMessageRequest = false
	return p
}

// Neovim012 is Neovim 0.12's built-in client, which declares change
// annotations (it confirms them with a yes/no that shows no diff).
func Neovim012() Profile {
	p := Neovim()
	p.Name = "neovim-0.12"
	p.ClientInfo = map[string]string{"name": "Neovim", "version": "0.12.4"}
	p.Capabilities = json.RawMessage(strings.Replace(string(p.Capabilities),
		`"workspaceEdit": {"resourceOperations": ["rename", "create", "delete"]}`,
		`"workspaceEdit": {"documentChanges": true, "resourceOperations": ["rename", "create", "delete"], "changeAnnotationSupport": {"groupsOnLabel": true}}`, 1))
	return p
}
