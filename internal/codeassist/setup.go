package codeassist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/ctxtime"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
)

// UserData is what the setup found: the project requests are billed to and
// the user's tier.
type UserData struct {
	ProjectID string
	TierID    string
	TierName  string
}

// Setup errors, worded as setup.ts words them.
var (
	ErrProjectIDRequired = errors.New("This account requires setting the GOOGLE_CLOUD_PROJECT or GOOGLE_CLOUD_PROJECT_ID env var. See https://goo.gle/gemini-cli-auth-docs#workspace-gca")
)

// IndividualSignInEnded is the sentence a Google sign-in refused for an
// individual account ends with: since 2026-06-18 the Code Assist server
// no longer serves Gemini CLI's sign-in for individual accounts (free,
// Google AI Pro and Ultra), which Google moved to Antigravity CLI; an API
// key, Vertex AI and Code Assist Standard or Enterprise still work.
const IndividualSignInEnded = "Sign in with Google no longer serves individual Google accounts (free, Google AI Pro or Ultra) since 2026-06-18; " +
	"use a Gemini API key instead (create one at https://aistudio.google.com/apikey and set GEMINI_API_KEY), " +
	"or Vertex AI, or a Gemini Code Assist Standard or Enterprise subscription with GOOGLE_CLOUD_PROJECT set."

// IndividualRefusedError is the Code Assist server refusing an individual
// account: loadCodeAssist reports the free tier ineligible with reason
// UNSUPPORTED_CLIENT (Gemini CLI 0.61 then fails with the reason's message
// alone, "Failed to sign in. Message: ..."). Its text is
// IndividualSignInEnded with the server's message beside it, word for
// word.
type IndividualRefusedError struct {
	// ServerMessage is the server's reasonMessage, as sent.
	ServerMessage string
}

func (e *IndividualRefusedError) Error() string {
	return IndividualSignInEnded + " (The Code Assist server said: " + e.ServerMessage + ")"
}

// reasonUnsupportedClient is the reason the server gives an individual
// account it no longer serves through Gemini CLI's sign-in.
const reasonUnsupportedClient = "UNSUPPORTED_CLIENT"

// Tier ids setup.ts knows.
const (
	tierFree     = "free-tier"
	tierLegacy   = "legacy-tier"
	tierStandard = "standard-tier"
)

var numericProject = lazyregexp.New(`^\d+$`)

type clientMetadata struct {
	IDEType     string `json:"ideType"`
	Platform    string `json:"platform"`
	PluginType  string `json:"pluginType"`
	DuetProject string `json:"duetProject,omitempty"`
}

type tier struct {
	ID                                 string `json:"id"`
	Name                               string `json:"name"`
	IsDefault                          bool   `json:"isDefault"`
	UserDefinedCloudaicompanionProject bool   `json:"userDefinedCloudaicompanionProject"`
}

type ineligibleTier struct {
	ReasonCode    string `json:"reasonCode"`
	ReasonMessage string `json:"reasonMessage"`
	ValidationURL string `json:"validationUrl"`
}

type loadResponse struct {
	CurrentTier             *tier            `json:"currentTier"`
	PaidTier                *tier            `json:"paidTier"`
	AllowedTiers            []tier           `json:"allowedTiers"`
	IneligibleTiers         []ineligibleTier `json:"ineligibleTiers"`
	CloudaicompanionProject string           `json:"cloudaicompanionProject"`
}

type operation struct {
	Name     string `json:"name"`
	Done     bool   `json:"done"`
	Response struct {
		CloudaicompanionProject struct {
			ID string `json:"id"`
		} `json:"cloudaicompanionProject"`
	} `json:"response"`
}

// Setup finds the user's project and tier once per Client, as setup.ts's
// setupUser does: loadCodeAssist, then, for an account without a tier,
// onboardUser with the default allowed tier and polls of its operation.
// Generate calls run it themselves; a front end may call it early to
// report problems. A failure is not kept: the next call tries again; nor
// is a setup once the user signed in again (Login.Grant).
func (c *Client) Setup(ctx context.Context) (UserData, error) {
	select {
	case c.settingUp <- struct{}{}:
	case <-ctx.Done():
		return UserData{}, ctx.Err()
	}
	defer func() { <-c.settingUp }()
	grant := ""
	if g, ok := c.cfg.Tokens.(granted); ok {
		grant = g.Grant()
	}
	if c.user != nil && c.userGrant == grant {
		return *c.user, nil
	}
	user, err := c.setup(ctx)
	if err != nil {
		return UserData{}, fmt.Errorf("setting up Code Assist: %w", err)
	}
	c.user, c.userGrant = &user, grant
	return user, nil
}

func (c *Client) setup(ctx context.Context) (UserData, error) {
	project := c.cfg.Project
	if numericProject.MatchString(project) {
		return UserData{}, fmt.Errorf("Invalid Google Cloud Project ID: %q. The GOOGLE_CLOUD_PROJECT (or GOOGLE_CLOUD_PROJECT_ID) environment variable must be set to your string-based Project ID (e.g., \"my-project-123\"), not your numeric Project Number. Please update your environment variables.", project)
	}
	meta := clientMetadata{IDEType: "IDE_UNSPECIFIED", Platform: "PLATFORM_UNSPECIFIED", PluginType: "GEMINI", DuetProject: project}
	load, err := c.loadCodeAssist(ctx, meta, project)
	if err != nil {
		return UserData{}, err
	}
	if load.CurrentTier != nil {
		return currentUser(load, project)
	}
	t := onboardTier(load)
	op, err := c.onboard(ctx, t, meta, project)
	if err != nil {
		return UserData{}, err
	}
	user := UserData{ProjectID: op.Response.CloudaicompanionProject.ID, TierID: t.ID, TierName: t.Name}
	if user.ProjectID == "" {
		if project == "" {
			return UserData{}, ineligibleOrProjectRequired(load)
		}
		user.ProjectID = project
	}
	return user, nil
}

