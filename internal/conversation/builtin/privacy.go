package builtin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/codeassist"
)

// The words of Gemini CLI 0.61's privacy notices (ui/privacy/*.tsx).
const (
	geminiAPINotice = `**Gemini API Key Notice**

By using the Gemini API[1], Google AI Studio[2], and the other Google developer services that reference these terms (collectively, the "APIs" or "Services"), you are agreeing to Google APIs Terms of Service (the "API Terms")[3], and the Gemini API Additional Terms of Service (the "Additional Terms")[4].

- [1] https://ai.google.dev/docs/gemini_api_overview
- [2] https://aistudio.google.com/
- [3] https://developers.google.com/terms
- [4] https://ai.google.dev/gemini-api/terms`

	vertexAINotice = `**Vertex AI Notice**

Service Specific Terms[1] are incorporated into the agreement under which Google has agreed to provide Google Cloud Platform[2] to Customer (the “Agreement”). If the Agreement authorizes the resale or supply of Google Cloud Platform under a Google Cloud partner or reseller program, then except for in the section entitled “Partner-Specific Terms”, all references to Customer in the Service Specific Terms mean Partner or Reseller (as applicable), and all references to Customer Data in the Service Specific Terms mean Partner Data. Capitalized terms used but not defined in the Service Specific Terms have the meaning given to them in the Agreement.

- [1] https://cloud.google.com/terms/service-terms
- [2] https://cloud.google.com/terms/services`

	codeAssistPaidNotice = `**Gemini Code Assist Privacy Notice**

https://developers.google.com/gemini-code-assist/resources/privacy-notices`

	tierUnavailableNotice = `**Gemini Code Assist Privacy Notice**

The data collection opt-in isn't available for this account because it doesn't have a Gemini Code Assist for Individuals (free) tier.

If you're on a Google Workspace or enterprise account, use the Vertex AI / Google Cloud path instead by setting the GOOGLE_CLOUD_PROJECT environment variable to your Google Cloud project.

Learn more: https://geminicli.com/docs/get-started/authentication/`

	// codeAssistFreeNotice is 0.61's but for the paragraph on choosing,
	// which names the commands that choose here instead of its dialog.
	codeAssistFreeNotice = `**Gemini Code Assist for Individuals Privacy Notice**

This notice and our Privacy Policy[1] describe how Gemini Code Assist handles your data. Please read them carefully.

When you use Gemini Code Assist for individuals with Gemini CLI, Google collects your prompts, related code, generated output, code edits, related feature usage information, and your feedback to provide, improve, and develop Google products and services and machine learning technologies.

To help with quality and improve our products (such as generative machine-learning models), human reviewers may read, annotate, and process the data collected above. We take steps to protect your privacy as part of this process. This includes disconnecting the data from your Google Account before reviewers see or annotate it, and storing those disconnected copies for up to 18 months. Please don't submit confidential information or any data you wouldn't want a reviewer to see or Google to use to improve our products, services and machine-learning technologies.

If you don't want this data used to improve Google's products and services, you can opt out with ` + "`/privacy optout`" + ` ("` + optOutLabel + `"). Otherwise, you can opt in with ` + "`/privacy optin`" + ` ("` + optInLabel + `").

Allow Google to use this data to develop and improve our products and services?
`
	privacyPolicy = "- [1] https://policies.google.com/privacy"

	optInLabel  = "Yes, grant permission to use my data for product improvement (Opt-in)"
	optOutLabel = "No, deny permission to use my data for product improvement (Opt-out)"

	// dataCollectionChange is what optin and optout change.
	dataCollectionChange = "whether Google may use your data (your account's setting)"
)

// privacyCommand is 0.61's /privacy: the notice for the session's auth
// type. 0.61's dialog offers the Code Assist free tier's two choices
// about data collection; here they are subcommands.
func privacyCommand() Builtin {
	subs := []Builtin{
		{Command: command("optin", optInLabel, ""), Run: setDataCollection(true), Changes: dataCollectionChange},
		{Command: command("optout", optOutLabel, ""), Run: setDataCollection(false), Changes: dataCollectionChange},
	}
	b := withSubcommands(command("privacy", "Display the privacy notice", ""), subs)
	choose := b.Run
	b.Run = func(ctx context.Context, env Env, args string) (Reply, error) {
		if strings.TrimSpace(args) == "" {
			return privacyNotice(ctx, env)
		}
		return choose(ctx, env, args)
	}
	return b
}

