package codeassist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"google.golang.org/genai"
)

// FreeTier reports whether u is Gemini Code Assist for individuals, the
// free tier, whose data-collection opt-in Gemini CLI's /privacy shows.
func (u UserData) FreeTier() bool { return u.TierID == tierFree }

// globalUserSetting is the part of the user's Code Assist setting Gemini
// CLI reads and writes; a field the server leaves out is nil.
type globalUserSetting struct {
	FreeTierDataCollectionOptin *bool `json:"freeTierDataCollectionOptin,omitempty"`
}

// DataCollectionOptIn is whether the free tier may use the user's data to
// improve Google's products (GET :getCodeAssistGlobalUserSetting). As
// Gemini CLI 0.61's /privacy reads it: true when the server keeps no
// setting (404) or leaves the field out.
func (c *Client) DataCollectionOptIn(ctx context.Context) (bool, error) {
	data, err := c.get(ctx, c.base+":getCodeAssistGlobalUserSetting")
	var apiErr genai.APIError
	if errors.As(err, &apiErr) && apiErr.Code == http.StatusNotFound {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading the data collection opt-in: %w", err)
	}
	return decodeOptIn(data, true)
}

// SetDataCollectionOptIn records optIn as the user's choice for the
// project the setup found (POST :setCodeAssistGlobalUserSetting) and
// returns what the server then holds (optIn when it does not say).
func (c *Client) SetDataCollectionOptIn(ctx context.Context, optIn bool) (bool, error) {
	user, err := c.Setup(ctx)
	if err != nil {
		return false, err
	}
	body := map[string]any{"cloudaicompanionProject": user.ProjectID, "freeTierDataCollectionOptin": optIn}
	data, err := c.call(ctx, "setCodeAssistGlobalUserSetting", body)
	if err != nil {
		return false, fmt.Errorf("setting the data collection opt-in: %w", err)
	}
	return decodeOptIn(data, optIn)
}

// decodeOptIn is the opt-in of a setting's JSON, fallback when absent.
func decodeOptIn(data []byte, fallback bool) (bool, error) {
	var s globalUserSetting
	if err := json.Unmarshal(data, &s); err != nil {
		return false, fmt.Errorf("decoding the Code Assist user setting: %w", err)
	}
	if s.FreeTierDataCollectionOptin == nil {
		return fallback, nil
	}
	return *s.FreeTierDataCollectionOptin, nil
}
