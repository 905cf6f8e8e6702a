package acp

// The approval modes and the model, as ACP session modes and config
// options. Each session has an agent of its own (see doc.go), so changing
// either changes that session only.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
)

// approvalMode is one approval mode as a session mode.
type approvalMode struct {
	// id is Gemini CLI's ApprovalMode value, which its ACP mode uses as the
	// mode id, so a client's saved choice means the same to both.
	id          sdk.SessionModeId
	mode        dialog.ApprovalMode
	name        string
	description string
}

var approvalModes = []approvalMode{
	{"default", dialog.ApprovalDefault, "Default", "Asks before edits and shell commands"},
	{"autoEdit", dialog.ApprovalAutoEdit, "Auto Edit", "Makes edits without asking; asks before shell commands"},
	{"yolo", dialog.ApprovalYolo, "YOLO", "Runs every tool without asking"},
	// Offered only while settings enable plan mode (offered).
	{"plan", dialog.ApprovalPlan, "Plan", "Read-only mode"},
}

// offered are the modes the session may choose: plan only where
// settings enable it (general.plan.enabled), as Gemini CLI offers it.
func (sess *session) offered() []approvalMode {
	var out []approvalMode
	for _, m := range approvalModes {
		if m.mode != dialog.ApprovalPlan || sess.setup().PlanEnabled() {
			out = append(out, m)
		}
	}
	return out
}

// modeByID is the approval mode a client names: by its mode id, or as
// settings and the command line spell it ("auto_edit").
func modeByID(id string) (approvalMode, bool) {
	for _, m := range approvalModes {
		if string(m.id) == id || string(m.mode) == id {
			return m, true
		}
	}
	return approvalMode{}, false
}

// modeOf is the session mode of an approval mode; default for one it
// does not know.
func modeOf(mode dialog.ApprovalMode) approvalMode {
	for _, m := range approvalModes {
		if m.mode == mode {
			return m
		}
	}
	return approvalModes[0]
}

// The config options' ids.
const (
	configMode  = "mode"
	configModel = "model"
)

// modes is the session's mode state.
func (sess *session) modes() *sdk.SessionModeState {
	state := &sdk.SessionModeState{CurrentModeId: modeOf(sess.current().Mode()).id}
	for _, m := range sess.offered() {
		state.AvailableModes = append(state.AvailableModes, sdk.SessionMode{Id: m.id, Name: m.name, Description: sdk.Ptr(m.description)})
	}
	return state
}

// models are the models a session may choose, as Gemini CLI 0.61's ACP
// agent offers them (models.Offered): its own first when it is none of
// those (a model settings, GEMINI_MODEL or /model set named).
func (sess *session) models() []sdk.SessionConfigSelectOption {
	current := sess.srv.host.Model(sess.setup())
	offered := models.Offered()
	var out []sdk.SessionConfigSelectOption
	if !slices.ContainsFunc(offered, func(m models.Option) bool { return m.ID == current }) {
		out = append(out, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(current), Name: models.Display(current), Description: sdk.Ptr("The model chosen now, by the settings or /model set")})
	}
	for _, m := range offered {
		opt := sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m.ID), Name: m.Name}
		if m.Description != "" {
			opt.Description = sdk.Ptr(m.Description)
		}
		out = append(out, opt)
	}
	return out
}

// modelState is the session's models as Gemini CLI 0.61's ACP agent
// sends them in session/new's and session/load's answers (ACP's unstable
// models field, which session/set_model chooses from): the models
// offered and the one chosen, the model config option's own.
func (sess *session) modelState() *sdk.SessionModelState {
	state := &sdk.SessionModelState{CurrentModelId: sdk.ModelId(sess.srv.host.Model(sess.setup()))}
	for _, o := range sess.models() {
		state.AvailableModels = append(state.AvailableModels, sdk.ModelInfo{ModelId: sdk.ModelId(o.Value), Name: o.Name, Description: o.Description})
	}
	return state
}

// configOptions are the session's mode and model as config options, the
// mode as the modes show it.
func (sess *session) configOptions() []sdk.SessionConfigOption {
	var modes sdk.SessionConfigSelectOptionsUngrouped
	for _, m := range sess.offered() {
		modes = append(modes, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m.id), Name: m.name, Description: sdk.Ptr(m.description)})
	}
	models := sdk.SessionConfigSelectOptionsUngrouped(sess.models())
	return []sdk.SessionConfigOption{
		{Select: &sdk.SessionConfigOptionSelect{
			Id:           configMode,
			Name:         "Mode",
			Description:  sdk.Ptr("What runs without asking"),
			Category:     sdk.Ptr(sdk.SessionConfigOptionCategoryMode),
			CurrentValue: sdk.SessionConfigValueId(modeOf(sess.current().Mode()).id),
			Options:      sdk.SessionConfigSelectOptions{Ungrouped: &modes},
		}},
		{Select: &sdk.SessionConfigOptionSelect{
			Id:           configModel,
			Name:         "Model",
			Description:  sdk.Ptr("The Gemini model the session's requests go to"),
			Category:     sdk.Ptr(sdk.SessionConfigOptionCategoryModel),
			CurrentValue: sdk.SessionConfigValueId(sess.srv.host.Model(sess.setup())),
			Options:      sdk.SessionConfigSelectOptions{Ungrouped: &models},
		}},
	}
}

