#!/usr/bin/env bash
# make actionlint: actionlint ($ACTIONLINT, a pinned go run) on
#   - the repository's workflows (.github/workflows);
#   - the workflow /setup-github writes (TEMPLATE), as a workflow;
#   - that workflow again with its `uses: gemini-ls/gemini-ls@vX.Y.Z` made
#     `uses: ./`, in a scratch project holding this checkout's action.yml:
#     actionlint then reads action.yml and checks every `with:` of the
#     template against its inputs (a name it lacks, a required one left
#     out). actionlint checks no action.yml by itself; its shape is
#     packaging/action_test.go's (TestActionMetadata).
set -euo pipefail
cd "$(dirname "$0")/.."
actionlint=${ACTIONLINT:?set ACTIONLINT to actionlint at a version, module@vX.Y.Z}
template=internal/conversation/builtin/workflows/gemini-ls.yml

go run "$actionlint"
go run "$actionlint" "$template"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/.github/workflows"
# actionlint finds the project, and so ./, by its .git.
git init -q "$scratch"
cp action.yml "$scratch/"
sed -E 's#uses: gemini-ls/gemini-ls@v[0-9]+\.[0-9]+\.[0-9]+$#uses: ./#' "$template" >"$scratch/.github/workflows/gemini-ls.yml"
grep -q 'uses: \./$' "$scratch/.github/workflows/gemini-ls.yml" ||
  { echo "actionlint.sh: $template has no uses: gemini-ls/gemini-ls@vX.Y.Z to check against action.yml" >&2; exit 1; }
(cd "$scratch" && go run "$actionlint" .github/workflows/gemini-ls.yml)