// privacyNotice is the notice 0.61's PrivacyNotice shows for the auth
// type: the Gemini API's, Vertex AI's, else Code Assist's, which for the
// free tier says whether the user opted in to data collection.
func privacyNotice(ctx context.Context, env Env) (Reply, error) {
	switch env.Built.AuthStatus().Type {
	case auth.GeminiAPIKey:
		return Reply{Text: geminiAPINotice}, nil
	case auth.VertexAI:
		return Reply{Text: vertexAINotice}, nil
	}
	client, err := freeTierClient(ctx, env)
	switch {
	case errors.Is(err, errTierUnavailable):
		return Reply{Text: tierUnavailableNotice}, nil
	case errors.Is(err, errNotFreeTier):
		return Reply{Text: codeAssistPaidNotice}, nil
	case err != nil:
		return Reply{}, fmt.Errorf("Error loading Opt-in settings: %w", err)
	}
	optIn, err := client.DataCollectionOptIn(ctx)
	if err != nil {
		return Reply{}, fmt.Errorf("Error loading Opt-in settings: %w", err)
	}
	var b strings.Builder
	b.WriteString(codeAssistFreeNotice)
	for _, c := range []struct {
		label, command string
		chosen         bool
	}{{optInLabel, "optin", optIn}, {optOutLabel, "optout", !optIn}} {
		if c.chosen {
			fmt.Fprintf(&b, "- **%s**: chosen now\n", c.label)
		} else {
			fmt.Fprintf(&b, "- %s: `/privacy %s`\n", c.label, c.command)
		}
	}
	b.WriteString("\n" + privacyPolicy)
	return Reply{Text: b.String()}, nil
}

// setDataCollection is /privacy optin or optout: the choice 0.61's dialog
// offers the Code Assist free tier, recorded on the Code Assist server.
func setDataCollection(optIn bool) func(context.Context, Env, string) (Reply, error) {
	return func(ctx context.Context, env Env, args string) (Reply, error) {
		if args != "" {
			return Reply{}, fmt.Errorf("/privacy optin and optout take no arguments; usage: /privacy optin | optout")
		}
		client, err := freeTierClient(ctx, env)
		switch {
		case errors.Is(err, errTierUnavailable), errors.Is(err, errNotFreeTier):
			return Reply{}, fmt.Errorf("nothing was changed: %w", err)
		case err != nil:
			return Reply{}, fmt.Errorf("Error loading Opt-in settings: %w", err)
		}
		got, err := client.SetDataCollectionOptIn(ctx, optIn)
		if err != nil {
			return Reply{}, fmt.Errorf("nothing was changed: %w", err)
		}
		if got != optIn {
			return Reply{}, fmt.Errorf("asked the Code Assist server for %q, but it holds %q", label(optIn), label(got))
		}
		return Reply{Text: fmt.Sprintf("Saved on the Code Assist server: %s.", label(got))}, nil
	}
}

func label(optIn bool) string {
	if optIn {
		return optInLabel
	}
	return optOutLabel
}

var (
	errTierUnavailable = errors.New("the data collection opt-in isn't available for this account because it doesn't have a Gemini Code Assist for Individuals (free) tier")
	errNotFreeTier     = errors.New("the data collection opt-in is only for Gemini Code Assist for Individuals (the free tier); this account is on another tier")
)

// freeTierClient is the session's Code Assist client when the account is
// on the free tier. As 0.61's usePrivacySettings: errTierUnavailable
// when the session does not use Code Assist or the account has no tier,
// errNotFreeTier for another tier, else what failed.
func freeTierClient(ctx context.Context, env Env) (*codeassist.Client, error) {
	if env.Built.AuthErr != nil {
		return nil, env.Built.AuthErr
	}
	client, ok, err := env.Built.CodeAssist(ctx)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, fmt.Errorf("this session signs in with %s, not Code Assist: %w", orUnknown(env.Built.AuthStatus().Type), errTierUnavailable)
	}
	user, err := client.Setup(ctx)
	if err != nil {
		// How the server says an account has no tier, which 0.61 reports
		// as the opt-in being unavailable rather than as an error.
		if strings.Contains(strings.ToLower(err.Error()), "does not have a current tier") {
			return nil, fmt.Errorf("%w (%v)", errTierUnavailable, err)
		}
		return nil, err
	}
	if !user.FreeTier() {
		return nil, errNotFreeTier
	}
	return client, nil
}