// SetSessionMode changes what runs without asking in the session, from
// its next tool call on. The config options show the mode too, so the
// client is sent them anew.
func (s *server) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	sess, release, err := s.acquire(ctx, p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	defer release()
	if err := sess.setMode(ctx, string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	sess.update(ctx, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: sess.configOptions()}})
	return sdk.SetSessionModeResponse{}, nil
}

// setMode applies the mode a client names.
func (sess *session) setMode(ctx context.Context, id string) error {
	m, ok := modeByID(id)
	if !ok || !slices.Contains(sess.offered(), m) {
		return invalidParams(fmt.Sprintf("unknown mode %q: the modes are %s", id, sess.modeList()))
	}
	// The host sets it and saves it with the session, so that it loads
	// in this mode after a restart.
	err := sess.srv.host.SetMode(ctx, sess.id, m.mode)
	if errors.Is(err, conversation.ErrYoloRefused) {
		return invalidParams(err.Error())
	}
	if _, untrusted := errors.AsType[*conversation.UntrustedError](err); untrusted {
		return invalidParams(fmt.Sprintf("the %s mode cannot be chosen here: %v", id, err))
	}
	if err != nil {
		return unknownSession(sdk.SessionId(sess.id))
	}
	sess.log.Info("approval mode changed")
	return nil
}

// modeChanged tells the client of the session's mode as it is now: the
// current_mode_update for clients that show the modes.
func (sess *session) modeChanged(ctx context.Context) {
	sess.update(ctx, sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: modeOf(sess.current().Mode()).id}})
}

func (sess *session) modeList() string {
	var ids []string
	for _, m := range sess.offered() {
		ids = append(ids, string(m.id))
	}
	return strings.Join(ids, ", ")
}

// SetSessionConfigOption sets the session's mode or model, and answers
// every option as it is now. A mode change is also a current_mode_update,
// for clients that show the modes.
func (s *server) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil {
		return sdk.SetSessionConfigOptionResponse{}, invalidParams("the mode and the model take a value id, not a boolean")
	}
	sess, release, err := s.acquire(ctx, v.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	defer release()
	value := string(v.Value)
	switch v.ConfigId {
	case configMode:
		if err := sess.setMode(ctx, value); err != nil {
			return sdk.SetSessionConfigOptionResponse{}, err
		}
		sess.modeChanged(ctx)
	case configModel:
		if err := sess.setModel(value); err != nil {
			return sdk.SetSessionConfigOptionResponse{}, err
		}
	default:
		return sdk.SetSessionConfigOptionResponse{}, invalidParams(fmt.Sprintf("unknown config option %q: the options are %s and %s", v.ConfigId, configMode, configModel))
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: sess.configOptions()}, nil
}

// UnstableSetSessionModel is session/set_model, the unstable method
// Gemini CLI 0.61's ACP agent takes to choose a session's model (of its
// answer's models): the session's next request goes to it. The config
// options show the model too, so the client is sent them anew.
func (s *server) UnstableSetSessionModel(ctx context.Context, p sdk.UnstableSetSessionModelRequest) (sdk.UnstableSetSessionModelResponse, error) {
	sess, release, err := s.acquire(ctx, p.SessionId)
	if err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	defer release()
	if err := sess.setModel(string(p.ModelId)); err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	sess.update(ctx, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: sess.configOptions()}})
	return sdk.UnstableSetSessionModelResponse{}, nil
}

// setModel chooses one of the models the session offers for its next
// request on.
func (sess *session) setModel(id string) error {
	if !slices.ContainsFunc(sess.models(), func(o sdk.SessionConfigSelectOption) bool { return string(o.Value) == id }) {
		return invalidParams(fmt.Sprintf("unknown model %q: choose one of the models offered", id))
	}
	if err := sess.srv.host.SetModel(sess.id, id); err != nil {
		return unknownSession(sdk.SessionId(sess.id))
	}
	sess.log.Info("model changed")
	return nil
}
