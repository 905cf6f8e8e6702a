package builtin

import "context"

func policiesSubcommands() []Builtin {
	return []Builtin{
		{Command: command("list", "List all active policies grouped by mode", ""), Run: listPolicies},
	}
}

// listPolicies shows the policy files' rules as Gemini CLI's /policies
// list does, and what of the files could not be used.
func listPolicies(_ context.Context, env Env, _ string) (Reply, error) {
	return Reply{Text: env.Built.Policy.List()}, nil
}