// loadCodeAssist asks what the user's tier is, for project if it is
// named; a user with no tier who must validate the account is told so.
func (c *Client) loadCodeAssist(ctx context.Context, meta clientMetadata, project string) (loadResponse, error) {
	loadReq := map[string]any{"metadata": meta}
	if project != "" {
		loadReq["cloudaicompanionProject"] = project
	}
	data, err := c.call(ctx, "loadCodeAssist", loadReq)
	if err != nil {
		return loadResponse{}, err
	}
	var load loadResponse
	if err := json.Unmarshal(data, &load); err != nil {
		return loadResponse{}, fmt.Errorf("decoding the loadCodeAssist answer: %w", err)
	}
	if load.CurrentTier == nil {
		for _, t := range load.IneligibleTiers {
			if t.ReasonCode == "VALIDATION_REQUIRED" && t.ValidationURL != "" {
				return loadResponse{}, fmt.Errorf("Account validation required: %s (verify at %s, then try again)", t.ReasonMessage, t.ValidationURL)
			}
		}
		// With a project named the user may be onboarded to Standard or
		// Enterprise; without one the individual tier was the only way.
		if project == "" {
			if err := individualRefused(load); err != nil {
				return loadResponse{}, err
			}
		}
	}
	return load, nil
}

// individualRefused is the refusal of an individual account, when load
// holds it; nil otherwise.
func individualRefused(load loadResponse) error {
	for _, t := range load.IneligibleTiers {
		if t.ReasonCode == reasonUnsupportedClient {
			return &IndividualRefusedError{ServerMessage: t.ReasonMessage}
		}
	}
	return nil
}

// currentUser is the user of a load with a current tier: its paid tier
// wins, and its project, else the one named.
func currentUser(load loadResponse, project string) (UserData, error) {
	cur := load.CurrentTier
	user := UserData{TierID: cur.ID, TierName: cur.Name}
	if p := load.PaidTier; p != nil && p.ID != "" {
		user.TierID, user.TierName = p.ID, p.Name
	}
	if user.TierID == "" {
		user.TierID = tierStandard
	}
	switch {
	case load.CloudaicompanionProject != "":
		user.ProjectID = load.CloudaicompanionProject
	case project != "":
		user.ProjectID = project
	default:
		return UserData{}, ineligibleOrProjectRequired(load)
	}
	return user, nil
}

// onboard onboards the user to the tier t, and polls the operation until
// it is done.
func (c *Client) onboard(ctx context.Context, t tier, meta clientMetadata, project string) (operation, error) {
	req := map[string]any{"tierId": t.ID, "metadata": meta}
	if t.ID == tierFree {
		// The free tier uses a managed project; naming one fails.
		meta.DuetProject = ""
		req["metadata"] = meta
	} else if project != "" {
		req["cloudaicompanionProject"] = project
	}
	data, err := c.call(ctx, "onboardUser", req)
	if err != nil {
		return operation{}, err
	}
	var op operation
	if err := json.Unmarshal(data, &op); err != nil {
		return operation{}, fmt.Errorf("decoding the onboardUser answer: %w", err)
	}
	for polls := 0; !op.Done && op.Name != ""; polls++ {
		if polls >= c.cfg.MaxPolls {
			return operation{}, fmt.Errorf("onboarding to the %s tier did not finish after %d polls of %s", t.ID, polls, op.Name)
		}
		if err := ctxtime.Sleep(ctx, c.cfg.PollInterval); err != nil {
			return operation{}, err
		}
		if op, err = c.poll(ctx, op.Name); err != nil {
			return operation{}, err
		}
	}
	return op, nil
}

// poll reads the operation name again; the answer keeps the name if it
// leaves it out.
func (c *Client) poll(ctx context.Context, name string) (operation, error) {
	data, err := c.get(ctx, c.base+"/"+strings.TrimPrefix(name, "/"))
	if err != nil {
		return operation{}, fmt.Errorf("polling the onboarding operation: %w", err)
	}
	var op operation
	if err := json.Unmarshal(data, &op); err != nil {
		return operation{}, fmt.Errorf("decoding the onboarding operation: %w", err)
	}
	if op.Name == "" {
		op.Name = name
	}
	return op, nil
}

// onboardTier is the default allowed tier, else the legacy tier, as
// setup.ts's getOnboardTier picks it.
func onboardTier(load loadResponse) tier {
	for _, t := range load.AllowedTiers {
		if t.IsDefault {
			if t.ID == "" {
				t.ID = tierStandard
			}
			return t
		}
	}
	return tier{ID: tierLegacy, UserDefinedCloudaicompanionProject: true}
}

func ineligibleOrProjectRequired(load loadResponse) error {
	var reasons []string
	for _, t := range load.IneligibleTiers {
		reasons = append(reasons, t.ReasonMessage)
	}
	if len(reasons) > 0 {
		return errors.New(strings.Join(reasons, ", "))
	}
	return ErrProjectIDRequired
}
