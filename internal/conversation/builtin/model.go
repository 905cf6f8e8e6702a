package builtin

import (
	"context"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// setModelHint is /model set's usage, as Gemini CLI 0.61 words it.
const setModelHint = "<model-name> [--persist]"

// modelSubcommands are /model's, as Gemini CLI 0.61's
// (packages/cli/src/ui/commands/modelCommand.ts, bundle
// chunk-4GP6HFBO.js:98757): manage, the default, and set.
func modelSubcommands() []Builtin {
	return []Builtin{
		{Command: command("manage", "List the models to choose from, marking the current one", ""), Run: manageModel},
		{Command: command("set", "Set the model to use; --persist also saves it in the user's settings", setModelHint), Run: setModel, Changes: "the model, and with --persist your settings"},
	}
}

// manageModel lists what 0.61's model dialog (ModelDialog, bundle
// interactiveCli-F3TDVF3E.js:16751) offers, as text: there is no dialog
// here, so the user picks with /model set.
func manageModel(_ context.Context, env Env, _ string) (Reply, error) {
	current := env.Built.Agent.ModelSetting()
	offered := models.Offered()
	var b strings.Builder
	fmt.Fprintf(&b, "Select Model (current: %s)\n\n", models.Display(current))
	listed := false
	option := func(o models.Option) {
		fmt.Fprintf(&b, "- `%s`", o.ID)
		if o.Name != o.ID {
			fmt.Fprintf(&b, " (%s)", o.Name)
		}
		if o.Description != "" {
			b.WriteString(" — " + o.Description)
		}
		if o.ID == current {
			b.WriteString(" ← current")
			listed = true
		}
		b.WriteByte('\n')
	}
	option(offered[0])
	b.WriteString("\nManual:\n")
	for _, o := range offered[1:] {
		option(o)
	}
	if !listed {
		fmt.Fprintf(&b, "\nThe current model, `%s`, is none of these.\n", current)
	}
	b.WriteString("\nSet one with `/model set " + setModelHint + "`: `--persist` also saves it as `model.name` in the user's settings, to remember it for future sessions. ")
	b.WriteString("A model named at startup (`GEMINI_MODEL`, the client's `model` option, `--model`) wins over that setting.")
	return Reply{Text: b.String()}, nil
}

// setModel makes every session's next request go to the model named, as
// 0.61's /model set does (config.setModel): any name is taken, as 0.61
// takes it, and a name the API does not know fails at the next request.
// With --persist it is also saved as model.name in the user's settings
// (0.61's saveModelChange, bundle chunk-DZZAUXYI.js:16891).
func setModel(ctx context.Context, env Env, args string) (Reply, error) {
	usage := func(problem string) error { return subUsage("model", "set", setModelHint, problem) }
	var name string
	persist := false
	for _, f := range strings.Fields(args) {
		switch {
		case f == "--persist":
			persist = true
		case strings.HasPrefix(f, "-"):
			return Reply{}, usage(fmt.Sprintf("unknown option %q", f))
		case name != "":
			return Reply{}, usage(fmt.Sprintf("one model name, not %q and %q", name, f))
		default:
			name = f
		}
	}
	if name == "" {
		return Reply{}, usage("no model name")
	}
	if persist {
		user, _ := env.Built.SkillSettingsFiles()
		if user == "" {
			return Reply{}, fmt.Errorf("the model was not set: there is no user settings file to save it in: %s", noScopeFile("user"))
		}
		if err := settings.SetModelName(ctx, user, name); err != nil {
			return Reply{}, fmt.Errorf("the model was not set: saving it in %s: %w", user, err)
		}
	}
	env.Built.SetModel(ctx, name)
	text := "Model set to " + name
	if persist {
		text += " (persisted)"
	}
	return Reply{Text: text, Model: name}, nil
}
