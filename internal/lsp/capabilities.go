package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// initializeParams is the part of InitializeParams the server acts on.
type initializeParams struct {
	ProcessID        *int32            `json:"processId"`
	RootURI          *string           `json:"rootUri"`
	RootPath         *string           `json:"rootPath"`
	WorkspaceFolders []workspaceFolder `json:"workspaceFolders"`
	ClientInfo       *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
	Capabilities clientCapabilities `json:"capabilities"`
	// InitializationOptions are ClientOptions and any settings.json keys
	// (docs/configuration.md), merged over the settings files.
	InitializationOptions map[string]any `json:"initializationOptions"`
}

type workspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// ClientOptions are what a client may set in initializationOptions.
type ClientOptions struct {
	Model        string              `json:"model,omitempty"`
	ApprovalMode dialog.ApprovalMode `json:"approvalMode,omitempty"`
}

type clientCapabilities struct {
	General *struct {
		PositionEncodings []string `json:"positionEncodings"`
	} `json:"general"`
	Workspace *struct {
		ApplyEdit     bool `json:"applyEdit"`
		WorkspaceEdit *struct {
			DocumentChanges         bool            `json:"documentChanges"`
			ResourceOperations      []string        `json:"resourceOperations"`
			ChangeAnnotationSupport json.RawMessage `json:"changeAnnotationSupport"`
		} `json:"workspaceEdit"`
	} `json:"workspace"`
	Window *struct {
		WorkDoneProgress bool                    `json:"workDoneProgress"`
		ShowMessage      *json.RawMessage        `json:"showMessage"`
		ShowDocument     *struct{ Support bool } `json:"showDocument"`
	} `json:"window"`
	Experimental *struct {
		Gemini *struct {
			EditPreview          bool `json:"editPreview"`
			Confirm              bool `json:"confirm"`
			Ask                  bool `json:"ask"`
			RequestNotifications bool `json:"requestNotifications"`
			Diagnostics          bool `json:"diagnostics"`
			LanguageFeatures     bool `json:"languageFeatures"`
		} `json:"gemini"`
	} `json:"experimental"`
}

// clientFeatures is what the server concluded it may do with this client.
type clientFeatures struct {
	Name              string
	Encoding          workspace.Encoding
	ApplyEdit         bool
	DocumentChanges   bool
	CreateFiles       bool
	DeleteFiles       bool
	ChangeAnnotations bool
	// EditPreview: our plugins show the diff and answer applyEdit after the
	// user decides.
	EditPreview bool
	// Confirm: the client answers gemini/confirm.
	Confirm bool
	// Ask: the client answers gemini/ask.
	Ask bool
	// RequestNotifications: requests that wait for the user go as
	// gemini/request notifications (see tunnel.go).
	RequestNotifications bool
	// Diagnostics: the client answers gemini/diagnostics (diagnostics.go).
	Diagnostics bool
	// LanguageFeatures: the client answers gemini/languageFeature from
	// its own language servers (languagefeature.go).
	LanguageFeatures bool
	// window/showMessageRequest is not a capability here: eglot answers it
	// without declaring it, so the server asks and remembers a client that
	// answers MethodNotFound (Helix 25.07).
	ShowDocument     bool
	WorkDoneProgress bool
	// VimLSP: the client is Neovim's own (without our plugin, which
	// declares EditPreview). Neovim 0.12 declares change annotations but
	// confirms them with a yes/no that shows no diff, and answers applied
	// when the user says no; it is asked with showMessageRequest instead.
	VimLSP bool
}

func (p *initializeParams) features() clientFeatures {
	c := p.Capabilities
	f := clientFeatures{Encoding: workspace.UTF16}
	if p.ClientInfo != nil {
		f.Name = p.ClientInfo.Name
		f.VimLSP = f.Name == "Neovim"
	}
	if c.General != nil {
		f.Encoding = negotiateEncoding(c.General.PositionEncodings)
	}
	if w := c.Workspace; w != nil {
		f.ApplyEdit = w.ApplyEdit
		if we := w.WorkspaceEdit; we != nil {
			// Declaring resource operations means accepting documentChanges,
			// where they travel (Neovim declares only the former).
			f.DocumentChanges = we.DocumentChanges || len(we.ResourceOperations) > 0
			f.ChangeAnnotations = len(we.ChangeAnnotationSupport) > 0 && string(we.ChangeAnnotationSupport) != "null"
			for _, op := range we.ResourceOperations {
				switch op {
				case "create":
					f.CreateFiles = true
				case "delete":
					f.DeleteFiles = true
				}
			}
		}
	}
	if w := c.Window; w != nil {
		f.WorkDoneProgress = w.WorkDoneProgress
		f.ShowDocument = w.ShowDocument != nil && w.ShowDocument.Support
	}
	if e := c.Experimental; e != nil && e.Gemini != nil {
		f.EditPreview = e.Gemini.EditPreview
		f.Confirm = e.Gemini.Confirm
		f.Ask = e.Gemini.Ask
		f.RequestNotifications = e.Gemini.RequestNotifications
		f.Diagnostics = e.Gemini.Diagnostics
		f.LanguageFeatures = e.Gemini.LanguageFeatures
	}
	return f
}

// negotiateEncoding picks the first encoding the client offers that the
// server implements (all three), else UTF-16 as LSP requires.
func negotiateEncoding(offered []string) workspace.Encoding {
	for _, e := range offered {
		switch e {
		case "utf-8":
			return workspace.UTF8
		case "utf-16":
			return workspace.UTF16
		case "utf-32":
			return workspace.UTF32
		}
	}
	return workspace.UTF16
}

func encodingName(e workspace.Encoding) string {
	switch e {
	case workspace.UTF8:
		return "utf-8"
	case workspace.UTF32:
		return "utf-32"
	default:
		return "utf-16"
	}
}

// roots returns the workspace roots the client named, most specific source
// first: workspaceFolders, rootUri, rootPath, else the working directory.
func (p *initializeParams) roots() ([]string, error) {
	var roots []string
	for _, f := range p.WorkspaceFolders {
		path, err := uriToPath(f.URI)
		if err != nil {
			return nil, fmt.Errorf("workspace folder %q: %w", f.URI, err)
		}
		roots = append(roots, path)
	}
	if len(roots) > 0 {
		return roots, nil
	}
	if p.RootURI != nil && *p.RootURI != "" {
		path, err := uriToPath(*p.RootURI)
		if err != nil {
			return nil, fmt.Errorf("rootUri: %w", err)
		}
		return []string{path}, nil
	}
	if p.RootPath != nil && *p.RootPath != "" {
		return []string{*p.RootPath}, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("no workspace root given and the working directory is unknown: %w", err)
	}
	return []string{wd}, nil
}

// uriToPath is the path of file URI s. On Windows its drive letter is
// upper case, as the system writes it (os.Getwd, filepath.Abs, the temp
// directory), where VS Code's fsPath, which FsPath follows, lowers it
// ("file:///c%3A/x" is c:\x): a document the editor names is then the
// same path as the file the agent names from the workspace or the disk.
func uriToPath(s string) (string, error) {
	u, err := uri.Parse(s)
	if err != nil {
		return "", fmt.Errorf("parsing URI %q: %w", s, err)
	}
	if u.Scheme() != "file" {
		return "", fmt.Errorf("only file:// URIs are supported, got %q", s)
	}
	p := filepath.Clean(u.FsPath())
	if vol := filepath.VolumeName(p); len(vol) == 2 && vol[1] == ':' {
		p = strings.ToUpper(vol) + p[2:]
	}
	return p, nil
}
