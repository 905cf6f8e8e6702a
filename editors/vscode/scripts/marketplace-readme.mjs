// Writes the README the Marketplace and Open VSX show: README.md with every
// relative link and image made an absolute GitHub URL of one commit of the
// repository. vsce's own rewriting joins "../../docs/x.png" onto
// ".../raw/HEAD/" unresolved, which names nothing; and a link to a branch
// would change under a published page, a commit's never does.
//
//   node scripts/marketplace-readme.mjs COMMIT README.md OUT
import { readFileSync, writeFileSync } from "node:fs";

const [commit, source, out] = process.argv.slice(2);
if (!/^[0-9a-f]{40}$/.test(commit ?? "") || !source || !out) {
  console.error("usage: marketplace-readme.mjs COMMIT(40 hex digits) README.md OUT");
  process.exit(2);
}

const repository = "https://github.com/gemini-ls/gemini-ls";
// Where this README sits in the repository: what its links are relative to.
const here = "editors/vscode/README.md";
const pageBase = `${repository}/blob/${commit}/${here}`;
const imageBase = `${repository}/raw/${commit}/${here}`;

// absolute is target as a URL of the commit: an image's as the raw file, a
// link's as GitHub's page of it; a fragment, an absolute URL or a mailto:
// stays as it is.
function absolute(target, isImage) {
  if (target.startsWith("#") || /^[a-z][a-z0-9+.-]*:/i.test(target)) {
    return target;
  }
  return new URL(target, isImage ? imageBase : pageBase).href;
}

// An inline link or image, [text](target) or ![alt](target), whose text may
// itself be an image: [![alt](img)](link).
const inline = /(!?)\[((?:[^\[\]]|!\[[^\[\]]*\]\([^()\s]+\))*)\]\(([^()\s]+)\)/g;

function rewrite(markdown) {
  return markdown.replace(inline, (_, bang, text, target) => {
    const inner = text.replace(inline, (_, b, t, u) => `${b}[${t}](${absolute(u, b === "!")})`);
    return `${bang}[${inner}](${absolute(target, bang === "!")})`;
  });
}

writeFileSync(out, rewrite(readFileSync(source, "utf8")));
