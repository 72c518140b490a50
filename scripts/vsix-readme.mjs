// The README shipped in the VSIX, which the Extensions view shows: docs/extension-readme.md (written
// for users; the repository's README.md is for contributors), with each relative image inlined as a
// data: URI. VS Code renders an extension's README in a webview whose policy loads images only from
// https: and data:, with no base for relative paths, so a relative link shows nothing offline and an
// https one needs the network. The image files ship in the package as well (the walkthrough shows them).
import * as fs from "node:fs";
import * as path from "node:path";

export const EXTENSION_README = "docs/extension-readme.md";

const MIME = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif" };

/** The VSIX README's text, and the repository files its images came from. */
export function extensionReadme(root) {
  const source = path.join(root, EXTENSION_README);
  const images = [];
  const text = fs.readFileSync(source, "utf8").replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, (all, alt, link) => {
    if (/^[a-z]+:/i.test(link)) return all;
    const file = path.resolve(path.dirname(source), link);
    const mime = MIME[path.extname(file).toLowerCase()];
    if (!mime) throw new Error(`${EXTENSION_README}: ${link}: only PNG, JPEG and GIF images render in the Extensions view`);
    images.push(path.relative(root, file).split(path.sep).join("/"));
    return `![${alt}](data:${mime};base64,${fs.readFileSync(file).toString("base64")})`;
  });
  return { text, images };
}
