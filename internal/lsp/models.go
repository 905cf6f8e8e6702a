package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/models"
)

// modelInfo is one model of gemini/models' result.
type modelInfo struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// modelsResult is gemini/models' result.
type modelsResult struct {
	// Current is the model every session's next request goes to, as
	// named (an alias such as auto, or a concrete model); CurrentName is
	// how it is shown.
	Current     string      `json:"current"`
	CurrentName string      `json:"currentName"`
	Models      []modelInfo `json:"models"`
	// ApprovalMode is the mode every session runs in unless it switched
	// itself (a mode update says so), as the server chose it: what a
	// client shows before any prompt, and after it asks for another.
	ApprovalMode string `json:"approvalMode"`
	// Sandbox says whether and how the commands run on the model's
	// behalf are sandboxed ("no sandbox"), for the client's status.
	Sandbox string `json:"sandbox"`
}

// listModels answers gemini/models: the model chosen now and the ones a
// user may choose, Gemini CLI 0.61's (models.Offered), so that a plugin
// can show the model and offer a picker without a prompt; it sets one
// with the /model set built-in. The approval mode the server runs in
// comes along, for the plugin to show it truly.
func (s *Server) listModels(context.Context, noParams) (modelsResult, error) {
	built := s.agentState.setup()
	if built == nil {
		return modelsResult{}, jsonrpc2.NewError(codeRequestFailed, "the server is not initialized")
	}
	current := s.host.Model(built)
	res := modelsResult{Current: current, CurrentName: models.Display(current), ApprovalMode: string(built.ApprovalMode()), Sandbox: built.Sandbox()}
	for _, m := range models.Offered() {
		res.Models = append(res.Models, modelInfo{ID: m.ID, Name: m.Name, Description: m.Description})
	}
	return res, nil
}

// chosenModel is the update of kind model: the model a /model set
// chose, and how it is shown.
func chosenModel(model string) *modelUpdate {
	return &modelUpdate{Model: model, Name: models.Display(model)}
}
