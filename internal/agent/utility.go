package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// utility is the tools.Utility over a content generator.
type utility struct {
	gen   ContentGenerator
	retry dialog.RetryPolicy
}

// NewUtility returns the tools' utility model client: gen's GenerateContent
// on the model and generation config Gemini CLI 0.61 gives the call's
// model config alias (models.UtilityFor), retried as chat requests are.
func NewUtility(gen ContentGenerator, retry dialog.RetryPolicy) tools.Utility {
	return &utility{gen: gen, retry: retry}
}

func (u *utility) GenerateContent(ctx context.Context, alias string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	use := models.UtilityFor(alias)
	resp, err := generateAs(ctx, u.gen, u.retry, use, contents, config, nil)
	if err != nil {
		return nil, fmt.Errorf("utility call to %s: %w", use.Model, err)
	}
	return resp, nil
}

// generateAs asks gen for a utility call's answer on use's model, with
// use's generation settings over config (withGeneration), retried by retry
// (onRetry told of each retry; nil: nobody).
func generateAs(ctx context.Context, gen ContentGenerator, retry dialog.RetryPolicy, use models.Utility, contents []*genai.Content, config *genai.GenerateContentConfig, onRetry func(int, error, time.Duration)) (*genai.GenerateContentResponse, error) {
	config = withGeneration(config, use.Generation)
	var resp *genai.GenerateContentResponse
	err := retrying(ctx, retry, func() error {
		var err error
		resp, err = gen.GenerateContent(ctx, use.Model, contents, config)
		return err
	}, onRetry)
	return resp, err
}

// withGeneration is models.Generation.Over.
func withGeneration(config *genai.GenerateContentConfig, g models.Generation) *genai.GenerateContentConfig {
	return g.Over(config)
}

// jsonAsker asks a utility model for a JSON answer (utilityCaller's):
// how the loop check and the router ask theirs.
type jsonAsker interface {
	utilityJSON(what string, use models.Utility, system string, schema map[string]any, contents []*genai.Content, attempts int) (string, error)
}

// utilityCaller makes a prompt's requests that are not the chat's (the
// router's, the loop check's) and tells their retries; what it needs is
// handed to it.
type utilityCaller struct {
	ctx      context.Context
	gen      ContentGenerator
	retry    dialog.RetryPolicy
	now      func() time.Time
	stats    *statsRecord
	log      apiLog
	promptID string
	// emit tells the user of a retry.
	emit func(dialog.Event)
}

// utility is the turn's utilityCaller.
func (t *turn) utility() *utilityCaller {
	a := t.s.agent
	return &utilityCaller{
		ctx: t.ctx, gen: a.cfg.Generator, retry: a.cfg.Retry, now: a.cfg.Now,
		stats: t.s.statsRecord(), log: a.log, promptID: t.promptID,
		emit: func(ev dialog.Event) { t.emit(ev) },
	}
}

// utilityJSON asks use for a JSON answer to contents, with system as the
// system instruction and schema as the response schema, as 0.61's
// BaseLlmClient.generateJson does (bundle chunk-JDPZ4CE3.js:308212): an
// answer that is not JSON (once a ```json fence is taken off) is asked for
// again, and a failed request retried as chat requests are, up to attempts
// times each, each retry told to the user as 0.61 tells it (its onRetry's
// retry-attempt event), the request named by what ("the routing
// request"). It returns the JSON text.
func (u *utilityCaller) utilityJSON(what string, use models.Utility, system string, schema map[string]any, contents []*genai.Content, attempts int) (string, error) {
	config := &genai.GenerateContentConfig{
		SystemInstruction:  genai.NewContentFromText(system, genai.RoleUser),
		ResponseMIMEType:   "application/json",
		ResponseJsonSchema: schema,
	}
	retry := u.retry
	retry.MaxAttempts = attempts
	for range attempts {
		start := u.now()
		resp, err := generateAs(u.ctx, u.gen, retry, use, contents, config, u.tellRetry(what, use.Model))
		var usage *genai.GenerateContentResponseUsageMetadata
		if resp != nil {
			usage = resp.UsageMetadata
		}
		errorType := ""
		if err != nil && !errors.Is(err, context.Canceled) {
			errorType = requestErrorType(err, u.log.authType)
		}
		u.stats.request(use.Model, u.now().Sub(start), usageOf(usage), errorType)
		if err != nil {
			u.log.error(use.Model, u.promptID, 0, err)
			return "", fmt.Errorf("asking %s: %w", use.Model, err)
		}
		text := strings.TrimSpace(resp.Text())
		text = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(text, "```json"), "```"))
		if json.Valid([]byte(text)) {
			return text, nil
		}
	}
	return "", fmt.Errorf("%s answered no JSON in %d attempts", use.Model, attempts)
}

// tellRetry is an onRetry for a request that is not the chat's: it logs
// the retry and tells the user, naming the request by what and model.
func (u *utilityCaller) tellRetry(what, model string) func(attempt int, err error, wait time.Duration) {
	return func(attempt int, err error, wait time.Duration) {
		u.log.retry(model, u.promptID, attempt, err, wait)
		reason := fmt.Sprintf("%s (%s): %s", what, model, retryReason(err))
		u.emit(dialog.RetryEvent{Retry: dialog.RetryInfo{Attempt: attempt, Delay: wait, Reason: reason}})
	}
}
