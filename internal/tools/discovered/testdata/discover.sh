#!/bin/sh
# A project's tool discovery command: prints FunctionDeclarations in every
# form Gemini CLI reads (a bare declaration, functionDeclarations and
# function_declarations wrappers; parametersJsonSchema or parameters).
cat <<'EOF'
[
  {"name": "echo", "description": "Returns its arguments and the directory it ran in.",
   "parametersJsonSchema": {"type": "object", "properties": {"text": {"type": "string"}, "count": {"type": "integer"}}, "required": ["text"]}},
  {"functionDeclarations": [
    {"name": "fail", "description": "Prints, complains and exits 3.",
     "parameters": {"type": "OBJECT", "properties": {"why": {"type": "STRING"}}}}
  ]},
  {"function_declarations": [
    {"name": "killed", "description": "Dies of SIGKILL."},
    {"name": "hang", "description": "Starts a child and waits forever."},
    {"name": "warn", "description": "Succeeds, with a warning on stderr."}
  ]}
]
EOF
